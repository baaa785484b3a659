/**
 * A loopback Near Delivery: a real HTTP server on 127.0.0.1 (random port) speaking the API under `/api/v1/sender/`
 * as the research notes and the two integrations they cite read it — and only so; nothing here was checked against
 * the live platform (README "Unverified").
 *
 * - Auth: the `ApiKey` and `ApiSecret` headers. Either missing: 403 `{"detail":"Not authenticated"}`; a pair it does
 *   not know: 401 `{"detail":"Invalid API credentials"}`.
 * - `POST parcels {parcels:[…]}`: a malformed parcel is a 422 `{detail:[{loc, msg}]}`; a wilaya it does not serve,
 *   a commune not in the wilaya, a buralist it does not know or in another wilaya, or any delivery but to a relay
 *   point (`pickup_location_type` 1) is a 400 `{status:false, message}`. Else 201 `{status:true, data:[{parcel_id,
 *   tracking_number, reference, status:0}]}`, all or nothing.
 * - `GET parcels/{tracking}`: `{status:true, data:{…, status, created_at, updated_at, status_history}}`, times in
 *   UTC (`…Z`); an unknown number: 404 `{status:false, message:"Parcel not found"}`.
 * - `GET delivery-fees?wilaya=&page=&size=`: routes from the sender wilayas (16, 25, 31) to every served wilaya,
 *   codes as two-digit text and amounts as decimal text, paged (`size` 50 by default, 150 at most).
 * - `GET wilayas`, `GET buralists`, `GET centers`: the reference lists, unpaged and unfiltered (no filter or paging
 *   is documented for them): the wilayas with their communes (`{ code, name }`), every buralist with its wilaya and
 *   commune code, the senders' centres. The adapter's `communes`, `stopDesks` and `checkCredentials` read them.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, any JSON, a refusal inside a 200, or a refusal that quotes the caller's API key.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer, type Scope } from "effect"

export const API_KEY = "fake-near-key-7c1e9a3b5d40"
export const API_SECRET = "fake-near-secret-2f8d6b4a0c19"

/** The fake's accounts: each API key with its secret. */
export type Accounts = ReadonlyArray<readonly [apiKey: string, apiSecret: string]>

/** The wilayas it serves, with their communes (codes `wilaya × 100 + n`). */
export const WILAYAS: ReadonlyArray<readonly [code: number, name: string, communes: ReadonlyArray<string>]> = [
  [9, "Blida", ["Blida", "Boufarik"]],
  [16, "Alger", ["Alger Centre", "Bab Ezzouar", "Hydra"]],
  [19, "Sétif", ["Sétif", "El Eulma"]],
  [25, "Constantine", ["Constantine", "El Khroub"]],
  [31, "Oran", ["Oran", "Bir El Djir"]]
]

/** The buralists (relay points): id, wilaya, commune. */
export const BURALISTS: ReadonlyArray<readonly [id: number, wilaya: number, commune: string]> = [
  [91, 9, "Boufarik"],
  [101, 16, "Bab Ezzouar"],
  [102, 16, "Hydra"],
  [191, 19, "Sétif"],
  [251, 25, "Constantine"],
  [311, 31, "Bir El Djir"]
]

/** The wilayas merchants ship from: the senders' centres. */
export const SENDER_WILAYAS: ReadonlyArray<number> = [16, 25, 31]

/** The fake's fee from `from` to `to`, in DZD, and its return fee. */
export const fee = (from: number, to: number): readonly [delivery: number, back: number] => [
  from === to ? 350 : 450 + (Math.abs(from - to) % 4) * 50,
  200
]

/** Near Delivery's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own = { readonly kind: "refuse"; readonly message: string } | { readonly kind: "echoKey" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Event {
  readonly status: number | string
  readonly created_at: string
}

export interface Parcel {
  readonly id: number
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  readonly history: Array<Event>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /** Appends a status to a parcel's history (a number's text is sent as the number), stamped with the fake's clock. */
  readonly addStatus: (tracking: string, status: string) => void
  /** The UTC instant the next event is stamped with (each stamp then moves the clock on a minute). */
  readonly setClock: (utc: string) => void
}

export class NearDeliveryFake extends Context.Service<NearDeliveryFake, Fake>()(
  "@tawsil/adapter-neardelivery/test/NearDeliveryFake"
) {
  static readonly layer = (options: { readonly accounts?: Accounts } = {}) =>
    Layer.effect(NearDeliveryFake, make(options))
}

const { json } = FakeCourier

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase()

const two = (code: number) => String(code).padStart(2, "0")

const communeCode = (wilaya: number, index: number) => String(wilaya * 100 + index + 1)

type Problem = { readonly loc: ReadonlyArray<string | number>; readonly msg: string; readonly type: string }

/** The shape rules of a parcel, as a FastAPI-style validation list (README "Unverified"). */
const validateParcel = (parcel: Readonly<Record<string, unknown>>, index: number): Array<Problem> => {
  const problems: Array<Problem> = []
  const at = (field: string) => ["body", "parcels", index, field]
  const missing = (field: string) => problems.push({ loc: at(field), msg: "Field required", type: "missing" })
  for (const field of ["recipient_name", "recipient_phone", "recipient_wilaya", "recipient_commune"]) {
    const value = parcel[field]
    if (value === undefined) missing(field)
    else if (typeof value !== "string" || value.trim() === "") {
      problems.push({ loc: at(field), msg: "String should have at least 1 character", type: "string_too_short" })
    }
  }
  const phone = parcel.recipient_phone
  if (typeof phone === "string" && phone !== "" && !/^0[567]\d{8}$/.test(phone)) {
    problems.push({ loc: at("recipient_phone"), msg: "Invalid Algerian mobile number", type: "value_error" })
  }
  const wilaya = parcel.recipient_wilaya
  if (typeof wilaya === "string" && wilaya !== "" && !/^\d{1,2}$/.test(wilaya)) {
    problems.push({ loc: at("recipient_wilaya"), msg: "Invalid wilaya code", type: "value_error" })
  }
  for (const [field, allowed] of [
    ["payment_preference", [0, 1]],
    ["pickup_location_type", [1, 2]]
  ] as const) {
    const value = parcel[field]
    if (value === undefined) missing(field)
    else if (!(allowed as ReadonlyArray<unknown>).includes(value)) {
      problems.push({ loc: at(field), msg: `Input should be ${allowed.join(" or ")}`, type: "literal_error" })
    }
  }
  const size = parcel.size
  if (size === undefined) missing("size")
  else if (!["S", "M", "L", "XL"].includes(String(size))) {
    problems.push({ loc: at("size"), msg: "Input should be 'S', 'M', 'L' or 'XL'", type: "enum" })
  }
  const buralist = parcel.buralist_id
  if (buralist !== undefined && buralist !== null && !Number.isInteger(buralist)) {
    problems.push({ loc: at("buralist_id"), msg: "Input should be a valid integer", type: "int_type" })
  }
  const items = parcel.items
  if (items === undefined) missing("items")
  else if (!Array.isArray(items) || items.length === 0) {
    problems.push({ loc: at("items"), msg: "List should have at least 1 item", type: "too_short" })
  } else {
    items.forEach((item: Record<string, unknown>, i) => {
      if (typeof item?.name !== "string" || item.name.trim() === "") {
        problems.push({ loc: [...at("items"), i, "name"], msg: "Field required", type: "missing" })
      }
      if (!Number.isInteger(item?.quantity) || (item.quantity as number) < 1) {
        problems.push({ loc: [...at("items"), i, "quantity"], msg: "Input should be at least 1", type: "ge" })
      }
      if (typeof item?.unit_price !== "number" || item.unit_price < 0) {
        problems.push({ loc: [...at("items"), i, "unit_price"], msg: "Input should be at least 0", type: "ge" })
      }
    })
  }
  return problems
}

/** The business rules, once the shape is right: the refusal in Near Delivery's words, or none. */
const refuseParcel = (parcel: Readonly<Record<string, unknown>>): string | undefined => {
  if (parcel.pickup_location_type !== 1) {
    return "Home delivery is not available: every parcel is delivered to a buralist (pickup_location_type 1)"
  }
  const wilaya = WILAYAS.find(([code]) => code === Number(parcel.recipient_wilaya))
  if (wilaya === undefined) return `Wilaya ${String(parcel.recipient_wilaya)} is not served`
  const commune = wilaya[2].find((name) => fold(name) === fold(String(parcel.recipient_commune)))
  if (commune === undefined) return `Commune ${String(parcel.recipient_commune)} is not in wilaya ${wilaya[1]}`
  if (parcel.buralist_id === undefined || parcel.buralist_id === null) return "A buralist is required"
  const buralist = BURALISTS.find(([id]) => id === parcel.buralist_id)
  if (buralist === undefined) return `Buralist ${String(parcel.buralist_id)} not found`
  if (buralist[1] !== wilaya[0]) return `Buralist ${buralist[0]} is not in wilaya ${wilaya[1]}`
  return undefined
}

const routes: Readonly<Record<string, string>> = {
  "/api/v1/sender/parcels": "POST",
  "/api/v1/sender/delivery-fees": "GET",
  "/api/v1/sender/wilayas": "GET",
  "/api/v1/sender/buralists": "GET",
  "/api/v1/sender/centers": "GET"
}

/** Starts the fake on a random loopback port, knowing `accounts`; it stops when the scope closes. */
export const make = (options: { readonly accounts?: Accounts } = {}): Effect.Effect<Fake, never, Scope.Scope> =>
  Effect.gen(function* () {
    const accounts = options.accounts ?? [[API_KEY, API_SECRET]]
    const parcels = new Map<string, Parcel>()
    let clock = Date.UTC(2026, 3, 18, 18, 45, 6)
    let issued = 0
    const stamp = () => {
      const at = new Date(clock).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z")
      clock += 60_000
      return at
    }

    const misbehave = (misbehaviour: Misbehaviour, request: FakeCourier.Request, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 200, { status: false, message: misbehaviour.message })
          return true
        case "echoKey":
          json(response, 400, {
            status: false,
            message: `The account of API key ${request.headers.apikey ?? ""} is suspended`
          })
          return true
        default:
          return false
      }
    }

    const tracked = (parcel: Parcel) => {
      const last = parcel.history.at(-1)!
      return {
        parcel_id: parcel.id,
        tracking_number: parcel.tracking,
        reference: parcel.fields.reference ?? null,
        recipient_name: parcel.fields.recipient_name,
        recipient_phone: parcel.fields.recipient_phone,
        recipient_wilaya: parcel.fields.recipient_wilaya,
        recipient_commune: parcel.fields.recipient_commune,
        buralist_id: parcel.fields.buralist_id,
        pickup_location_type: 1,
        status: last.status,
        created_at: parcel.history[0]!.created_at,
        updated_at: last.created_at,
        status_history: parcel.history
      }
    }

    const create = (body: unknown, response: Http.ServerResponse) => {
      const list = (body as { parcels?: unknown } | undefined)?.parcels
      if (!Array.isArray(list) || list.length === 0 || list.length > 100) {
        return json(response, 422, {
          detail: [{ loc: ["body", "parcels"], msg: "List should have 1 to 100 items", type: "too_short" }]
        })
      }
      const problems = list.flatMap((parcel: Record<string, unknown>, i) =>
        typeof parcel === "object" && parcel !== null
          ? validateParcel(parcel, i)
          : [{ loc: ["body", "parcels", i], msg: "Input should be an object", type: "dict_type" }]
      )
      if (problems.length > 0) return json(response, 422, { detail: problems })
      for (const parcel of list) {
        const refusal = refuseParcel(parcel)
        if (refusal !== undefined) return json(response, 400, { status: false, message: refusal })
      }
      const made = list.map((fields: Record<string, unknown>) => {
        issued += 1
        const parcel: Parcel = {
          id: 5000 + issued,
          tracking: `NRD${String(issued).padStart(8, "0")}`,
          fields,
          history: [{ status: 0, created_at: stamp() }]
        }
        parcels.set(parcel.tracking, parcel)
        return parcel
      })
      return json(response, 201, {
        status: true,
        message: `${made.length} parcel(s) created`,
        data: made.map((parcel) => ({
          parcel_id: parcel.id,
          tracking_number: parcel.tracking,
          reference: parcel.fields.reference ?? null,
          status: 0
        }))
      })
    }

    const fees = (query: Readonly<Record<string, string>>, response: Http.ServerResponse) => {
      const size = query.size === undefined ? 50 : Number(query.size)
      const page = query.page === undefined ? 1 : Number(query.page)
      if (!Number.isInteger(size) || size < 1 || size > 150 || !Number.isInteger(page) || page < 1) {
        return json(response, 422, {
          detail: [{ loc: ["query", "size"], msg: "Input should be between 1 and 150", type: "less_than_equal" }]
        })
      }
      const to = query.wilaya === undefined ? undefined : Number(query.wilaya)
      const rows = SENDER_WILAYAS.flatMap((from) =>
        WILAYAS.filter(([code]) => to === undefined || code === to).map(([code]) => {
          const [delivery, back] = fee(from, code)
          return {
            id: from * 100 + code,
            from_wilaya: two(from),
            to_wilaya: two(code),
            zone: from === code ? "local" : "national",
            delivery_delay: from === code ? "24h" : "48-72h",
            b2b_fee: `${delivery}.00`,
            return_fee: `${back}.00`
          }
        })
      )
      return json(response, 200, {
        status: true,
        data: rows.slice((page - 1) * size, page * size),
        total: rows.length,
        page,
        size
      })
    }

    const handle = (request: FakeCourier.Request, response: Http.ServerResponse) => {
      const { headers, method, path } = request
      const key = headers.apikey
      const secret = headers.apisecret
      if (key === undefined || secret === undefined) return json(response, 403, { detail: "Not authenticated" })
      if (!accounts.some(([k, s]) => k === key && s === secret)) {
        return json(response, 401, { detail: "Invalid API credentials" })
      }
      const parcel = /^\/api\/v1\/sender\/parcels\/([^/]+)$/.exec(path)
      if (parcel !== null) {
        if (method !== "GET") return json(response, 405, { detail: "Method Not Allowed" })
        const found = parcels.get(decodeURIComponent(parcel[1]!))
        return found === undefined
          ? json(response, 404, { status: false, message: "Parcel not found" })
          : json(response, 200, { status: true, message: "Parcel found", data: tracked(found) })
      }
      if (routes[path] === undefined) return json(response, 404, { detail: "Not Found" })
      if (routes[path] !== method) return json(response, 405, { detail: "Method Not Allowed" })
      switch (path) {
        case "/api/v1/sender/parcels":
          return create(request.body, response)
        case "/api/v1/sender/delivery-fees":
          return fees(request.query, response)
        case "/api/v1/sender/wilayas":
          return json(response, 200, {
            status: true,
            data: WILAYAS.map(([code, name, communes]) => ({
              wilaya_code: two(code),
              wilaya_name: name,
              communes: communes.map((commune, i) => ({ code: communeCode(code, i), name: commune }))
            }))
          })
        case "/api/v1/sender/buralists":
          return json(response, 200, {
            status: true,
            data: BURALISTS.map(([id, wilaya, commune]) => {
              const communes = WILAYAS.find(([code]) => code === wilaya)![2]
              return {
                id,
                username: `buraliste-${id}`,
                phone_number: `0555${String(id).padStart(6, "0")}`,
                center_address: `Bureau de tabac, ${commune}`,
                wilaya_code: two(wilaya),
                commune_code: communeCode(wilaya, communes.indexOf(commune)),
                center_id: wilaya
              }
            })
          })
        default:
          return json(response, 200, {
            status: true,
            data: SENDER_WILAYAS.map((wilaya) => ({ id: wilaya, name: `Centre ${wilaya}`, wilaya_code: two(wilaya) }))
          })
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      // FastAPI's error body, also for the misbehaviours FakeCourier plays (a 5xx, a 429).
      errorBody: (_status, message) => ({ detail: message }),
      misbehave,
      handle
    })
    const near: Fake = {
      ...fake,
      parcels,
      addStatus: (tracking, status) => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) throw new Error(`the fake has no parcel ${tracking}`)
        parcel.history.push({ status: /^\d+$/.test(status) ? Number(status) : status, created_at: stamp() })
      },
      setClock: (utc) => {
        clock = Date.parse(utc)
      }
    }
    return near
  })
