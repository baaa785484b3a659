/**
 * A loopback Zimou Express: a real HTTP server on 127.0.0.1 (random port) speaking the Laravel API under `/api/v3/`
 * as the research notes document it — and only as they document it; nothing here was checked against the live
 * platform (README "Unverified").
 *
 * - Auth: `Authorization: Bearer <token>`; none or an unknown one: 401 `{"message":"Unauthenticated."}`.
 * - `POST v3/packages`: Zimou's own checks, refused as `{ error: 1, message }` on HTTP 201 (uften's fixtures) in its
 *   French: the required fields, the phone, a wilaya 1–58, a commune of that wilaya (its own short list), the
 *   service (`Express`, `Flexible`, `Point relais`) sold there, and for `Point relais` an `office_id` from its own
 *   offices list whose commune is the declared one. Accepted: 201 `{ error: 0, order_id, message, data }`, the
 *   package routed at once to a partner courier with the partner's own code (unless told `unrouted`), status 1.
 * - `GET v3/packages/status?packages[]=` (one code) or `packages[0]=…&packages[1]=…` (several, as PHP reads an
 *   array): an object keyed by each known code, unknown ones left out (PHP's `[]` when none is known).
 * - `DELETE v3/packages/bulk {tracking_codes:[…]}`: deletes the parcels while they wait for pickup (created,
 *   ready, waiting: {@link DELETABLE}), `{ success: true, message }`; refused whole as 422 `{ error: 1, message }`
 *   when a code is unknown or a parcel is past that point (the words are the fake's: none are documented).
 * - `GET v3/helpers/communes`: `{ data: [{ id, name, wilaya_id, zip_code }] }`, every commune the create accepts
 *   ({@link COMMUNES}), every wilaya at once.
 * - `GET v3/helpers/offices`: `{ data: [{ id, name, delivery_price, partner_company_name, address, commune_id }] }`,
 *   its relay points ({@link OFFICES}), placed by commune id only.
 * - `POST v3/packages/labels {packages:[…]}`: the PDF; 422 `{ error: 1, message }` for an unknown code.
 * - `GET v3/my/prices`: `{ data: [{ wilaya_id, express_price, flexible_price, point_relais_price, return_price }] }`,
 *   amounts as Laravel's decimal strings, null where a service is not sold.
 * - `GET v3/user`: the account (the cheap read integrators test a token with).
 *
 * Every request is recorded; `misbehaveNext` plays the standard misbehaviours and Zimou's own: a refusal inside the
 * 201, a refusal quoting the caller's token, and a create Zimou has not routed yet.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"
import { names } from "./statuses.ts"

export const TOKEN = "fake-zimou-token-7b1e4c9a2f6d3085"

/**
 * The communes the fake knows, by wilaya: the create accepts these and no other, and `helpers/communes` lists
 * exactly these ({@link communeId}).
 */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<string>>> = {
  9: ["Blida", "Boufarik"],
  16: ["Alger Centre", "Bab Ezzouar", "Bir Mourad Raïs", "Chéraga", "Hydra", "Kouba"],
  19: ["Sétif", "El Eulma"],
  25: ["Constantine", "El Khroub"],
  31: ["Oran", "Bir El Djir", "Es Sénia"]
}

/** A commune's id in `helpers/communes`: its wilaya's code times 100 plus its place in {@link COMMUNES} (1631 Kouba). */
export const communeId = (wilaya: number, commune: string): number => {
  const index = (COMMUNES[wilaya] ?? []).indexOf(commune)
  if (index < 0) throw new Error(`the fake has no commune ${commune} in wilaya ${wilaya}`)
  return wilaya * 100 + index + 1
}

export interface Office {
  readonly id: number
  readonly wilaya: number
  readonly commune: string
  /** The partner courier whose desk it is. */
  readonly partner: string
  readonly name: string
  readonly address: string
}

/** Zimou's relay points the fake knows (`helpers/offices`). */
export const OFFICES: ReadonlyArray<Office> = [
  {
    id: 101,
    wilaya: 16,
    commune: "Bab Ezzouar",
    partner: "Yalidine",
    name: "Yalidine Bab Ezzouar",
    address: "Cité 2068 logements, Bab Ezzouar"
  },
  {
    id: 102,
    wilaya: 16,
    commune: "Hydra",
    partner: "Yalidine",
    name: "Yalidine Hydra",
    address: "12 rue des Frères Oukid, Hydra"
  },
  { id: 191, wilaya: 19, commune: "Sétif", partner: "DHD", name: "DHD Sétif", address: "Cité 1014, Sétif" },
  {
    id: 311,
    wilaya: 31,
    commune: "Bir El Djir",
    partner: "Maystro",
    name: "Maystro Bir El Djir",
    address: "Hai Khemisti, Bir El Djir"
  }
]

/** The status ids at which the fake still deletes a parcel: created, ready or waiting, not yet picked up. */
export const DELETABLE: ReadonlyArray<number> = [1, 2, 12, 26, 28, 33, 34, 35, 43, 44]

/** Wilayas where the fake sells no `Flexible`, and where it has no relay point. */
export const NO_FLEXIBLE: ReadonlyArray<number> = [11, 33, 37, 53, 56]
export const NO_RELAY: ReadonlyArray<number> = [11, 33, 37, 50, 53, 54, 56]

/** The fake's prices in DZD: [Express, Flexible or null, Point relais or null, return]. */
export const prices = (wilaya: number): readonly [number, number | null, number | null, number] => {
  const express = wilaya === 16 ? 500 : NO_FLEXIBLE.includes(wilaya) ? 1200 : 750
  return [
    express,
    NO_FLEXIBLE.includes(wilaya) ? null : express - 150,
    NO_RELAY.includes(wilaya) ? null : express - 250,
    200
  ]
}

/** The partner a home parcel goes to, by wilaya, and the shape of that partner's codes. */
const homePartner = (wilaya: number): string => (wilaya === 16 ? "Yalidine" : wilaya === 31 ? "Maystro" : "DHD")

const partnerCode = (partner: string, n: number): string =>
  partner === "Yalidine"
    ? `yal-${(0x4a3f10 + n).toString(36).toUpperCase()}`
    : partner === "Maystro"
      ? String(880000 + n)
      : `DHD${String(n).padStart(7, "0")}`

export type RecordedRequest = FakeCourier.Request

/** Zimou's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  | { readonly kind: "refuse"; readonly message: string }
  | { readonly kind: "echoToken" }
  | { readonly kind: "unrouted" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Parcel {
  readonly id: number
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  readonly partner: string | null
  readonly partnerCode: string | null
  statusId: number
  readonly createdAt: string
  updatedAt: string
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Moves a parcel to a status id, stamped with the fake's clock (it must exist). */
  readonly setStatus: (tracking: string, statusId: number) => void
  /** The UTC time the fake stamps with, `YYYY-MM-DD HH:MM:SS`; Laravel prints it `YYYY-MM-DDTHH:MM:SS.000000Z`. */
  readonly setClock: (utc: string) => void
}

export class ZimouFake extends Context.Service<ZimouFake, Fake>()("@tawsil/adapter-zimou/test/ZimouFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(ZimouFake, make(options))
}

const { json } = FakeCourier

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

/** Communes compared as Zimou's search would: without case or accents. */
const fold = (name: string) =>
  name
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .trim()

/** What Zimou says for a missing field. */
const required: ReadonlyArray<readonly [string, string]> = [
  ["name", "Merci de mettre le nom du produit"],
  ["client_first_name", "Merci de mettre le nom du client"],
  ["client_last_name", "Merci de mettre le nom du client"],
  ["client_phone", "Merci de mettre le numéro de téléphone du client"],
  ["address", "Merci de mettre l'adresse du client"],
  ["wilaya", "Merci de choisir la wilaya"],
  ["commune", "Merci de choisir la commune"],
  ["price", "Merci de mettre le prix du colis"],
  ["delivery_type", "Merci de choisir le type de livraison"]
]

/** Zimou's checks of a create, in its words; `undefined` when the package is accepted. */
const refusalOf = (fields: Readonly<Record<string, unknown>>): string | undefined => {
  for (const [field, message] of required) if ((text(fields[field]) ?? "").trim() === "") return message
  if (fields.type !== "ecommerce") return "Type de colis invalide"
  for (const field of ["client_phone", "client_phone2"]) {
    const phone = text(fields[field])
    if (phone !== undefined && !/^0[567]\d{8}$/.test(phone)) return "Le numéro de téléphone est invalide"
  }
  const wilaya = Number(fields.wilaya)
  if (!Number.isInteger(wilaya) || wilaya < 1 || wilaya > 58) return "Wilaya introuvable"
  const commune = fold(text(fields.commune) ?? "")
  if (!(COMMUNES[wilaya] ?? []).some((known) => fold(known) === commune)) {
    return "Commune introuvable dans cette wilaya"
  }
  const price = Number(fields.price)
  if (!Number.isFinite(price) || price < 0) return "Le prix du colis est invalide"
  const [, flexible, relay] = prices(wilaya)
  switch (fields.delivery_type) {
    case "Express":
      return undefined
    case "Flexible":
      return flexible === null ? "Le service Flexible n'est pas disponible pour cette wilaya" : undefined
    case "Point relais": {
      if (relay === null) return "Aucun point relais dans cette wilaya"
      if (fields.office_id === undefined || fields.office_id === null) return "Merci de choisir le point relais"
      const office = OFFICES.find(({ id }) => id === Number(fields.office_id))
      if (office === undefined) return "Point relais introuvable"
      return office.wilaya === wilaya && fold(office.commune) === commune
        ? undefined
        : `La commune doit être celle du point relais (${office.commune})`
    }
    default:
      return "Type de livraison invalide"
  }
}

const routes: Readonly<Record<string, string>> = {
  "/api/v3/packages": "POST",
  "/api/v3/packages/status": "GET",
  "/api/v3/packages/labels": "POST",
  "/api/v3/packages/bulk": "DELETE",
  "/api/v3/my/prices": "GET",
  "/api/v3/helpers/communes": "GET",
  "/api/v3/helpers/offices": "GET",
  "/api/v3/user": "GET"
}

const fieldsOf = ({ body }: RecordedRequest): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? { ...body } : {}

const tokenOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? ""

export interface Options {
  /** The tokens it accepts; {@link TOKEN} by default. */
  readonly tokens?: ReadonlyArray<string>
  /**
   * Parcels it knows from the start, at a status (a home parcel to Bab Ezzouar, routed to Yalidine): a parcel
   * already picked up, for the conformance kit's cancel refusal.
   */
  readonly seed?: ReadonlyArray<{ readonly tracking: string; readonly statusId: number }>
}

/** Starts the fake on a random loopback port, knowing `tokens` and the `seed` parcels; it stops when the scope closes. */
export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const tokens = options.tokens ?? [TOKEN]
    const parcels = new Map<string, Parcel>()
    let clock = "2026-04-18 18:45:06"
    let issued = 0
    let unrouted = false
    const stamp = () => `${clock.replace(" ", "T")}.000000Z`
    for (const [index, { tracking, statusId }] of (options.seed ?? []).entries()) {
      parcels.set(tracking, {
        id: 2600000 + index,
        tracking,
        fields: {
          type: "ecommerce",
          name: "1x robe",
          client_first_name: "Amina",
          client_last_name: "Benali",
          client_phone: "0555123456",
          address: "Cité 2000 logements",
          wilaya: 16,
          commune: "Bab Ezzouar",
          price: 4500,
          delivery_type: "Express"
        },
        partner: "Yalidine",
        partnerCode: partnerCode("Yalidine", 9000 + index),
        statusId,
        createdAt: stamp(),
        updatedAt: stamp()
      })
    }

    const resource = (parcel: Parcel) => ({
      id: parcel.id,
      order_id: parcel.fields.order_id ?? null,
      tracking_code: parcel.tracking,
      delivery_company_tracking_code: parcel.partnerCode,
      tracking_partner_company: parcel.partner,
      name: parcel.fields.name,
      status_id: parcel.statusId,
      status_name: names[parcel.statusId] ?? null,
      client_first_name: parcel.fields.client_first_name,
      client_last_name: parcel.fields.client_last_name,
      client_phone: parcel.fields.client_phone,
      address: parcel.fields.address,
      price: Number(parcel.fields.price),
      delivery_type: parcel.fields.delivery_type,
      commune: { name: parcel.fields.commune, wilaya_id: Number(parcel.fields.wilaya) },
      print_url: `https://zimou.express/packages/${parcel.id}/print`,
      created_at: parcel.createdAt,
      updated_at: parcel.updatedAt
    })

    /** A parcel's entry in `packages/status`. */
    const statusOf = (parcel: Parcel) => {
      const { client_first_name, client_last_name, client_phone, commune, price, wilaya } = parcel.fields
      return {
        order_id: parcel.fields.order_id ?? null,
        status_id: parcel.statusId,
        status_name: names[parcel.statusId] ?? null,
        client_first_name,
        client_last_name,
        client_phone,
        wilaya_id: Number(wilaya),
        commune,
        price: Number(price),
        tracking_partner_company: parcel.partner,
        created_at: parcel.createdAt,
        updated_at: parcel.updatedAt
      }
    }

    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 201, { error: 1, order_id: "", message: misbehaviour.message })
          return true
        case "echoToken":
          json(response, 422, { error: 1, message: `Le jeton ${tokenOf(request)} n'a pas accès à ce colis.` })
          return true
        case "unrouted":
          // Changes what the next create answers: kept in state, then handled as usual.
          unrouted = true
          return false
        default:
          return false
      }
    }

    const route = (request: RecordedRequest, response: Http.ServerResponse) => {
      const { method, path } = request
      if (routes[path] === undefined) {
        return json(response, 404, { message: `The route ${path.slice(1)} could not be found.` })
      }
      if (routes[path] !== method) {
        return json(response, 405, {
          message: `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${routes[path]}.`
        })
      }
      switch (path) {
        case "/api/v3/packages": {
          const fields = fieldsOf(request)
          const refusal = refusalOf(fields)
          if (refusal !== undefined) {
            unrouted = false
            return json(response, 201, { error: 1, order_id: "", message: refusal })
          }
          issued += 1
          const office = OFFICES.find(({ id }) => id === Number(fields.office_id))
          const partner = unrouted
            ? null
            : fields.delivery_type === "Point relais" && office !== undefined
              ? office.partner
              : homePartner(Number(fields.wilaya))
          unrouted = false
          const parcel: Parcel = {
            id: 2632164 + issued,
            tracking: `ZM-${String(issued).padStart(6, "0")}`,
            fields,
            partner,
            partnerCode: partner === null ? null : partnerCode(partner, issued),
            statusId: 1,
            createdAt: stamp(),
            updatedAt: stamp()
          }
          parcels.set(parcel.tracking, parcel)
          return json(response, 201, {
            error: 0,
            order_id: fields.order_id ?? "",
            message: "Colis créé avec succès",
            data: resource(parcel)
          })
        }
        case "/api/v3/packages/status": {
          // One code as `packages[]`, several as `packages[0]`, `packages[1]`… (the array PHP reads either way).
          const asked = Object.entries(request.query)
            .filter(([key, value]) => /^packages\[\d*\]$/.test(key) && value !== "")
            .map(([, value]) => value)
          if (asked.length === 0) {
            return json(response, 422, {
              message: "The packages field is required.",
              errors: { packages: ["The packages field is required."] }
            })
          }
          const known = asked.flatMap((code) => {
            const parcel = parcels.get(code)
            return parcel === undefined ? [] : [parcel]
          })
          // PHP encodes an empty associative array as a list.
          if (known.length === 0) return json(response, 200, [])
          return json(response, 200, Object.fromEntries(known.map((parcel) => [parcel.tracking, statusOf(parcel)])))
        }
        case "/api/v3/packages/bulk": {
          const asked = fieldsOf(request).tracking_codes
          if (!Array.isArray(asked) || asked.length === 0) {
            return json(response, 422, {
              message: "The tracking codes field is required.",
              errors: { tracking_codes: ["The tracking codes field is required."] }
            })
          }
          const known = asked.flatMap((code) => {
            const parcel = typeof code === "string" ? parcels.get(code) : undefined
            return parcel === undefined ? [] : [parcel]
          })
          if (known.length !== asked.length) {
            return json(response, 422, { error: 1, message: "Aucun colis trouvé pour ces codes" })
          }
          const shipped = known.find((parcel) => !DELETABLE.includes(parcel.statusId))
          if (shipped !== undefined) {
            return json(response, 422, {
              error: 1,
              message: `Le colis ${shipped.tracking} ne peut plus être supprimé (${names[shipped.statusId] ?? shipped.statusId})`
            })
          }
          for (const parcel of known) parcels.delete(parcel.tracking)
          return json(response, 200, { success: true, message: `${known.length} colis supprimé(s)` })
        }
        case "/api/v3/helpers/communes":
          return json(response, 200, {
            data: Object.entries(COMMUNES).flatMap(([wilaya, communes]) =>
              communes.map((name) => ({
                id: communeId(Number(wilaya), name),
                name,
                wilaya_id: Number(wilaya),
                zip_code: `${wilaya.padStart(2, "0")}${String(communes.indexOf(name)).padStart(3, "0")}`
              }))
            )
          })
        case "/api/v3/helpers/offices":
          return json(response, 200, {
            data: OFFICES.map((office) => ({
              id: office.id,
              name: office.name,
              delivery_price: prices(office.wilaya)[2],
              partner_company_name: office.partner,
              address: office.address,
              commune_id: communeId(office.wilaya, office.commune)
            }))
          })
        case "/api/v3/packages/labels": {
          const asked = fieldsOf(request).packages
          if (!Array.isArray(asked) || asked.length === 0) {
            return json(response, 422, {
              message: "The packages field is required.",
              errors: { packages: ["The packages field is required."] }
            })
          }
          const known = asked.flatMap((code) => {
            const parcel = typeof code === "string" ? parcels.get(code) : undefined
            return parcel === undefined ? [] : [parcel]
          })
          if (known.length !== asked.length) {
            return json(response, 422, { error: 1, message: "Aucun colis trouvé pour ces codes" })
          }
          response.writeHead(200, { "content-type": "application/pdf" })
          return response.end(
            `%PDF-1.4\n% bordereaux Zimou ${known.map((parcel) => `${parcel.tracking} ${parcel.partnerCode ?? ""}`).join(", ")}\n%%EOF\n`
          )
        }
        case "/api/v3/my/prices":
          return json(response, 200, {
            data: Array.from({ length: 58 }, (_, i) => i + 1).map((wilaya) => {
              const [express, flexible, relay, back] = prices(wilaya)
              const amount = (value: number | null) => (value === null ? null : value.toFixed(2))
              return {
                wilaya_id: wilaya,
                express_price: amount(express),
                flexible_price: amount(flexible),
                point_relais_price: amount(relay),
                return_price: amount(back)
              }
            })
          })
        default:
          return json(response, 200, { data: { id: 41, name: "Boutique Test", email: "boutique@example.dz" } })
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ message }),
      misbehave,
      handle: (request, response) => {
        if (!tokens.includes(tokenOf(request))) return json(response, 401, { message: "Unauthenticated." })
        return route(request, response)
      }
    })
    const zimou: Fake = {
      ...fake,
      parcels,
      setStatus: (tracking, statusId) => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) throw new Error(`the fake has no parcel ${tracking}`)
        parcel.statusId = statusId
        parcel.updatedAt = stamp()
      },
      setClock: (utc) => {
        clock = utc
      }
    }
    return zimou
  })
