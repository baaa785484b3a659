/**
 * The E-COM Delivery platform (`https://ecom-dz.net/Api_v1/…`): a Procolis-like API with PascalCase French fields,
 * one origin, the merchant's key and token picking the account. A parcel is created with `POST Colis` ("En
 * Préparation", still editable) and then marked ready to ship with `PUT aExpédier` ("En Traitement"), which the
 * courier needs before it collects; held undispatched, it is shipped later by `dispatch`. Tracking reads the parcel's current state (`Colis/Tracking/{t}`), prices come
 * from `Tarification`. E-COM has no label endpoint. The key and token travel as headers and never in an error.
 *
 * E-COM's page also documents `PUT Supprimer` (deletes parcels: `cancel`, before collection), `POST Colis/Liste`
 * (up to 100 trackings: `trackBatch`) and `GET Test` (the connection test: `checkCredentials`). It documents no list
 * of stop desks or communes: `stopDesks` and `communes` are left out.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Effect, Redacted, Schema } from "effect"
import * as Mapping from "./EcomDeliveryMapping.ts"
import * as Status from "./EcomDeliveryStatus.ts"

const secret = (name: string) =>
  Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: `Expected an E-COM API ${name} of 8 to 512 characters` }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: `Expected an E-COM API ${name} without spaces or control characters`
      })
    )
  )

/**
 * The merchant's E-COM API key and token (the "API" page of the E-COM dashboard), named as the public dzship client
 * names them: `apiKey` travels as the `Key` header, `apiToken` as `Token`. No length is documented (E-COM shows a
 * 32-hex-digit key and a UUID token): 8–512 visible ASCII characters, so that each can only ever be one header value.
 */
export const Credentials = Schema.Struct({ apiKey: secret("key"), apiToken: secret("token") })
export type Credentials = typeof Credentials.Type

export const origin = "https://ecom-dz.net"

/** dzship's key, and courier-dz's id as an alias. */
export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "ecomdelivery", name: "E-COM Delivery", aliases: ["ecom_delivery"], endpoint: { origin } }
]

/**
 * E-COM's quota per account, as its API page states it: 40 requests a minute, 1 500 an hour, 15 000 a day (the page
 * shows one account at 50 / 2 000 / 20 000: limits vary per account, so the lowest documented ones are declared).
 */
export const rateLimits = [
  { limit: 40, window: "1 minute" },
  { limit: 1500, window: "1 hour" },
  { limit: 15000, window: "1 day" }
] as const

/**
 * Whether `create` also marks the parcel ready to ship (`aExpédier`), as the courier needs before it collects it.
 * The README lists this under "Unverified".
 */
export const SHIP_ON_CREATE = true

/** `aExpédier` as a path: the accent percent-encoded, as any HTTP client sends it. */
export const SHIP_PATH = `/Api_v1/${encodeURIComponent("aExpédier")}` as const

/** One call to the courier with the `Key` and `Token` headers (the core blanks them out of any answer that echoes them). */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        ...request.headers,
        accept: "application/json",
        Key: Redacted.value(credentials.apiKey),
        Token: Redacted.value(credentials.apiToken)
      }
    })
  )

/** `PUT aExpédier { Colis: [{ Tracking }] }`: the parcel is ready for the courier to collect. */
const ship = (credentials: Credentials, tracking: string) =>
  send(credentials, { method: "PUT", path: SHIP_PATH, json: Mapping.trackingList(tracking) }).pipe(
    Effect.flatMap((shipped) => Effect.fromResult(Mapping.fromShipped(shipped)))
  )

/**
 * The create flow: `POST Colis`, then `aExpédier` when {@link SHIP_ON_CREATE} — unless the parcel is held
 * undispatched (`dispatch: false`), to be shipped by `dispatch` later.
 */
export const createWith = (options: { readonly shipOnCreate: boolean }) =>
  Effect.fn("EcomDelivery.create")(function* (
    order: Shipment.ParcelOrder,
    { credentials, dispatch: dispatchNow }: CourierAdapter.Context<Credentials>
  ) {
    const response = yield* send(credentials, {
      method: "POST",
      path: "/Api_v1/Colis",
      json: Mapping.toAddColis(Mapping.toColis(order))
    })
    const created = yield* Effect.fromResult(Mapping.fromCreated(response))
    if (!options.shipOnCreate || dispatchNow === false) return created
    yield* ship(credentials, created.trackingNumber).pipe(
      Effect.mapError((reason) => Mapping.notShipped(created.trackingNumber, reason))
    )
    return { trackingNumber: created.trackingNumber, rawStatus: Status.shipped }
  })

export const create = createWith({ shipOnCreate: SHIP_ON_CREATE })

/**
 * A parcel held undispatched, shipped (`aExpédier`) so that E-COM collects it: read first (`Colis/Tracking/{t}`);
 * one already past "En Préparation" answers where it is and is not sent again.
 */
export const dispatch = Effect.fn("EcomDelivery.dispatch")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const state = yield* send(credentials, {
    method: "GET",
    path: `/Api_v1/Colis/Tracking/${encodeURIComponent(trackingNumber)}`
  })
  const step = yield* Effect.fromResult(Mapping.dispatchStep(trackingNumber, state))
  if (step !== "ship") return step
  yield* ship(credentials, trackingNumber)
  return { rawStatus: Status.shipped }
})

export const track = Effect.fn("EcomDelivery.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: `/Api_v1/Colis/Tracking/${encodeURIComponent(trackingNumber)}`
  })
  return yield* Effect.fromResult(Mapping.fromTracking(trackingNumber, response))
})

export const rates = Effect.fn("EcomDelivery.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials, { method: "GET", path: "/Api_v1/Tarification" })
  return yield* Effect.fromResult(Mapping.fromTarification(query, response))
})

/** `PUT Supprimer` as a path. */
export const DELETE_PATH = "/Api_v1/Supprimer"

/** `POST Colis/Liste` as a path. */
export const LIST_PATH = "/Api_v1/Colis/Liste"

/** How many pages of one `Colis/Liste` answer are read at most (100 trackings fit in far fewer). */
export const MAX_LIST_PAGES = 10

/**
 * Deletes a parcel: `GET Colis/Tracking/{t}` first — unknown is refused, one past preparation is `NotCancellable`
 * with where E-COM reports it — then `PUT Supprimer { Colis: [{ Tracking }] }`. A refusal of the delete itself is
 * passed on in E-COM's words.
 */
export const cancel = Effect.fn("EcomDelivery.cancel")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const state = yield* send(credentials, {
    method: "GET",
    path: `/Api_v1/Colis/Tracking/${encodeURIComponent(trackingNumber)}`
  })
  yield* Effect.fromResult(Mapping.checkDeletable(trackingNumber, state))
  const response = yield* send(credentials, {
    method: "PUT",
    path: DELETE_PATH,
    json: Mapping.trackingList(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromDeleted(response))
})

/**
 * Up to 100 parcels in one `POST Colis/Liste { Colis: [{ Tracking }, …] }`, page by page (the `Page` header) while
 * E-COM says there are more: the events of each number it returns; one it does not know is left out.
 */
export const trackBatch = Effect.fn("EcomDelivery.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const found = new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  if (trackingNumbers.length === 0) return found
  const body = Mapping.trackingsList(trackingNumbers)
  for (let page = 1; page <= MAX_LIST_PAGES; page++) {
    const response = yield* send(credentials, {
      method: "POST",
      path: LIST_PATH,
      headers: { Page: String(page) },
      json: body
    })
    const read = yield* Effect.fromResult(Mapping.fromListPage(trackingNumbers, response))
    for (const [tracking, events] of read.events) if (!found.has(tracking)) found.set(tracking, events)
    if (read.page >= read.pages) break
  }
  return found
})

/** `GET Test`, E-COM's own connection test: it reads the account, creates nothing. */
export const checkCredentials = Effect.fn("EcomDelivery.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's `Operation<void, …>`: the check takes no input
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/Api_v1/Test" })
  return yield* Effect.fromResult(Mapping.fromTest(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "ecomdelivery",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  rateLimits,
  operations: { create, dispatch, track, rates, cancel, trackBatch, checkCredentials }
})
