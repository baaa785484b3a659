/**
 * A loopback MDM Express: a real HTTP server on 127.0.0.1 (random port) speaking the API under `/api/` as the
 * research notes (couriers.md §1.8) and the two public integrations describe it — and only as they describe it;
 * nothing here was checked against the live platform. Where the sources are silent, it does what a Node JSON API of
 * this shape most likely does (README "Unverified").
 *
 * - Auth: `x-api-key`. None: 401 `{ status, error: { code: "AUTH.MISSING_API_KEY", message } }`; an unknown key: 401
 *   `AUTH.INVALID_API_KEY`. A key anywhere else (a query string, `Authorization`) is not read.
 * - `GET geo/countries`, `geo/countries/DZA/deliverable-states`, `geo/cities?stateId[]=DZA16` (`{ list, total }`;
 *   city ids like `DZA161628`), `v2/shipping/companies/offices?countryId=DZA` (the stop desks, every one whatever
 *   the query: `{ list: [{ id, name, address: { cityCode, cityName, streetAddress } }], total }`).
 * - `POST v2/orders` (JSON only, else 415): validation (400 `VALIDATION_ERROR`, naming the field) — both name parts,
 *   national mobiles, a known `destination.cityId`, a street, products, a whole `totalPrice`, a known office for a
 *   stop desk in the city's wilaya — then 201 `{ trackingId: "ORD-…", status }`. A `confirmed` order is `confirmed`
 *   at once and has its parcel (`PCL-…`); any other is `pending`, without one.
 * - `GET v2/orders/{t}`: the order with `relatives` (its parcel); `…/status-history`: `{ statusHistory: [{ status,
 *   date }] }` with UTC ISO times; unknown: 404 `ORDERS.NOT_FOUND`.
 * - `POST prints/parcel-slips { parcelIds }` → `{ fileId }`; `GET prints/files/{fileId}` → the PDF.
 * - Any other path: 404 `{ message: "Cannot GET /…", error: "Not Found", statusCode: 404 }`.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, any JSON, a refusal in MDM's words, or a refusal quoting the caller's key.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export const KEY = "fake-mdm-key-2c7e9a41b05d"

/** MDM's cities in the fake, by wilaya: `[id, name]`. Wilayas not listed have none (not served). */
export const CITIES: Readonly<Record<number, ReadonlyArray<readonly [string, string]>>> = {
  9: [
    ["DZA090901", "Blida"],
    ["DZA090905", "Boufarik"]
  ],
  16: [
    ["DZA161601", "Alger Centre"],
    ["DZA161628", "Bab Ezzouar"],
    ["DZA161631", "Bordj El Kiffan"],
    ["DZA161642", "Hydra"],
    ["DZA161647", "Aïn Bénian"]
  ],
  31: [
    ["DZA313101", "Oran"],
    ["DZA313103", "Bir El Djir"],
    ["DZA313104", "Es Sénia"]
  ]
}

/** The stop desks: `[office id, its city id]`. */
export const OFFICES: ReadonlyArray<readonly [string, string]> = [
  ["OFC-ALG-01", "DZA161628"],
  ["OFC-ALG-02", "DZA161642"],
  ["OFC-ORN-01", "DZA313103"]
]

const cityById = (id: unknown) =>
  Object.entries(CITIES).flatMap(([wilaya, cities]) =>
    cities.filter(([cityId]) => cityId === id).map(([cityId, name]) => ({ wilaya: Number(wilaya), cityId, name }))
  )[0]

export type RecordedRequest = FakeCourier.Request

/** MDM's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  | { readonly kind: "refuse"; readonly code: string; readonly message: string }
  | { readonly kind: "echoKey" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface HistoryRow {
  readonly status: string
  readonly date: string
}

export interface Order {
  readonly trackingId: string
  readonly body: Readonly<Record<string, unknown>>
  readonly key: string
  readonly createdAt: string
  /** The parcel MDM made for it, once confirmed. */
  parcel: string | undefined
  readonly history: Array<HistoryRow>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly orders: ReadonlyMap<string, Order>
  /** Appends a status to an order's history, stamped with the fake's clock (it must exist). */
  readonly addStatus: (trackingId: string, status: string) => void
  /** Empties an order's history, as for an order MDM has not written any step of yet. */
  readonly clearHistory: (trackingId: string) => void
  /** The instant (ISO 8601, UTC) the fake stamps orders and statuses with. */
  readonly setClock: (iso: string) => void
  /** The printed files, by id: the parcel each one is the slip of. */
  readonly files: ReadonlyMap<string, string>
}

export interface Options {
  readonly keys?: ReadonlyArray<string>
  /** Seed {@link SEEDED_ORDER}, confirmed, with its parcel, for the first key: to label without creating. */
  readonly seed?: boolean
}

/** The order `seed` gives the fake, made the day before. */
export const SEEDED_ORDER = "ORD-SEEDED"

export class MdmFake extends Context.Service<MdmFake, Fake>()("@tawsil/adapter-mdm/test/MdmFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(MdmFake, make(options))
}

const { json } = FakeCourier

/** MDM's error body. */
export const failure = (status: number, code: string, message: string) => ({ status, error: { code, message } })

const isText = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""
const isWhole = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value)
const mobile = /^0[5-7]\d{8}$/

/** MDM's validation of an order (research §1.8 "Create"; the messages are the fake's). */
const validateOrder = (body: Readonly<Record<string, unknown>>): string | undefined => {
  const client = (typeof body.client === "object" && body.client !== null ? body.client : {}) as Record<string, unknown>
  const destination = (
    typeof body.destination === "object" && body.destination !== null ? body.destination : {}
  ) as Record<string, unknown>
  if (!isText(client.firstName)) return "client.firstName is required"
  if (!isText(client.lastName)) return "client.lastName is required"
  if (typeof client.phone !== "string" || !mobile.test(client.phone)) return "client.phone must be a valid phone number"
  if (client.phone2 !== undefined && client.phone2 !== "" && client.phone2 !== null) {
    if (typeof client.phone2 !== "string" || !mobile.test(client.phone2))
      return "client.phone2 must be a valid phone number"
  }
  if (typeof destination.cityId !== "string") return "destination.cityId must be a string"
  const city = cityById(destination.cityId)
  if (city === undefined) return `destination.cityId: city ${destination.cityId} not found`
  if (!isText(destination.streetAddress)) return "destination.streetAddress should not be empty"
  if (!isWhole(body.totalPrice) || body.totalPrice < 0) return "totalPrice must be a positive integer"
  const products = body.products
  if (!Array.isArray(products) || products.length === 0) return "products should not be empty"
  for (const product of products as ReadonlyArray<Record<string, unknown>>) {
    if (!isText(product?.name) && !isText(product?.trackingId)) return "products.name is required"
    if (!isWhole(product?.quantity) || product.quantity < 1) return "products.quantity must be at least 1"
  }
  for (const flag of ["freeShipping", "fragile", "openable", "isStopDesk", "confirmed"]) {
    if (body[flag] !== undefined && typeof body[flag] !== "boolean") return `${flag} must be a boolean`
  }
  if (body.isStopDesk === true) {
    const office = OFFICES.find(([id]) => id === body.stopDeskId)
    if (office === undefined) return `stopDeskId: office ${String(body.stopDeskId)} not found`
    if (cityById(office[1])?.wilaya !== city.wilaya) return "stopDeskId: the office is not in the destination's state"
  }
  if (body.weight !== undefined && (!isWhole(body.weight) || body.weight < 0)) return "weight must be an integer"
  return undefined
}

/** Starts the fake on a random loopback port, accepting `keys`; it stops when the scope closes. */
export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const keys = options.keys ?? [KEY]
    const orders = new Map<string, Order>()
    const files = new Map<string, string>()
    let clock = "2026-04-18T18:45:06.000Z"
    let issued = 0
    let printed = 0
    if (options.seed === true) {
      orders.set(SEEDED_ORDER, {
        trackingId: SEEDED_ORDER,
        body: { totalPrice: 4500, isStopDesk: false },
        key: keys[0]!,
        createdAt: "2026-04-17T09:00:00.000Z",
        parcel: "PCL-SEEDED",
        history: [
          { status: "pending", date: "2026-04-17T09:00:00.000Z" },
          { status: "confirmed", date: "2026-04-17T09:00:00.000Z" }
        ]
      })
    }

    const keyOf = (request: RecordedRequest) => request.headers["x-api-key"]

    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 400, failure(400, misbehaviour.code, misbehaviour.message))
          return true
        case "echoKey":
          json(response, 403, failure(403, "STORES.FORBIDDEN", `The key ${keyOf(request) ?? ""} has no store here`))
          return true
        default:
          return false
      }
    }

    const notFound = (response: Http.ServerResponse, method: string, path: string) =>
      json(response, 404, { message: `Cannot ${method} ${path}`, error: "Not Found", statusCode: 404 })

    const orderView = (order: Order) => ({
      trackingId: order.trackingId,
      status: order.history.at(-1)?.status ?? (order.parcel === undefined ? "pending" : "confirmed"),
      totalPrice: order.body.totalPrice,
      client: order.body.client,
      destination: order.body.destination,
      isStopDesk: order.body.isStopDesk ?? false,
      createdAt: order.createdAt,
      updatedAt: order.history.at(-1)?.date ?? order.createdAt,
      relatives: order.parcel === undefined ? [] : [{ type: "parcel", data: { trackingId: order.parcel } }]
    })

    const route = (request: RecordedRequest, key: string, response: Http.ServerResponse) => {
      const { method, path, query } = request
      const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<
        string,
        unknown
      >
      if (method === "POST" && !(request.headers["content-type"] ?? "").startsWith("application/json")) {
        return json(response, 415, failure(415, "UNSUPPORTED_MEDIA_TYPE", "Expected a JSON body"))
      }
      if (method === "GET" && path === "/api/geo/countries") {
        return json(response, 200, { list: [{ id: "DZA", iso2: "DZ", name: "Algeria" }], total: 1 })
      }
      if (method === "GET" && path === "/api/geo/countries/DZA/deliverable-states") {
        const list = Object.keys(CITIES).map((wilaya) => ({ id: `DZA${wilaya.padStart(2, "0")}` }))
        return json(response, 200, { list, total: list.length })
      }
      if (method === "GET" && path === "/api/geo/cities") {
        const state = query["stateId[]"]
        if (query["countryId[]"] !== undefined && query["countryId[]"] !== "DZA") {
          return json(response, 200, { list: [], total: 0 })
        }
        const list = Object.entries(CITIES)
          .filter(([wilaya]) => state === undefined || state === `DZA${wilaya.padStart(2, "0")}`)
          .flatMap(([wilaya, cities]) =>
            cities.map(([id, name]) => ({ id, code: id, name, nameAr: name, stateId: `DZA${wilaya.padStart(2, "0")}` }))
          )
        return json(response, 200, { list, total: list.length })
      }
      if (method === "GET" && path === "/api/v2/shipping/companies/offices") {
        const list = OFFICES.map(([id, cityId]) => ({
          id,
          name: `Bureau ${cityById(cityId)?.name ?? ""}`,
          address: {
            cityCode: cityId,
            cityName: cityById(cityId)?.name ?? "",
            streetAddress: `Agence MDM, ${cityById(cityId)?.name ?? ""}`
          }
        }))
        return json(response, 200, { list, total: list.length })
      }
      if (path === "/api/v2/orders") {
        if (method !== "POST") return notFound(response, method, path)
        const invalid = validateOrder(body)
        if (invalid !== undefined) return json(response, 400, failure(400, "VALIDATION_ERROR", invalid))
        issued += 1
        const trackingId = `ORD-${String(issued).padStart(6, "0")}`
        const confirmed = body.confirmed === true
        const order: Order = {
          trackingId,
          body,
          key,
          createdAt: clock,
          parcel: confirmed ? `PCL-${String(issued).padStart(6, "0")}` : undefined,
          history: [{ status: "pending", date: clock }, ...(confirmed ? [{ status: "confirmed", date: clock }] : [])]
        }
        orders.set(trackingId, order)
        return json(response, 201, orderView(order))
      }
      const perOrder = /^\/api\/v2\/orders\/([^/]+)(\/status-history)?$/.exec(path)
      if (perOrder !== null && method === "GET") {
        const order = orders.get(perOrder[1]!)
        // An order is its store's: another key does not see it.
        if (order === undefined || order.key !== key) {
          return json(response, 404, failure(404, "ORDERS.NOT_FOUND", `Order ${perOrder[1]} not found`))
        }
        return perOrder[2] === undefined
          ? json(response, 200, orderView(order))
          : json(response, 200, { trackingId: order.trackingId, statusHistory: order.history })
      }
      if (method === "POST" && path === "/api/prints/parcel-slips") {
        const ids = body.parcelIds
        if (!Array.isArray(ids) || ids.length === 0) {
          return json(response, 400, failure(400, "VALIDATION_ERROR", "parcelIds should not be empty"))
        }
        const parcels = [...orders.values()].filter((order) => order.key === key && order.parcel !== undefined)
        const unknown = ids.find((id) => !parcels.some((order) => order.parcel === id))
        if (unknown !== undefined) {
          return json(response, 404, failure(404, "PARCELS.NOT_FOUND", `Parcel ${String(unknown)} not found`))
        }
        printed += 1
        const fileId = `FIL-${String(printed).padStart(6, "0")}`
        files.set(fileId, ids.join(", "))
        return json(response, 201, { fileId })
      }
      const file = /^\/api\/prints\/files\/([^/]+)$/.exec(path)
      if (file !== null && method === "GET") {
        const parcels = files.get(file[1]!)
        if (parcels === undefined) return json(response, 404, failure(404, "FILES.NOT_FOUND", "File not found"))
        response.writeHead(200, { "content-type": "application/pdf" })
        return response.end(`%PDF-1.4\n% parcel slip ${parcels}\n%%EOF\n`)
      }
      return notFound(response, method, path)
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (status, message) => failure(status, "ERROR", message),
      misbehave,
      handle: (request, response) => {
        const key = keyOf(request)
        if (key === undefined || key === "") {
          return json(response, 401, failure(401, "AUTH.MISSING_API_KEY", "Missing API key"))
        }
        if (!keys.includes(key)) return json(response, 401, failure(401, "AUTH.INVALID_API_KEY", "Invalid API key"))
        return route(request, key, response)
      }
    })
    const orderNamed = (trackingId: string) => {
      const order = orders.get(trackingId)
      if (order === undefined) throw new Error(`the fake has no order ${trackingId}`)
      return order
    }
    const mdm: Fake = {
      ...fake,
      orders,
      files,
      addStatus: (trackingId, status) => {
        orderNamed(trackingId).history.push({ status, date: clock })
      },
      clearHistory: (trackingId) => {
        orderNamed(trackingId).history.length = 0
      },
      setClock: (iso) => {
        clock = iso
      }
    }
    return mdm
  })

/** Starts the fake outside Effect (a script), until `close()`. */
export const start = (options: Options = {}) => FakeCourier.run(make(options))
