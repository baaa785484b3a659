/**
 * A loopback NOEST Express: a real HTTP server on 127.0.0.1 (random port) speaking the Laravel API under
 * `/api/public/` as the research notes document it — and only as they document it; nothing here was checked against
 * the live platform.
 *
 * - Auth: the token as `api_token` (body of a POST, query of a GET) or `Authorization: Bearer` — both, if both are
 *   sent, must agree; none or an unknown one: 401 `{"message":"Unauthenticated."}`. Every POST needs `user_guid` in
 *   its body (422 "Le champ user guid est obligatoire." without it); a GUID that is not the token's account: 403.
 * - `POST create/order`: the PDF's rules (422 with `errors`: `adresse` required, a `reference` of at least 5
 *   characters), a wilaya NOEST does not serve refused; else `{success:true, tracking}`, the parcel unvalidated, its
 *   only event `upload`.
 * - `POST create/orders` (`{orders:{"0":{…},…}}`, 1 to 100; its form is Ecotrack's, unverified for NOEST): each order
 *   validated and created as by `create/order`, its result under its reference, `{results:{<reference>:…}}` (a
 *   refused order's result is the single create's 422 body).
 * - `POST valid/order {tracking}`: validates once (again: `{success:false}`), adding `customer_validation`. Until
 *   then the label is refused: the courier does not see the parcel.
 * - `POST delete/order {tracking}`: deletes a parcel not yet validated (`{success:true}`); a validated one is
 *   `{success:false, message}` (NOEST: once validated it can no longer be edited or deleted); unknown: 422.
 * - `POST get/trackings/info {trackings:[…]}`: an object keyed by each known tracking number, with `OrderInfo` and
 *   the `activity` events (`event_key` and its label `event` from the PDF's list, `date` as Laravel prints it,
 *   Algiers time; or, told to, `event` alone, as both official examples print the rows); unknown numbers are simply
 *   absent; none known: 404 `{"message":"Trackings not found"}` (the v2.3 specification).
 * - `GET fees`: `{tarifs:{delivery:{"16":{tarif, tarif_stopdesk}}, return:{…}}}`, amounts as strings.
 * - `GET get/order/label?tracking=`: the PDF; 422 for an unknown or unvalidated parcel.
 * - `GET desks`: every desk of the network keyed by its station code (`16A`), `{code, name, commune, address, map,
 *   phones:{…}, email, horaires}` as courier-dz reads it; no desk in `NO_DESK` wilayas.
 * - `GET get/communes/{wilaya}`: `[{nom, wilaya_id, code_postal, is_active}]` (a few wilayas; `[]` for the others).
 * - `GET get/wilayas`: `[{code, nom, is_active}]`, the served wilayas.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a refusal, any JSON, a refusal that quotes the caller's token, or redirect the label elsewhere.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export const TOKEN = "fake-noest-token-3c9e1a7f5b2d8406"
export const GUID = "NOEST-GUID-4F2A9C"

/** Wilayas the fake does not serve (an idx note: NOEST's wilaya list has no ids 50, 54, 56). */
export const UNSERVED: ReadonlyArray<number> = [50, 54, 56]
/** Served, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 33, 37]

/** The fake's tariff, in DZD: [home, stopdesk or null, return home, return stopdesk or null]. */
export const tariff = (wilaya: number): readonly [number, number | null, number, number | null] => {
  const home = wilaya === 16 ? 450 : NO_DESK.includes(wilaya) ? 1100 : 700
  const desk = NO_DESK.includes(wilaya) ? null : home - 250
  return [home, desk, 200, desk === null ? null : 150]
}

export type RecordedRequest = FakeCourier.Request

/** The fake's desks: two in Algiers, one in each other wilaya with a desk, in its seat. */
export const DESKS: ReadonlyArray<{ readonly code: string; readonly name: string; readonly commune: string }> = [
  { code: "16A", name: "Agence Bab Ezzouar", commune: "Bab Ezzouar" },
  { code: "16B", name: "Agence Alger Centre", commune: "Alger Centre" },
  ...Array.from({ length: 58 }, (_, i) => i + 1)
    .filter((w) => w !== 16 && !UNSERVED.includes(w) && !NO_DESK.includes(w))
    .map((w) => ({
      code: `${w}A`,
      name: `Agence ${w}`,
      commune: w === 19 ? "Sétif" : w === 31 ? "Oran" : `Chef-lieu ${w}`
    }))
]

/** The fake's communes, as NOEST spells them, with `is_active`; a wilaya not listed has none. */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<readonly [nom: string, active: 0 | 1]>>> = {
  16: [
    ["Alger Centre", 1],
    ["Bab Ezzouar", 1],
    ["Bir Mourad Rais", 1],
    ["Ouled Chebel", 0]
  ],
  19: [
    ["Setif", 1],
    ["El Eulma", 1]
  ],
  31: [
    ["Oran", 1],
    ["Bir El Djir", 1]
  ],
  11: [["Tamanrasset", 1]]
}

/** NOEST's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  | { readonly kind: "refuse"; readonly message: string }
  | { readonly kind: "echoToken" }
  | { readonly kind: "redirectLabel" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Event {
  readonly event_key: string
  readonly date: string
}

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  validated: boolean
  readonly activity: Array<Event>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Appends an event to a parcel, stamped with the fake's clock. */
  readonly addEvent: (tracking: string, eventKey: string) => void
  /** A parcel created and never validated (`upload` only), as if created undispatched earlier. */
  readonly upload: (tracking: string) => void
  /** The Algiers wall-clock date and time the fake stamps events with. */
  readonly setClock: (date: string, time: string) => void
}

/** The fake's accounts: each token with its user GUID. */
export type Accounts = ReadonlyArray<readonly [token: string, guid: string]>

export interface Options {
  readonly accounts?: Accounts
  /** Print tracking rows with their label only (`event`), as both official examples do; default: key and label. */
  readonly eventOnly?: boolean
}

export class NoestFake extends Context.Service<NoestFake, Fake>()("@tawsil/adapter-noest/test/NoestFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(NoestFake, make(options))
}

/** Starts the fake on a random loopback port, knowing `accounts`; it stops when the scope closes. */
export const make = (options: Options = {}) => start(options.accounts ?? [[TOKEN, GUID]], options.eventOnly === true)

/** The PDF's "Liste des evenements": each event key's label. */
export const LABELS: Readonly<Record<string, string>> = {
  upload: "Uploadé sur le système",
  customer_validation: "Validé",
  validation_collect_colis: "Colis Ramassé",
  validation_reception_admin: "Reception validé",
  validation_reception: "Enlevé par le livreur",
  fdr_activated: "En livraison",
  sent_to_redispatch: "En livraison",
  nouvel_tentative_asked_by_customer: "Nouvelle tentative demandée par le vendeur",
  return_asked_by_customer: "Retour demandé par le partenaire",
  return_asked_by_hub: "Retour En transit",
  retour_dispatched_to_partenaires: "Retour transmis au partenaire",
  livraison_echoue_recu: "Retour reçu par le partenaire",
  return_validated_by_partener: "Retour validé par le partenaire",
  colis_suspendu: "Suspendu",
  livre: "Livré",
  livred: "Livré",
  verssement_admin_cust: "Montant transmis au partenaire",
  validation_reception_cash_by_partener: "Montant reçu par le partenaire",
  edited_informations: "Informations modifiées",
  edit_price: "Prix modifié",
  mise_a_jour: "Tentative de livraison"
}

const { json } = FakeCourier

const invalid = (errors: Record<string, Array<string>>) => ({ message: Object.values(errors)[0]?.[0] ?? "", errors })

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

/** The create rules of the PDF spec (research §1.6 "Create fields"), with Laravel's French messages. */
const validateCreate = (fields: Readonly<Record<string, unknown>>): Record<string, Array<string>> => {
  const errors: Record<string, Array<string>> = {}
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message]
  }
  for (const field of [
    "client",
    "phone",
    "adresse",
    "wilaya_id",
    "commune",
    "montant",
    "produit",
    "type_id",
    "poids"
  ]) {
    if ((text(fields[field]) ?? "").trim() === "") add(field, `Le champ ${field.replace("_", " ")} est obligatoire.`)
  }
  for (const field of ["phone", "phone_2"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !/^\d{9,10}$/.test(value)) {
      add(field, `Le champ ${field} doit contenir entre 9 et 10 chiffres.`)
    }
  }
  const wilaya = text(fields.wilaya_id)
  if (wilaya !== undefined && wilaya !== "") {
    if (!(/^\d+$/.test(wilaya) && Number(wilaya) >= 1 && Number(wilaya) <= 58)) {
      add("wilaya_id", "La valeur de wilaya id doit être comprise entre 1 et 58.")
    } else if (UNSERVED.includes(Number(wilaya))) {
      add("wilaya_id", "La wilaya sélectionnée n'est pas desservie.")
    }
  }
  for (const field of ["montant", "poids"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !Number.isFinite(Number(value))) {
      add(field, `Le champ ${field} doit être un nombre.`)
    }
  }
  const type = text(fields.type_id)
  if (type !== undefined && type !== "" && !["1", "2", "3"].includes(type)) {
    add("type_id", "Le champ type id sélectionné est invalide.")
  }
  for (const field of ["stop_desk", "can_open"]) {
    const value = text(fields[field])
    if (value !== undefined && !["0", "1"].includes(value)) add(field, `Le champ ${field} sélectionné est invalide.`)
  }
  const reference = text(fields.reference)
  if (reference !== undefined && reference !== "" && reference.length < 5) {
    add("reference", "Le champ reference doit contenir au moins 5 caractères.")
  }
  if (text(fields.stop_desk) === "1" && (text(fields.station_code) ?? "") === "") {
    add("station_code", "Le champ station code est obligatoire quand stop desk est 1.")
  }
  return errors
}

const routes: Readonly<Record<string, string>> = {
  "/api/public/create/order": "POST",
  "/api/public/create/orders": "POST",
  "/api/public/valid/order": "POST",
  "/api/public/delete/order": "POST",
  "/api/public/get/trackings/info": "POST",
  "/api/public/fees": "GET",
  "/api/public/get/order/label": "GET",
  "/api/public/desks": "GET",
  "/api/public/get/communes": "GET",
  "/api/public/get/wilayas": "GET"
}

/** The route a path takes: `get/communes/{wilaya}` by its prefix. */
const routeOf = (path: string) => (/^\/api\/public\/get\/communes\/\d+$/.test(path) ? "/api/public/get/communes" : path)

/** The fields of a request: its query and its JSON body together, as Laravel reads them. */
const fieldsOf = ({ body, query }: RecordedRequest): Record<string, unknown> => ({
  ...query,
  ...(typeof body === "object" && body !== null && !Array.isArray(body) ? body : {})
})

/** The caller's token: `Authorization: Bearer`, else the `api_token` field. */
const tokenOf = (request: RecordedRequest) =>
  /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? text(fieldsOf(request).api_token) ?? ""

const start = (accounts: Accounts, eventOnly: boolean) =>
  Effect.gen(function* () {
    const parcels = new Map<string, Parcel>()
    let clock = { date: "2026-04-18", time: "19:45:06" }
    let issued = 0
    const stamp = () => `${clock.date} ${clock.time}`
    /** A created parcel, held until `valid/order`. */
    const createOne = (fields: Readonly<Record<string, unknown>>) => {
      issued += 1
      const created = `NOE${String(issued).padStart(9, "0")}FK`
      parcels.set(created, {
        tracking: created,
        fields,
        validated: false,
        activity: [{ event_key: "upload", date: stamp() }]
      })
      return { success: true, tracking: created, reference: fields.reference ?? null }
    }

    /** NOEST's own misbehaviours. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 200, { success: false, message: misbehaviour.message })
          return true
        case "echoToken":
          json(
            response,
            422,
            invalid({ tracking: [`Le colis n'appartient pas au compte du jeton ${tokenOf(request)}.`] })
          )
          return true
        case "redirectLabel":
          response.writeHead(302, {
            location: `https://noest-labels.s3.eu-west-3.amazonaws.com/label.pdf?X-Amz-Credential=AKIAFAKE&X-Amz-Signature=0f${tokenOf(request).length}`
          })
          response.end()
          return true
        default:
          return false
      }
    }

    const route = (
      method: string,
      path: string,
      fields: Readonly<Record<string, unknown>>,
      response: Http.ServerResponse
    ) => {
      const routed = routeOf(path)
      if (routes[routed] === undefined) {
        return json(response, 404, { message: `The route ${path.slice(1)} could not be found.` })
      }
      if (routes[routed] !== method) {
        return json(response, 405, {
          message: `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${routes[routed]}.`
        })
      }
      const tracking = text(fields.tracking) ?? ""
      switch (routed) {
        case "/api/public/create/order": {
          const errors = validateCreate(fields)
          if (Object.keys(errors).length > 0) return json(response, 422, invalid(errors))
          return json(response, 200, createOne(fields))
        }
        case "/api/public/create/orders": {
          // `{orders:{"0":{…},…}}`, 1 to 100, each validated and created as by `create/order`; each result under its
          // reference: `{success, tracking}`, or its refusal as `create/order` answers it.
          const orders = fields.orders
          const entries =
            typeof orders === "object" && orders !== null && !Array.isArray(orders)
              ? Object.values(orders as Record<string, unknown>)
              : []
          if (entries.length === 0 || entries.length > 100) {
            return json(response, 422, invalid({ orders: ["Le champ orders doit avoir entre 1 et 100 éléments."] }))
          }
          const results: Record<string, unknown> = {}
          for (const [index, entry] of entries.entries()) {
            const order = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>
            const errors = validateCreate(order)
            // A refused order's result is what its single create's 422 says (NOEST's bulk refusals are not documented).
            results[text(order.reference) ?? String(index)] =
              Object.keys(errors).length > 0 ? invalid(errors) : createOne(order)
          }
          return json(response, 200, { results })
        }
        case "/api/public/valid/order": {
          const parcel = parcels.get(tracking)
          if (parcel === undefined)
            return json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))
          if (parcel.validated) return json(response, 200, { success: false, message: "La commande est déjà validée." })
          parcel.validated = true
          parcel.activity.push({ event_key: "customer_validation", date: stamp() })
          return json(response, 200, { success: true })
        }
        case "/api/public/delete/order": {
          const parcel = parcels.get(tracking)
          if (parcel === undefined)
            return json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))
          if (parcel.validated) {
            return json(response, 200, {
              success: false,
              message: "Impossible de supprimer une commande déjà validée."
            })
          }
          parcels.delete(tracking)
          return json(response, 200, { success: true })
        }
        case "/api/public/get/trackings/info": {
          const asked = fields.trackings
          if (!Array.isArray(asked) || asked.length === 0) {
            return json(response, 422, invalid({ trackings: ["Le champ trackings est obligatoire."] }))
          }
          const known = asked.flatMap((item) => {
            const parcel = typeof item === "string" ? parcels.get(item) : undefined
            return parcel === undefined ? [] : [parcel]
          })
          if (known.length === 0) return json(response, 404, { message: "Trackings not found" })
          return json(
            response,
            200,
            Object.fromEntries(
              known.map((parcel) => [
                parcel.tracking,
                {
                  OrderInfo: {
                    tracking: parcel.tracking,
                    reference: parcel.fields.reference ?? null,
                    client: parcel.fields.client,
                    phone: parcel.fields.phone,
                    adresse: parcel.fields.adresse,
                    wilaya_id: Number(parcel.fields.wilaya_id),
                    commune: parcel.fields.commune,
                    montant: Number(parcel.fields.montant),
                    created_at: parcel.activity[0]?.date
                  },
                  recipientName: parcel.fields.client,
                  shippedBy: "Boutique Test",
                  originCity: 16,
                  destLocationCity: Number(parcel.fields.wilaya_id),
                  activity: parcel.activity.map((event) => ({
                    ...(eventOnly ? {} : { event_key: event.event_key }),
                    event: LABELS[event.event_key] ?? event.event_key,
                    causer: "NOEST",
                    "badge-class": "badge-primary",
                    by: null,
                    name: null,
                    driver: null,
                    fdr: null,
                    date: event.date
                  }))
                }
              ])
            )
          )
        }
        case "/api/public/fees": {
          const served = Array.from({ length: 58 }, (_, i) => i + 1).filter((w) => !UNSERVED.includes(w))
          return json(response, 200, {
            tarifs: {
              delivery: Object.fromEntries(
                served.map((wilaya) => {
                  const [home, desk] = tariff(wilaya)
                  return [
                    String(wilaya),
                    { wilaya_id: wilaya, tarif: String(home), tarif_stopdesk: desk === null ? null : String(desk) }
                  ]
                })
              ),
              return: Object.fromEntries(
                served.map((wilaya) => {
                  const [, , home, desk] = tariff(wilaya)
                  return [String(wilaya), { tarif: String(home), tarif_stopdesk: desk === null ? null : String(desk) }]
                })
              )
            }
          })
        }
        case "/api/public/desks":
          return json(
            response,
            200,
            Object.fromEntries(
              DESKS.map((desk, index) => [
                desk.code,
                {
                  code: desk.code,
                  name: desk.name,
                  commune: desk.commune,
                  address: `${index + 1} rue des Frères Bouadou, ${desk.commune}`,
                  map: "https://maps.google.com/?q=36.7,3.2",
                  phones: { "0": `0550${String(100000 + index).slice(-6)}`, "1": null },
                  email: null,
                  horaires: "08:00 - 17:00"
                }
              ])
            )
          )
        case "/api/public/get/communes": {
          const wilaya = Number(path.split("/").at(-1))
          return json(
            response,
            200,
            (COMMUNES[wilaya] ?? []).map(([nom, active], index) => ({
              nom,
              wilaya_id: wilaya,
              code_postal: `${String(wilaya).padStart(2, "0")}${String(index + 1).padStart(3, "0")}`,
              is_active: active
            }))
          )
        }
        case "/api/public/get/wilayas":
          return json(
            response,
            200,
            Array.from({ length: 58 }, (_, i) => i + 1)
              .filter((w) => !UNSERVED.includes(w))
              .map((code) => ({ code, nom: `Wilaya ${code}`, is_active: 1 }))
          )
        default: {
          const parcel = parcels.get(tracking)
          if (parcel === undefined)
            return json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))
          if (!parcel.validated) {
            return json(response, 422, invalid({ tracking: ["La commande n'est pas encore validée."] }))
          }
          response.writeHead(200, { "content-type": "application/pdf" })
          response.end(`%PDF-1.4\n% bordereau NOEST ${parcel.tracking}\n%%EOF\n`)
        }
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ message }),
      misbehave,
      handle: (request, response) => {
        const { headers, method, path } = request
        const fields = fieldsOf(request)
        const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1]
        const given = text(fields.api_token)
        const token = bearer ?? given ?? ""
        const account = accounts.find(([known]) => known === token)
        const agree = bearer === undefined || given === undefined || bearer === given
        if (!agree || account === undefined) return json(response, 401, { message: "Unauthenticated." })
        const guid = text(fields.user_guid)
        if (method === "POST" && (guid ?? "") === "") {
          return json(response, 422, invalid({ user_guid: ["Le champ user guid est obligatoire."] }))
        }
        if (guid !== undefined && guid !== account[1])
          return json(response, 403, { message: "This action is unauthorized." })
        delete fields.api_token
        delete fields.user_guid
        return route(method, path, fields, response)
      }
    })
    const noest: Fake = {
      ...fake,
      parcels,
      addEvent: (tracking, eventKey) => parcels.get(tracking)?.activity.push({ event_key: eventKey, date: stamp() }),
      upload: (tracking) => {
        parcels.set(tracking, {
          tracking,
          fields: {},
          validated: false,
          activity: [{ event_key: "upload", date: stamp() }]
        })
      },
      setClock: (date, time) => {
        clock = { date, time }
      }
    }
    return noest
  })
