/**
 * A loopback Maystro Delivery: a real HTTP server on 127.0.0.1 (random port) speaking the Django REST Framework
 * API under `/api/` as the research notes document it — and only as they document it; nothing here was checked
 * against the live platform.
 *
 * - Auth: `Authorization: Token <key>` (DRF's TokenAuthentication). Any other scheme (Bearer) or none: 401
 *   `{"detail":"Authentication credentials were not provided."}`; an unknown key: 401 `{"detail":"Invalid token."}`.
 * - Paths end with `/` where DRF's routes do; anything else is Django's HTML 404. A wrong method: 405.
 * - `GET shared/communes/?wilaya=`: the wilaya's communes with Maystro's ids (below).
 * - `POST stores/orders/` (JSON only, else 415): DRF validation (400 `{field: [messages]}`) — `commune` must be a
 *   numeric id of the wilaya, `source` must be 4, a stop desk needs `stop_desk_id` — then the same-day duplicate
 *   rule: a second order with the same customer name and phone on the same (Algiers) day is refused with 400
 *   `non_field_errors`. Else 201 with the order: `id` (a UUID), `display_id_order`, `status` 4.
 * - `GET stores/history_order/{id}`: the order's statuses with DRF times (`…+01:00`); unknown: 404 `{detail}`.
 * - `GET stores/delivery_price/?commune=&delivery_type=&express=`: `{delivery_price}`, or 404 when that option
 *   has no price.
 * - `POST delivery/starter/v2/starter_bordureau/` `{orders_ids}`: the labels as raw PDF bytes; unknown id: 400.
 * - `PATCH shared/status/{id}/` `{status: 50, abort_reason}`: aborts an order not yet picked up (its latest status
 *   one of {@link ABORTABLE}), answering the order with status 50 and adding it to the history; an order already
 *   aborted, or past pickup, is refused with 400 `{detail}` (the fake's words: none are documented); unknown: 404.
 * - `GET shared/wilayas/?country=1`: the wilayas as `[id, name]` pairs (courier-dz's "documented" shape).
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a refusal, any JSON, or a refusal that quotes the caller's key.
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export const KEY = "fake-maystro-key-5d0e8c2b7a9f4e13"

/** An order created the day before, for suites that track or label without creating (`layer({ seed: true })`). */
export const SEEDED_ORDER_ID = "5e1c0a7d-3b2f-4c8e-9a61-5eed00000001"

/** An order created the day before and picked up since (status 8), seeded with it: Maystro no longer aborts it. */
export const SHIPPED_ORDER_ID = "5e1c0a7d-3b2f-4c8e-9a61-5eed00000002"

/** Maystro's communes in the fake, by wilaya: `[id, name]`. Wilayas not listed have none (not served). */
export const COMMUNES: Readonly<Record<number, ReadonlyArray<readonly [number, string]>>> = {
  9: [
    [901, "Blida"],
    [905, "Boufarik"]
  ],
  11: [[1101, "Tamanrasset"]],
  16: [
    [1601, "Alger Centre"],
    [1628, "Bab Ezzouar"],
    [1631, "Bordj El Kiffan"],
    [1642, "Hydra"],
    [1644, "Kouba"]
  ],
  19: [
    [1901, "Sétif"],
    [1920, "El Eulma"]
  ],
  25: [
    [2501, "Constantine"],
    [2506, "El Khroub"]
  ],
  31: [
    [3101, "Oran"],
    [3103, "Bir El Djir"],
    [3104, "Es Sénia"]
  ]
}

/** The statuses at which the fake still aborts an order: created (4), pickup asked (5), being processed (6). */
export const ABORTABLE: ReadonlyArray<number> = [4, 5, 6]

/** Wilayas where the fake has no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [11]

const wilayaOf = (commune: number) =>
  Number(Object.entries(COMMUNES).find(([, communes]) => communes.some(([id]) => id === commune))?.[0] ?? 0)

/** The fake's price for one option, in DZD, or null when it has none (stop desk where there is no desk, express to a desk). */
export const price = (commune: number, deliveryType: 1 | 2, express: boolean): number | null => {
  const wilaya = wilayaOf(commune)
  const home = wilaya === 16 ? 400 : 650
  if (deliveryType === 2) return NO_DESK.includes(wilaya) || express ? null : home - 150
  return express ? home + 300 : home
}

export type RecordedRequest = FakeCourier.Request

/** Maystro's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own = { readonly kind: "refuse"; readonly detail: string } | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface HistoryRow {
  /** A number as Maystro sends it; a string only to show how an undocumented one is handled. */
  readonly status: number | string
  readonly created_at: string
  readonly comment: string | null
}

export interface Order {
  readonly id: string
  readonly displayId: number
  readonly fields: Readonly<Record<string, unknown>>
  /** The Algiers day it was created on, for the duplicate rule. */
  readonly day: string
  readonly history: Array<HistoryRow>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly orders: ReadonlyMap<string, Order>
  /** Appends a status to an order's history, stamped with the fake's clock. */
  readonly addStatus: (id: string, status: number | string) => void
  /** The Algiers wall-clock date and time the fake stamps orders and statuses with. */
  readonly setClock: (date: string, time: string) => void
}

export interface Options {
  readonly keys?: ReadonlyArray<string>
  /** Seed the orders of {@link SEEDED_ORDER_ID} and {@link SHIPPED_ORDER_ID}. */
  readonly seed?: boolean
}

export class MaystroFake extends Context.Service<MaystroFake, Fake>()("@tawsil/adapter-maystro/test/MaystroFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(MaystroFake, make(options))
}

/** Starts the fake on a random loopback port, accepting `keys`; it stops when the scope closes. */
export const make = (options: Options = {}) => start(options.keys ?? [KEY], options.seed ?? false)

const { json } = FakeCourier

const djangoNotFound = (response: Http.ServerResponse) => {
  response.writeHead(404, { "content-type": "text/html" })
  response.end("<!doctype html><html><head><title>Not Found</title></head><body><h1>Not Found</h1></body></html>")
}

const required = "This field is required."
const isInt = (value: unknown) =>
  (typeof value === "number" && Number.isInteger(value)) || (typeof value === "string" && /^-?\d+$/.test(value))

/** DRF's validation of the create body (research §1.5 "Create fields"). */
const validateCreate = (body: Readonly<Record<string, unknown>>): Record<string, Array<unknown>> => {
  const errors: Record<string, Array<unknown>> = {}
  const add = (field: string, message: unknown) => {
    errors[field] = [...(errors[field] ?? []), message]
  }
  for (const field of ["customer_name", "customer_phone", "destination_text"]) {
    const value = body[field]
    if (value === undefined || value === null) add(field, required)
    else if (typeof value !== "string") add(field, "Not a valid string.")
    else if (value.trim() === "") add(field, "This field may not be blank.")
    else if (value.length > 255) add(field, "Ensure this field has no more than 255 characters.")
  }
  const phone = body.customer_phone
  if (typeof phone === "string" && phone.trim() !== "" && !/^0[567]\d{8}$/.test(phone)) {
    add("customer_phone", "Enter a valid phone number.")
  }
  for (const field of ["wilaya", "commune", "product_price", "delivery_type", "source"]) {
    if (body[field] === undefined || body[field] === null) add(field, required)
    else if (!isInt(body[field])) add(field, "A valid integer is required.")
  }
  const wilaya = Number(body.wilaya)
  if (isInt(body.wilaya) && !(wilaya >= 1 && wilaya <= 58))
    add("wilaya", `Invalid pk "${wilaya}" - object does not exist.`)
  if (isInt(body.commune) && isInt(body.wilaya)) {
    const commune = Number(body.commune)
    if (!(COMMUNES[wilaya] ?? []).some(([id]) => id === commune)) {
      add("commune", `Invalid pk "${commune}" - object does not exist.`)
    }
  }
  if (isInt(body.product_price) && Number(body.product_price) < 0) {
    add("product_price", "Ensure this value is greater than or equal to 0.")
  }
  if (isInt(body.delivery_type) && ![1, 2].includes(Number(body.delivery_type))) {
    add("delivery_type", `"${body.delivery_type}" is not a valid choice.`)
  }
  if (isInt(body.source) && Number(body.source) !== 4) add("source", `"${body.source}" is not a valid choice.`)
  if (typeof body.express !== "boolean")
    add("express", body.express === undefined ? required : "Must be a valid boolean.")
  if (Number(body.delivery_type) === 2 && (body.stop_desk_id === undefined || body.stop_desk_id === "")) {
    add("stop_desk_id", "This field is required for a stop-desk delivery.")
  }
  const products = body.products
  if (!Array.isArray(products) || products.length === 0)
    add("products", products === undefined ? required : "This list may not be empty.")
  else {
    products.forEach((product: unknown) => {
      const line = (typeof product === "object" && product !== null ? product : {}) as Record<string, unknown>
      if (typeof line.logistical_description !== "string" || line.logistical_description.trim() === "") {
        add("products", { logistical_description: [required] })
      }
      if (!isInt(line.quantity) || Number(line.quantity) < 1)
        add("products", { quantity: ["A valid integer is required."] })
    })
  }
  return errors
}

/** The caller's key: DRF's `Authorization: Token <key>`. */
const keyOf = (request: RecordedRequest) => /^Token (.+)$/.exec(request.headers.authorization ?? "")?.[1]

const start = (keys: ReadonlyArray<string>, seed: boolean) =>
  Effect.gen(function* () {
    const orders = new Map<string, Order>()
    let clock = { date: "2026-04-18", time: "19:45:06" }
    let issued = 0
    const stamp = () => `${clock.date}T${clock.time}.000000+01:00`
    if (seed) {
      orders.set(SEEDED_ORDER_ID, {
        id: SEEDED_ORDER_ID,
        displayId: 870_001,
        fields: { customer_name: "Walid Seddiki", customer_phone: "0770123456", wilaya: 16, commune: 1642 },
        day: "2026-04-17",
        history: [{ status: 4, created_at: "2026-04-17T10:00:00.000000+01:00", comment: null }]
      })
      orders.set(SHIPPED_ORDER_ID, {
        id: SHIPPED_ORDER_ID,
        displayId: 870_002,
        fields: { customer_name: "Nadia Ouali", customer_phone: "0661234567", wilaya: 31, commune: 3101 },
        day: "2026-04-17",
        history: [
          { status: 4, created_at: "2026-04-17T10:05:00.000000+01:00", comment: null },
          { status: 8, created_at: "2026-04-17T16:30:00.000000+01:00", comment: null }
        ]
      })
    }

    /** Maystro's own misbehaviours. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 400, { detail: misbehaviour.detail })
          return true
        case "echoToken":
          json(response, 400, { detail: `Le jeton ${keyOf(request) ?? ""} n'a pas accès à ce magasin.` })
          return true
        default:
          return false
      }
    }

    const routes: Record<string, ReadonlyArray<string>> = {
      "/api/shared/communes/": ["GET"],
      "/api/stores/orders/": ["POST"],
      "/api/stores/delivery_price/": ["GET"],
      "/api/delivery/starter/v2/starter_bordureau/": ["POST"],
      "/api/shared/wilayas/": ["GET"]
    }

    const route = (
      request: RecordedRequest,
      path: string,
      query: Readonly<Record<string, string>>,
      body: unknown,
      response: Http.ServerResponse
    ) => {
      const { method } = request
      const history = /^\/api\/stores\/history_order\/([^/]+)$/.exec(path)
      const status = /^\/api\/shared\/status\/([^/]+)\/$/.exec(path)
      const allowed = history ? ["GET"] : status ? ["PATCH"] : routes[path]
      if (allowed === undefined) return djangoNotFound(response)
      if (!allowed.includes(method)) return json(response, 405, { detail: `Method "${method}" not allowed.` })
      if (
        (method === "POST" || method === "PATCH") &&
        !(request.headers["content-type"] ?? "").startsWith("application/json")
      ) {
        return json(response, 415, {
          detail: `Unsupported media type "${request.headers["content-type"] ?? ""}" in request.`
        })
      }
      const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>

      if (history) {
        const order = orders.get(history[1]!)
        if (order === undefined) return json(response, 404, { detail: "Not found." })
        return json(response, 200, order.history)
      }
      if (status) {
        const order = orders.get(status[1]!)
        if (order === undefined) return json(response, 404, { detail: "Not found." })
        if (fields.status === undefined) return json(response, 400, { status: [required] })
        if (Number(fields.status) !== 50)
          return json(response, 400, { status: [`"${fields.status}" is not a valid choice.`] })
        const latest = Number(order.history.at(-1)?.status)
        if (latest === 50) return json(response, 400, { detail: "Cette commande est déjà annulée." })
        if (!ABORTABLE.includes(latest)) {
          return json(response, 400, { detail: "Impossible d'annuler une commande déjà ramassée." })
        }
        order.history.push({ status: 50, created_at: stamp(), comment: "Annulée par le magasin" })
        return json(response, 200, { id: order.id, status: 50, abort_reason: fields.abort_reason ?? null })
      }
      if (path === "/api/shared/wilayas/") {
        return json(
          response,
          200,
          Array.from({ length: 58 }, (_, i) => [i + 1, `Wilaya ${String(i + 1).padStart(2, "0")}`])
        )
      }
      if (path === "/api/shared/communes/") {
        if (!isInt(query.wilaya)) return json(response, 400, { wilaya: [required] })
        return json(
          response,
          200,
          (COMMUNES[Number(query.wilaya)] ?? []).map(([id, name]) => ({ id, name, wilaya: Number(query.wilaya) }))
        )
      }
      if (path === "/api/stores/orders/") {
        const errors = validateCreate(fields)
        if (Object.keys(errors).length > 0) return json(response, 400, errors)
        const duplicate = [...orders.values()].some(
          (order) =>
            order.day === clock.date &&
            String(order.fields.customer_name).trim().toLowerCase() ===
              String(fields.customer_name).trim().toLowerCase() &&
            order.fields.customer_phone === fields.customer_phone
        )
        if (duplicate) {
          return json(response, 400, {
            non_field_errors: [
              "Une commande existe déjà aujourd'hui pour ce client (même nom et même numéro de téléphone)."
            ]
          })
        }
        issued += 1
        const id = `5e1c0a7d-3b2f-4c8e-9a61-${String(issued).padStart(12, "0")}`
        const order: Order = {
          id,
          displayId: 880_000 + issued,
          fields,
          day: clock.date,
          history: [{ status: 4, created_at: stamp(), comment: null }]
        }
        orders.set(id, order)
        return json(response, 201, {
          id,
          // The create answer as the public integrations read it: `display_id`.
          display_id: order.displayId,
          external_order_id: fields.external_order_id ?? null,
          status: 4,
          customer_name: fields.customer_name,
          customer_phone: fields.customer_phone,
          wilaya: Number(fields.wilaya),
          commune: Number(fields.commune),
          destination_text: fields.destination_text,
          product_price: Number(fields.product_price),
          delivery_type: Number(fields.delivery_type),
          express: fields.express,
          created_at: stamp()
        })
      }
      if (path === "/api/stores/delivery_price/") {
        if (!isInt(query.commune)) return json(response, 400, { commune: [required] })
        const deliveryType = query.delivery_type === undefined ? 1 : Number(query.delivery_type)
        if (deliveryType !== 1 && deliveryType !== 2) {
          return json(response, 400, { delivery_type: [`"${query.delivery_type}" is not a valid choice.`] })
        }
        const fee =
          wilayaOf(Number(query.commune)) === 0
            ? null
            : price(Number(query.commune), deliveryType, query.express === "true")
        if (fee === null) return json(response, 404, { detail: "No pricing for the provided information." })
        return json(response, 200, { delivery_price: fee })
      }
      // The bordereau.
      const ids = fields.orders_ids
      if (!Array.isArray(ids) || ids.length === 0) return json(response, 400, { orders_ids: [required] })
      const unknown = ids.find((id) => typeof id !== "string" || !orders.has(id))
      if (unknown !== undefined) {
        return json(response, 400, { orders_ids: [`Invalid pk "${String(unknown)}" - object does not exist.`] })
      }
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(`%PDF-1.4\n% bordereau ${ids.map((id) => `${orders.get(id)!.displayId} ${id}`).join(", ")}\n%%EOF\n`)
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ detail: message }),
      misbehave,
      handle: (request, response) => {
        const key = keyOf(request)
        if (key === undefined) {
          return json(
            response,
            401,
            { detail: "Authentication credentials were not provided." },
            { "www-authenticate": "Token" }
          )
        }
        if (!keys.includes(key))
          return json(response, 401, { detail: "Invalid token." }, { "www-authenticate": "Token" })
        return route(request, request.path, request.query, request.body, response)
      }
    })
    const maystro: Fake = {
      ...fake,
      orders,
      addStatus: (id, status) => orders.get(id)?.history.push({ status, created_at: stamp(), comment: null }),
      setClock: (date, time) => {
        clock = { date, time }
      }
    }
    return maystro
  })
