/**
 * A loopback Colivraison Express: a real HTTP server on 127.0.0.1 (random port) speaking the `v2` API as the one
 * public integration (WooBordereauGenerator) uses it — and only as it uses it; nothing here was checked against the
 * live platform. Where that client is silent, the fake does what such an API most likely does (README
 * "Unverified").
 *
 * - Auth: `Authorization: Bearer <token>` and `coliv-public-key: <key>` on every call. No or an unknown token, or no
 *   key: 401 `{ error: true, message }`; a key that is not the token's account: 403.
 * - `POST v2/orders/bulk {orders:[…]}`: one outcome per order, in order, in `messages`: `{success:true, tracking,
 *   message}`, or `{success:false, tracking:null, message}` for an order it refuses (a missing field, a phone that
 *   is no mobile, a wilaya name it does not know or serve, a commune it does not know in a wilaya whose communes it
 *   lists, a product name over 255 characters). A created parcel's only event is `PLACED`.
 * - `POST v2/trackinghistory/bulk {tracking_numbers:[…]}`: an object keyed by each known number, its events newest
 *   first as `{status, date}` (`date` in Algiers wall-clock time); unknown numbers are absent, none known is `[]`.
 * - `POST v2/tracking/bulk {tracking_numbers:[…]}`: each known number's current `{status}`.
 * - `GET v2/getpricing`: `[{wilaya, wilaya_mat, delivery_price}]` for every served wilaya, prices as text.
 * - `POST v2/generate-download-pdfx1 {order_ids:[…]}`: one PDF; 422 `{ error, message }` for an unknown order.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, any JSON, a refused order, an error inside a 200, or a refusal that quotes the caller's token.
 */
import type * as Http from "node:http"
import { WilayaNames } from "@tawsil/courier"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export const PUBLIC_KEY = "fake-coliv-public-7e3a91c5"
export const TOKEN = "fake-coliv-token-5d8b20f4e6a1c937"

/** Wilayas the fake does not serve: absent from its price list, refused on create (a choice of the fake). */
export const UNSERVED: ReadonlyArray<number> = [50, 54]

/** The fake's home-delivery price to a wilaya, in DZD. */
export const tariff = (wilaya: number): number => (wilaya === 16 ? 400 : wilaya <= 48 ? 650 : 900)

/** Wilayas whose communes the fake knows: a commune it does not list there is refused. Elsewhere any is taken. */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<string>>> = {
  16: ["Alger Centre", "Bab Ezzouar", "Bir Mourad Raïs", "Birkhadem", "Cheraga", "Dar El Beïda", "Hydra", "Kouba"],
  19: ["Sétif", "El Eulma", "Aïn Arnat"],
  25: ["Constantine", "El Khroub", "Hamma Bouziane"],
  31: ["Oran", "Bir El Djir", "Es Senia", "Arzew"]
}

export type RecordedRequest = FakeCourier.Request

/** Colivraison's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  | { readonly kind: "refuseOrder"; readonly message: string }
  | { readonly kind: "errorInside200"; readonly message: string }
  | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Event {
  readonly status: string
  readonly date: string
}

export interface Parcel {
  readonly tracking: string
  /** The order as the fake received it. */
  readonly fields: Readonly<Record<string, unknown>>
  readonly history: Array<Event>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Adds a status to a parcel's history, stamped with the fake's clock. */
  readonly addStatus: (tracking: string, status: string) => void
  /** The Algiers wall-clock date and time the fake stamps events with. */
  readonly setClock: (date: string, time: string) => void
}

/** The fake's accounts: each public key with its access token. */
export type Accounts = ReadonlyArray<readonly [publicKey: string, token: string]>

export class ColivraisonFake extends Context.Service<ColivraisonFake, Fake>()(
  "@tawsil/adapter-colivraison/test/ColivraisonFake"
) {
  static readonly layer = (options: { readonly accounts?: Accounts } = {}) =>
    Layer.effect(ColivraisonFake, make(options))
}

/** Starts the fake on a random loopback port, knowing `accounts`; it stops when the scope closes. */
export const make = (options: { readonly accounts?: Accounts } = {}) => start(options.accounts ?? [[PUBLIC_KEY, TOKEN]])

const { json } = FakeCourier

const refusal = (message: string) => ({ error: true, message })

/** Names compared without case, accents, spaces or punctuation. */
const fold = (name: string) =>
  name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

/** Why the fake refuses one order of a bulk create, or `undefined` when it takes it. */
const refuseOrder = (order: unknown): string | undefined => {
  if (typeof order !== "object" || order === null || Array.isArray(order)) return "Commande invalide."
  const fields = order as Readonly<Record<string, unknown>>
  for (const field of [
    "client_name",
    "wilaya_name",
    "commune_name",
    "order_adress",
    "phone_st",
    "product_name",
    "product_price"
  ]) {
    if ((text(fields[field]) ?? "").trim() === "") return `Le champ ${field} est obligatoire.`
  }
  const phone = text(fields.phone_st) ?? ""
  if (!/^0[5-7]\d{8}$/.test(phone)) return `Le numéro de téléphone ${phone} est invalide.`
  const second = text(fields.phone_sc) ?? ""
  if (second !== "" && !/^0[5-7]\d{8}$/.test(second)) return `Le numéro de téléphone ${second} est invalide.`
  const wilaya = WilayaNames.codeOf(text(fields.wilaya_name) ?? "") ?? 0
  if (wilaya === 0) return `Wilaya introuvable : ${String(fields.wilaya_name)}.`
  if (UNSERVED.includes(wilaya)) return `La wilaya ${String(fields.wilaya_name)} n'est pas desservie.`
  const communes = COMMUNES[wilaya]
  const commune = text(fields.commune_name) ?? ""
  if (communes !== undefined && !communes.some((known) => fold(known) === fold(commune))) {
    return `Commune introuvable : ${commune}.`
  }
  if (Array.from(text(fields.product_name) ?? "").length > 255) {
    return "Le nom du produit ne doit pas dépasser 255 caractères."
  }
  if (!/^\d+(\.\d+)?$/.test(text(fields.product_price) ?? "")) return "Le prix du produit est invalide."
  for (const flag of ["stopdesk_status", "order_brittle", "order_exchange", "order_refund"]) {
    if (fields[flag] !== undefined && typeof fields[flag] !== "boolean") return `Le champ ${flag} est invalide.`
  }
  return undefined
}

const routes: Readonly<Record<string, string>> = {
  "/v2/orders/bulk": "POST",
  "/v2/trackinghistory/bulk": "POST",
  "/v2/tracking/bulk": "POST",
  "/v2/getpricing": "GET",
  "/v2/generate-download-pdfx1": "POST"
}

const bearerOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]

const start = (accounts: Accounts) =>
  Effect.gen(function* () {
    const parcels = new Map<string, Parcel>()
    let clock = { date: "2026-04-18", time: "19:45:06" }
    let issued = 0
    const stamp = () => `${clock.date} ${clock.time}`

    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuseOrder":
          json(response, 200, { messages: [{ success: false, tracking: null, message: misbehaviour.message }] })
          return true
        case "errorInside200":
          json(response, 200, refusal(misbehaviour.message))
          return true
        case "echoToken":
          json(response, 422, refusal(`Le jeton ${bearerOf(request) ?? ""} n'est pas autorisé pour cette action.`))
          return true
        default:
          return false
      }
    }

    /** The tracking numbers of a bulk request, or `undefined` when the list is missing or empty. */
    const listOf = (body: unknown, field: string): ReadonlyArray<string> | undefined => {
      const list = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[field] : undefined
      return Array.isArray(list) && list.length > 0 ? list.map((item) => String(item)) : undefined
    }

    const route = (request: RecordedRequest, response: Http.ServerResponse) => {
      const { body, method, path } = request
      if (routes[path] === undefined) return json(response, 404, { message: "Not Found" })
      if (routes[path] !== method) return json(response, 405, { message: "Method Not Allowed" })
      switch (path) {
        case "/v2/orders/bulk": {
          const orders =
            typeof body === "object" && body !== null ? (body as Record<string, unknown>).orders : undefined
          if (!Array.isArray(orders) || orders.length === 0) {
            return json(response, 422, refusal("Le champ orders est obligatoire."))
          }
          const messages = orders.map((order) => {
            const refused = refuseOrder(order)
            if (refused !== undefined) return { success: false, tracking: null, message: refused }
            issued += 1
            const tracking = `CLX${String(issued).padStart(8, "0")}`
            parcels.set(tracking, {
              tracking,
              fields: order as Record<string, unknown>,
              history: [{ status: "PLACED", date: stamp() }]
            })
            return { success: true, tracking, message: "Commande créée avec succès." }
          })
          return json(response, 200, { messages })
        }
        case "/v2/trackinghistory/bulk":
        case "/v2/tracking/bulk": {
          const asked = listOf(body, "tracking_numbers")
          if (asked === undefined) return json(response, 422, refusal("Le champ tracking_numbers est obligatoire."))
          const known = asked.flatMap((tracking) => {
            const parcel = parcels.get(tracking)
            return parcel === undefined ? [] : [parcel]
          })
          // PHP encodes an empty associative array as a list.
          if (known.length === 0) return json(response, 200, [])
          return json(
            response,
            200,
            Object.fromEntries(
              known.map((parcel) => [
                parcel.tracking,
                path === "/v2/tracking/bulk"
                  ? { status: parcel.history.at(-1)?.status }
                  : parcel.history.toReversed().map(({ date, status }) => ({ status, date }))
              ])
            )
          )
        }
        case "/v2/getpricing":
          return json(
            response,
            200,
            WilayaNames.FRENCH.flatMap((wilaya, index) =>
              UNSERVED.includes(index + 1)
                ? []
                : [{ wilaya, wilaya_mat: index + 1, delivery_price: `${tariff(index + 1)}.00` }]
            )
          )
        default: {
          const asked = listOf(body, "order_ids")
          if (asked === undefined) return json(response, 422, refusal("Le champ order_ids est obligatoire."))
          const unknown = asked.find((tracking) => !parcels.has(tracking))
          if (unknown !== undefined) return json(response, 422, refusal(`Commande introuvable : ${unknown}.`))
          response.writeHead(200, { "content-type": "application/pdf" })
          response.end(`%PDF-1.4\n% bordereau Colivraison ${asked.join(" ")}\n%%EOF\n`)
        }
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => refusal(message),
      misbehave,
      handle: (request, response) => {
        const account = accounts.find(([, token]) => token === bearerOf(request))
        if (account === undefined) return json(response, 401, refusal("Unauthenticated."))
        const publicKey = request.headers["coliv-public-key"]
        if (publicKey === undefined || publicKey === "") {
          return json(response, 401, refusal("La clé publique est obligatoire."))
        }
        if (publicKey !== account[0]) return json(response, 403, refusal("Clé publique invalide."))
        return route(request, response)
      }
    })
    const colivraison: Fake = {
      ...fake,
      parcels,
      addStatus: (tracking, status) => parcels.get(tracking)?.history.push({ status, date: stamp() }),
      setClock: (date, time) => {
        clock = { date, time }
      }
    }
    return colivraison
  })
