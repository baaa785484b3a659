/**
 * A loopback of the new ZR Express platform: a real HTTP server on 127.0.0.1 (random port) speaking `/api/v1/…` as the
 * research notes and the public OpenAPI index document it (couriers.md §1.4; README "Unverified") — and only as they
 * document it; nothing here was checked against the live API.
 *
 * - Auth: `X-Tenant` and `X-Api-Key` must name a known account; otherwise 401 problem details. No other header
 *   (`Authorization`) is read.
 * - `POST territories/search`: the wilayas (`level` "wilaya", `code` 1–58) and their communes (`level` "commune",
 *   `parentId` the wilaya), filtered by `advancedFilter` (`eq` on `level`, `parentId`, `name`, `code`), paged
 *   (`pageSize` capped by the `maxPageSize` option, `hasNext`).
 * - `POST workflows/search`: one workflow and its states, each with a UUID.
 * - `POST parcels`: ASP.NET-style validation (400 with `errors` by field, unknown fields refused so that a wrong name
 *   fails a test; every ordered product's `stockType` required, "StockType is required." as ZR words it), 422 for a
 *   wilaya it does not serve, else 201 `{ id }`. The parcel is created in **OrderReceived**
 *   whatever `stateId` says — the reading under which the ReadyToDispatch step matters — unless the
 *   `createHonoursStateId` option is set. A parcel left in OrderReceived is never collected.
 * - `GET parcels/{id or tracking number}`, `PATCH parcels/{id}/state {parcelId, newStateId}`,
 *   `GET parcels/{id}/state-history`: rows of the OpenAPI's `ParcelStateHistoryDto` (`id`, `createdAt`,
 *   `previousState`, `newState`, `modifiedBy`, `location`, `comment`, `situations`), newest first, times in UTC with
 *   `Z`.
 * - `POST hubs/search`: every hub, paged, as courier-dz reads them (`id`, `name`, `isPickupPoint`, `address` with
 *   `cityTerritoryId`/`districtTerritoryId`, `phone`): the {@link PICKUP_POINTS} and a sorting hub that is none.
 * - `DELETE parcels/{id}` (by UUID only): 204 while the parcel is at most ReadyToDispatch; past it, 409 problem
 *   details (the platform's refusal is not documented: README "Unverified").
 * - `GET delivery-pricing/rates`: a row per served wilaya (home, pickup-point where there are desks, return) and one
 *   commune row of its own (Bab Ezzouar); Algiers' home price carries the account's `discountedPrice`.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a 422 refusal, any JSON, or a refusal that quotes the caller's API key.
 */
import { createHash } from "node:crypto"
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export interface Account {
  readonly tenantId: string
  readonly apiKey: string
}

export const ACCOUNT: Account = {
  tenantId: "5b0e1d6c-3f4a-4c8e-9a27-6d1f0b2e7c31",
  apiKey: "fake-zr-api-key-2c7f1a9e04d3b856"
}

/** A stable UUID for a name, so that every fake instance agrees on territory, hub and state ids. */
export const uuidOf = (seed: string): string => {
  const hex = createHash("sha256").update(seed).digest("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** Wilayas the fake courier does not serve (deep south). */
export const UNSERVED: ReadonlyArray<number> = [33, 50, 54, 56]
/** Served, but with no pickup point. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 37, 49, 52, 53, 58]

/** The fake's rate table, in DZD: [home, pickup point or null, return]. */
export const tariff = (wilaya: number): readonly [number, number | null, number] => {
  const home = wilaya === 16 ? 450 : NO_DESK.includes(wilaya) ? 1000 : 750
  return [home, NO_DESK.includes(wilaya) ? null : home - 250, 200]
}

/** Bab Ezzouar has a price of its own: [home, pickup point, return]. */
export const BAB_EZZOUAR_TARIFF = [350, 250, 150] as const

const NAMED: Readonly<Record<number, readonly [string, ReadonlyArray<string>]>> = {
  2: ["Chlef", ["Chlef", "El Marsa"]],
  9: ["Blida", ["Blida", "Boufarik"]],
  16: ["Alger", ["Alger Centre", "Bab Ezzouar", "Hydra", "Bir Mourad Raïs", "El Marsa"]],
  19: ["Sétif", ["Sétif", "El Eulma"]],
  31: ["Oran", ["Oran", "Bir El Djir", "Es Sénia"]]
}

export const wilayaName = (code: number) => NAMED[code]?.[0] ?? `Wilaya ${code}`
export const communeNames = (code: number) => NAMED[code]?.[1] ?? [wilayaName(code)]
export const wilayaId = (code: number) => uuidOf(`wilaya:${code}`)
export const communeId = (code: number, name: string) => uuidOf(`commune:${code}:${name}`)

export interface Territory {
  readonly id: string
  readonly code: number
  readonly name: string
  readonly nameArabic: string | null
  readonly level: "wilaya" | "commune"
  readonly parentId: string | null
  readonly delivery: { readonly hasHomeDelivery: boolean; readonly hasPickupPoint: boolean }
}

export const TERRITORIES: ReadonlyArray<Territory> = Array.from({ length: 58 }, (_, i) => i + 1).flatMap((code) => {
  const delivery = { hasHomeDelivery: !UNSERVED.includes(code), hasPickupPoint: !NO_DESK.includes(code) }
  return [
    {
      id: wilayaId(code),
      code,
      name: wilayaName(code),
      nameArabic: code === 16 ? "الجزائر" : null,
      level: "wilaya" as const,
      parentId: null,
      delivery
    },
    ...communeNames(code).map((name, index) => ({
      id: communeId(code, name),
      code: code * 100 + index + 1,
      name,
      nameArabic: name === "Bab Ezzouar" ? "باب الزوار" : null,
      level: "commune" as const,
      parentId: wilayaId(code),
      delivery
    }))
  ]
})

/** Pickup points (hubs taking `pickup-point` parcels), by wilaya. */
export const PICKUP_POINTS: Readonly<Record<string, number>> = {
  [uuidOf("hub:16:bab-ezzouar")]: 16,
  [uuidOf("hub:31:oran")]: 31
}

/** The hubs `hubs/search` lists: the pickup points, and a sorting hub in Algiers that takes no parcel. */
export const HUBS: ReadonlyArray<{
  readonly id: string
  readonly name: string
  readonly wilaya: number
  readonly commune: string
  readonly isPickupPoint: boolean
}> = [
  {
    id: uuidOf("hub:16:bab-ezzouar"),
    name: "Point relais Bab Ezzouar",
    wilaya: 16,
    commune: "Bab Ezzouar",
    isPickupPoint: true
  },
  { id: uuidOf("hub:16:sorting"), name: "Hub de tri Alger", wilaya: 16, commune: "Alger Centre", isPickupPoint: false },
  { id: uuidOf("hub:31:oran"), name: "Point relais Oran", wilaya: 31, commune: "Oran", isPickupPoint: true }
]

/** The last state a parcel can be deleted in: until the hub takes it. */
export const LAST_DELETABLE = "ReadyToDispatch"

/**
 * The live default workflow's states ("New Delivery Workflow"), French slugs, as an integrator's audit of the
 * production API captured them (`POST workflows/search`).
 */
export const DEFAULT_WORKFLOW: ReadonlyArray<string> = [
  "commande_recue",
  "en_traitement",
  "appel_confirmation",
  "commande_confirmee",
  "en_preparation",
  "pret_a_expedier",
  "confirme_au_bureau",
  "confirme_chez_partenaire",
  "dispatch",
  "vers_wilaya",
  "en_livraison",
  "sortie_en_livraison",
  "livre",
  "encaisse",
  "recouvert",
  "retour_sous_traitant",
  "colis_recupere",
  "attente_recuperation_fournisseur",
  "reinjecte_dans_stock",
  "recupere_par_fournisseur",
  "remboursement_reinjecte",
  "colis_annule"
]

/** What Algiers' home delivery costs an account with a discount: `discountedPrice` beside `price`. */
export const DISCOUNTED_HOME_16 = 400

/** The workflow's states, in order (the English names the integrators map; the default workflow is French). */
export const STATES: ReadonlyArray<string> = [
  "OrderReceived",
  "InProcessing",
  "ConfirmationCall",
  "OrderConfirmed",
  "InPreparation",
  "ReadyToDispatch",
  "ConfirmedAtBranch",
  "Dispatched",
  "InterWilayaTransit",
  "InDelivery",
  "OutForDelivery",
  "ReadyForPickup",
  "WaitingClient",
  "FailedDelivery",
  "OrderRefused",
  "InReturn",
  "Delivered",
  "Collected",
  "Returned",
  "ReturnConfirmed",
  "Cancelled"
]
export const stateId = (name: string) => uuidOf(`state:${name}`)

export type RecordedRequest = FakeCourier.Request

/**
 * The storage host the fake's label links name (ZR keeps label files on Azure Blob Storage; which account is not
 * documented, so this name is the fake's own). Its files are served by the fake itself, under `/labels/`.
 */
export const LABEL_HOST = "zrexpresslabels.blob.core.windows.net"

/** The signature the fake's label links carry (a SAS token's `sig`): a request without it is refused, as Azure does. */
export const LABEL_SIGNATURE = "fake-sas-signature"

/** ZR's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own = { readonly kind: "refuse"; readonly detail: string } | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Parcel {
  readonly id: string
  readonly trackingNumber: string
  readonly body: Readonly<Record<string, unknown>>
  state: string
  readonly history: Array<{ readonly id: string; readonly stateName: string; readonly stateDate: string }>
}

export interface Options {
  readonly accounts?: ReadonlyArray<Account>
  /** Create parcels in the body's `stateId` (the other reading of the documentation); default: OrderReceived. */
  readonly createHonoursStateId?: boolean
  /** The largest page a search answers; default 1000. */
  readonly maxPageSize?: number
  /** The workflow's state names; default {@link STATES}. */
  readonly states?: ReadonlyArray<string>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  /** Parcels by id. */
  readonly parcels: ReadonlyMap<string, Parcel>
  readonly byTracking: (trackingNumber: string) => Parcel | undefined
  /** Moves a parcel to a state, stamped with the fake's clock (a name outside the workflow is kept as given). */
  readonly addState: (trackingNumber: string, stateName: string) => void
  /** Sets the clock the fake stamps states with (each stamp then moves it on by 250 ms); stamps are written in UTC, `YYYY-MM-DDTHH:MM:SS.fffffffZ`. */
  readonly setClock: (at: string) => void
}

export class ZrExpressNewFake extends Context.Service<ZrExpressNewFake, Fake>()(
  "@tawsil/adapter-zrexpress-new/test/ZrExpressNewFake"
) {
  static readonly layer = (options: Options = {}) => Layer.effect(ZrExpressNewFake, make(options))
}

/** Starts the fake on a random loopback port; it stops when the scope closes. */
export const make = (options: Options = {}) => start(options)

const { json } = FakeCourier

/** Problem details (RFC 9457), as ASP.NET answers its errors. */
const problemOf = (status: number, title: string, extra: object = {}) => ({
  type: "https://tools.ietf.org/html/rfc9110",
  title,
  status,
  ...extra
})

const problem = (response: Http.ServerResponse, status: number, title: string, extra: object = {}) =>
  json(response, status, problemOf(status, title, extra), { "content-type": "application/problem+json; charset=utf-8" })

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isUuid = (value: unknown): value is string =>
  typeof value === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""

const CREATE_FIELDS = [
  "customer",
  "deliveryAddress",
  "orderedProducts",
  "deliveryType",
  "hubId",
  "description",
  "amount",
  "externalId",
  "weight",
  "stateId"
]

/** What `POST parcels` finds wrong with a body, field by field (ASP.NET's `errors`). */
const validateCreate = (body: Record<string, unknown>, states: ReadonlyMap<string, string>) => {
  const errors: Record<string, Array<string>> = {}
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message]
  }
  for (const field of Object.keys(body)) if (!CREATE_FIELDS.includes(field)) add(field, "Unknown field.")
  const customer = isRecord(body.customer) ? body.customer : {}
  if (!isUuid(customer.customerId)) add("customer.customerId", "'Customer Id' must be a valid UUID.")
  if (!nonEmpty(customer.name)) add("customer.name", "'Name' must not be empty.")
  const phone = isRecord(customer.phone) ? customer.phone : {}
  if (typeof phone.number1 !== "string" || !/^\+213[567]\d{8}$/.test(phone.number1)) {
    add("customer.phone.number1", "'Number1' must be a valid international phone number.")
  }
  if (phone.number2 !== undefined && (typeof phone.number2 !== "string" || !/^\+213[567]\d{8}$/.test(phone.number2))) {
    add("customer.phone.number2", "'Number2' must be a valid international phone number.")
  }
  const address = isRecord(body.deliveryAddress) ? body.deliveryAddress : {}
  const city = TERRITORIES.find((t) => t.level === "wilaya" && t.id === address.cityTerritoryId)
  const district = TERRITORIES.find((t) => t.level === "commune" && t.id === address.districtTerritoryId)
  if (city === undefined) add("deliveryAddress.cityTerritoryId", "Territory not found.")
  if (district === undefined) add("deliveryAddress.districtTerritoryId", "Territory not found.")
  else if (city !== undefined && district.parentId !== city.id) {
    add("deliveryAddress.districtTerritoryId", "The district does not belong to the city.")
  }
  if (!nonEmpty(address.street)) add("deliveryAddress.street", "'Street' must not be empty.")
  const products = Array.isArray(body.orderedProducts) ? body.orderedProducts : []
  if (products.length === 0) add("orderedProducts", "'Ordered Products' must not be empty.")
  products.forEach((product: unknown, index) => {
    const item = isRecord(product) ? product : {}
    if (!nonEmpty(item.productName)) add(`orderedProducts[${index}].productName`, "'Product Name' must not be empty.")
    if (typeof item.unitPrice !== "number" || item.unitPrice < 0) {
      add(`orderedProducts[${index}].unitPrice`, "'Unit Price' must be a positive number.")
    }
    if (!Number.isInteger(item.quantity) || (item.quantity as number) < 1) {
      add(`orderedProducts[${index}].quantity`, "'Quantity' must be at least 1.")
    }
    if (item.stockType === undefined || item.stockType === null || item.stockType === "") {
      add(`orderedProducts[${index}].stockType`, "StockType is required.")
    } else if (!["none", "local", "warehouse"].includes(String(item.stockType))) {
      add(`orderedProducts[${index}].stockType`, "StockType must be none, local or warehouse.")
    }
  })
  if (body.deliveryType !== "home" && body.deliveryType !== "pickup-point") {
    add("deliveryType", "'Delivery Type' must be 'home' or 'pickup-point'.")
  }
  if (body.deliveryType === "pickup-point" || body.hubId !== undefined) {
    const hubWilaya = typeof body.hubId === "string" ? PICKUP_POINTS[body.hubId] : undefined
    if (hubWilaya === undefined) add("hubId", "Pickup point not found.")
    else if (city !== undefined && hubWilaya !== city.code) add("hubId", "The pickup point is not in the city.")
  }
  if (!nonEmpty(body.description)) add("description", "'Description' must not be empty.")
  if (typeof body.amount !== "number" || body.amount < 0) add("amount", "'Amount' must be a positive number.")
  if (body.weight !== undefined && !(isRecord(body.weight) && typeof body.weight.weight === "number")) {
    add("weight.weight", "'Weight' must be a number.")
  }
  if (body.stateId !== undefined && !(typeof body.stateId === "string" && states.has(body.stateId))) {
    add("stateId", "State not found.")
  }
  return { errors, city }
}

const searchBodyProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return "A search body is required."
  if (!Number.isInteger(body.pageNumber) || (body.pageNumber as number) < 1) return "'Page Number' must be at least 1."
  if (!Number.isInteger(body.pageSize) || (body.pageSize as number) < 1) return "'Page Size' must be at least 1."
  return undefined
}

const page = <A>(items: ReadonlyArray<A>, body: Record<string, unknown>, maxPageSize: number) => {
  const size = Math.min(body.pageSize as number, maxPageSize)
  const number = body.pageNumber as number
  const totalPages = Math.max(1, Math.ceil(items.length / size))
  return {
    items: items.slice((number - 1) * size, number * size),
    pageNumber: number,
    pageSize: size,
    totalCount: items.length,
    totalPages,
    hasPrevious: number > 1,
    hasNext: number < totalPages
  }
}

const start = (options: Options) =>
  Effect.gen(function* () {
    const accounts = options.accounts ?? [ACCOUNT]
    const maxPageSize = options.maxPageSize ?? 1000
    const stateNames = options.states ?? STATES
    const states = new Map(stateNames.map((name) => [stateId(name), name]))
    const parcels = new Map<string, Parcel>()
    /** Milliseconds since the epoch; each stamped state moves it on by 250 ms, as time passes between real changes. */
    let clock = Date.parse("2026-04-18T18:45:06.100Z")
    const stamp = () => {
      const at = `${new Date(clock).toISOString().slice(0, -1)}0000Z`
      clock += 250
      return at
    }
    let issued = 0
    const byTracking = (trackingNumber: string) =>
      [...parcels.values()].find((parcel) => parcel.trackingNumber === trackingNumber)

    const moveTo = (parcel: Parcel, name: string) => {
      parcel.state = name
      parcel.history.push({
        id: uuidOf(`history:${parcel.id}:${parcel.history.length}`),
        stateName: name,
        stateDate: stamp()
      })
    }

    const view = (parcel: Parcel) => ({
      id: parcel.id,
      trackingNumber: parcel.trackingNumber,
      externalId: parcel.body.externalId ?? null,
      amount: parcel.body.amount,
      deliveryType: parcel.body.deliveryType,
      customer: parcel.body.customer,
      deliveryAddress: parcel.body.deliveryAddress,
      state: { id: stateId(parcel.state), name: parcel.state },
      situation: null,
      createdAt: parcel.history[0]?.stateDate,
      lastStateUpdateAt: parcel.history.at(-1)?.stateDate
    })

    /** ZR's own misbehaviours, and its text/plain 429. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "rateLimited":
          response.writeHead(429, {
            "content-type": "text/plain",
            ...(misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter })
          })
          response.end("Too many requests. Please try again later.")
          return true
        case "refuse":
          problem(response, 422, "Unprocessable", { detail: misbehaviour.detail })
          return true
        case "echoToken":
          problem(response, 400, "Bad Request", {
            detail: `The API key '${request.headers["x-api-key"] ?? ""}' may not do this.`
          })
          return true
        default:
          return false
      }
    }

    const route = (method: string, path: string, body: unknown, response: Http.ServerResponse) => {
      const notAllowed = () => problem(response, 405, "Method Not Allowed")
      if (path === "/api/v1/territories/search") {
        if (method !== "POST") return notAllowed()
        const wrong = searchBodyProblem(body)
        if (wrong !== undefined) return problem(response, 400, "Bad Request", { errors: { body: [wrong] } })
        const search = body as Record<string, unknown>
        const filter = isRecord(search.advancedFilter) ? search.advancedFilter : { filters: [] }
        const filters = Array.isArray(filter.filters) ? filter.filters : []
        let items = TERRITORIES.slice()
        for (const condition of filters) {
          const field = isRecord(condition) ? condition.field : undefined
          if (
            !isRecord(condition) ||
            condition.operator !== "eq" ||
            !["level", "parentId", "name", "code"].includes(String(field))
          ) {
            return problem(response, 400, "Bad Request", { errors: { advancedFilter: ["Unsupported filter."] } })
          }
          items = items.filter((t) => String(t[field as keyof Territory]) === String(condition.value))
        }
        return json(response, 200, page(items, search, maxPageSize))
      }
      if (path === "/api/v1/workflows/search") {
        if (method !== "POST") return notAllowed()
        const wrong = searchBodyProblem(body)
        if (wrong !== undefined) return problem(response, 400, "Bad Request", { errors: { body: [wrong] } })
        const workflow = {
          id: uuidOf("workflow:parcels"),
          name: "Parcel workflow",
          states: stateNames.map((name, index) => ({ id: stateId(name), name, order: index }))
        }
        return json(response, 200, page([workflow], body as Record<string, unknown>, maxPageSize))
      }
      if (path === "/api/v1/hubs/search") {
        if (method !== "POST") return notAllowed()
        const wrong = searchBodyProblem(body)
        if (wrong !== undefined) return problem(response, 400, "Bad Request", { errors: { body: [wrong] } })
        const hubs = HUBS.map((hub, index) => ({
          id: hub.id,
          name: hub.name,
          type: hub.isPickupPoint ? "pickup-point" : "hub",
          isPickupPoint: hub.isPickupPoint,
          address: {
            street: `${index + 1} boulevard de l'ALN`,
            city: wilayaName(hub.wilaya),
            district: hub.commune,
            cityTerritoryId: wilayaId(hub.wilaya),
            districtTerritoryId: communeId(hub.wilaya, hub.commune),
            coordinates: { lat: 36.7, lng: 3.2 }
          },
          phone: { number1: `+21355000000${index}`, number2: null, number3: null },
          openingHours: "08:00-17:00"
        }))
        return json(response, 200, page(hubs, body as Record<string, unknown>, maxPageSize))
      }
      if (path === "/api/v1/delivery-pricing/rates") {
        if (method !== "GET") return notAllowed()
        const served = Array.from({ length: 58 }, (_, i) => i + 1).filter((code) => !UNSERVED.includes(code))
        const prices = ([home, desk, back]: readonly [number, number | null, number], discountedHome?: number) => [
          { deliveryType: "home", price: home, discountedPrice: discountedHome ?? null },
          ...(desk === null ? [] : [{ deliveryType: "pickup-point", price: desk }]),
          { deliveryType: "return", price: back }
        ]
        return json(response, 200, {
          rates: [
            ...served.map((code) => ({
              toTerritoryId: wilayaId(code),
              toTerritoryCode: code,
              toTerritoryName: wilayaName(code),
              toTerritoryNameArabic: null,
              toTerritoryLevel: "wilaya",
              deliveryPrices: prices(tariff(code), code === 16 ? DISCOUNTED_HOME_16 : undefined)
            })),
            {
              toTerritoryId: communeId(16, "Bab Ezzouar"),
              toTerritoryCode: 1602,
              toTerritoryName: "Bab Ezzouar",
              toTerritoryLevel: "commune",
              deliveryPrices: prices(BAB_EZZOUAR_TARIFF)
            }
          ]
        })
      }
      if (path === "/api/v1/parcels") {
        if (method !== "POST") return notAllowed()
        if (!isRecord(body)) return problem(response, 400, "Bad Request", { errors: { body: ["A body is required."] } })
        const { errors, city } = validateCreate(body, states)
        if (Object.keys(errors).length > 0) {
          return problem(response, 400, "One or more validation errors occurred.", { errors })
        }
        if (city !== undefined && UNSERVED.includes(city.code)) {
          return problem(response, 422, "Delivery unavailable", {
            detail: "La livraison n'est pas disponible vers cette destination."
          })
        }
        issued += 1
        const id = uuidOf(`parcel:${issued}:${clock}`)
        const trackingNumber = `${String(city?.code ?? 0).padStart(2, "0")}-${issued.toString(36).toUpperCase().padStart(6, "0")}-ZR`
        const parcel: Parcel = { id, trackingNumber, body, state: "", history: [] }
        const asked = typeof body.stateId === "string" ? states.get(body.stateId) : undefined
        // Created in the workflow's first state (OrderReceived; commande_recue in the default workflow).
        moveTo(parcel, options.createHonoursStateId === true && asked !== undefined ? asked : stateNames[0]!)
        parcels.set(id, parcel)
        return json(response, 201, { id })
      }
      // Labels: a file per parcel (`parcelLabelFiles`), a number it cannot label listed in `failedTrackingNumbers`
      // (integrators' code against the live API: `parcelLabelFiles[0].fileUrl`, then the PDF at that link).
      if (path === "/api/v1/parcels/labels/individual/pdf") {
        if (method !== "POST") return notAllowed()
        const asked = isRecord(body) && Array.isArray(body.trackingNumbers) ? body.trackingNumbers : undefined
        if (asked === undefined || asked.length === 0 || !asked.every((item) => typeof item === "string")) {
          return problem(response, 400, "One or more validation errors occurred.", {
            errors: { trackingNumbers: ["'Tracking Numbers' must not be empty."] }
          })
        }
        const known = (asked as ReadonlyArray<string>).filter((tracking) => byTracking(tracking) !== undefined)
        return json(response, 200, {
          parcelLabelFiles: known.map((tracking) => ({
            trackingNumber: tracking,
            fileUrl:
              `https://${LABEL_HOST}/labels/${encodeURIComponent(tracking)}.pdf` +
              `?sv=2024-08-04&se=2026-04-18T19%3A00%3A00Z&sr=b&sp=r&sig=${LABEL_SIGNATURE}`
          })),
          failedTrackingNumbers: (asked as ReadonlyArray<string>).filter((tracking) => !known.includes(tracking))
        })
      }
      const one = /^\/api\/v1\/parcels\/([^/]+)(\/state|\/state-history)?$/.exec(path)
      if (one !== null) {
        const reference = decodeURIComponent(one[1]!)
        const parcel = isUuid(reference) ? parcels.get(reference) : byTracking(reference)
        const notFound = () => problem(response, 404, "Not Found", { detail: "Parcel not found." })
        if (one[2] === undefined && method === "DELETE") {
          if (parcel === undefined || !isUuid(reference)) return notFound()
          if (STATES.indexOf(parcel.state) > STATES.indexOf(LAST_DELETABLE) || !STATES.includes(parcel.state)) {
            return problem(response, 409, "Conflict", {
              detail: `Le colis ne peut plus être supprimé : il est à l'état ${parcel.state}.`
            })
          }
          parcels.delete(parcel.id)
          response.writeHead(204)
          response.end()
          return
        }
        if (one[2] === undefined) {
          if (method !== "GET") return notAllowed()
          return parcel === undefined ? notFound() : json(response, 200, view(parcel))
        }
        if (one[2] === "/state-history") {
          if (method !== "GET") return notAllowed()
          if (parcel === undefined || !isUuid(reference)) return notFound()
          const stateObject = (name: string) => ({
            id: stateId(name),
            name,
            description: name,
            isBlocking: false,
            isLocked: false,
            visibleFor: 0,
            editableBy: 0,
            color: "#388e3c"
          })
          return json(
            response,
            200,
            parcel.history
              .map((row, index) => ({
                id: row.id,
                createdAt: row.stateDate,
                previousState: index === 0 ? null : stateObject(parcel.history[index - 1]!.stateName),
                newState: stateObject(row.stateName),
                modifiedBy: { id: uuidOf("user:supplier"), fullName: "Boutique Test" },
                location: null,
                comment: null,
                situations: []
              }))
              .reverse()
          )
        }
        if (method !== "PATCH") return notAllowed()
        if (parcel === undefined || !isUuid(reference)) return notFound()
        const update = isRecord(body) ? body : {}
        const target = typeof update.newStateId === "string" ? states.get(update.newStateId) : undefined
        if (update.parcelId !== reference || target === undefined) {
          return problem(response, 400, "One or more validation errors occurred.", {
            errors: {
              ...(update.parcelId === reference ? {} : { parcelId: ["'Parcel Id' must match the route."] }),
              ...(target === undefined ? { newStateId: ["State not found."] } : {})
            }
          })
        }
        moveTo(parcel, target)
        return json(response, 200, {
          parcelId: parcel.id,
          newStateId: stateId(target),
          newStateName: target,
          trackingNumber: parcel.trackingNumber
        })
      }
      return problem(response, 404, "Not Found")
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (status, message) =>
        status >= 500
          ? problemOf(status, "An error occurred while processing your request.")
          : problemOf(status, message),
      misbehave,
      handle: ({ body, headers, method, path, query }, response) => {
        // The storage host's label files: signed links, no ZR headers (Azure answers its XML error otherwise).
        const file = /^\/labels\/([^/]+)\.pdf$/.exec(path)
        if (file !== null) {
          const parcel = byTracking(decodeURIComponent(file[1]!))
          if (method !== "GET" || query.sig !== LABEL_SIGNATURE || parcel === undefined) {
            response.writeHead(query.sig === LABEL_SIGNATURE ? 404 : 403, { "content-type": "application/xml" })
            return response.end(
              query.sig === LABEL_SIGNATURE
                ? '<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobNotFound</Code></Error>'
                : '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>'
            )
          }
          response.writeHead(200, { "content-type": "application/pdf" })
          return response.end(`%PDF-1.4\n% ZR Express label ${parcel.trackingNumber}\n%%EOF\n`)
        }
        const known = accounts.some(
          (account) => account.tenantId === headers["x-tenant"] && account.apiKey === headers["x-api-key"]
        )
        if (!known) return problem(response, 401, "Unauthorized")
        return route(method, path, body, response)
      }
    })
    const zr: Fake = {
      ...fake,
      parcels,
      byTracking,
      addState: (trackingNumber, name) => {
        const parcel = byTracking(trackingNumber)
        if (parcel !== undefined) moveTo(parcel, name)
      },
      setClock: (at) => {
        clock = Date.parse(at)
      }
    }
    return zr
  })
