/**
 * NOEST Express: one courier on its own Laravel API (`https://app.noest-dz.com/api/public/…`), built on the
 * Ecotrack-style API but with its own host, paths and credentials. A parcel is created in two calls —
 * `create/order`, then `valid/order`, without which NOEST never sees it. Its event feed mixes movement, cash and
 * admin edits: cash events are read apart through `codStatuses`, admin edits are dropped, so neither moves a parcel.
 * The caller's API token and user GUID travel as the documented `api_token` + `user_guid` (in the body of a POST,
 * the query of a GET), the token also as `Authorization: Bearer`; neither is ever put in an error message. A parcel
 * can be held undispatched (created, not validated) and dispatched later; until then NOEST deletes it (`cancel`).
 */
import { CourierAdapter, type CourierError, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Redacted, Result, Schema } from "effect"
import * as Mapping from "./NoestMapping.ts"
import * as Status from "./NoestStatus.ts"
import type * as Wire from "./NoestWire.ts"

const visible = (name: string, minimum: number, maximum: number) =>
  Schema.String.check(
    Schema.isBetweenLength(minimum, maximum, {
      message: `Expected a NOEST ${name} of ${minimum} to ${maximum} characters`
    }),
    Schema.isPattern(/^[\x21-\x7e]+$/, { message: `Expected a NOEST ${name} without spaces or control characters` })
  )

/**
 * The caller's NOEST credentials, as the dzship catalogue names them: `apiToken` (NOEST's `api_token`) and `guid`
 * (its `user_guid`), both "fournis par NOEST". No length is documented: 10–512 and 4–128 visible ASCII characters,
 * so that each can only ever be one header or field value.
 */
export const Credentials = Schema.Struct({
  apiToken: Schema.RedactedFromValue(visible("API token", 10, 512)),
  guid: Schema.RedactedFromValue(visible("user GUID", 4, 128))
})
export type Credentials = typeof Credentials.Type

export const origin = "https://app.noest-dz.com"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "noest", name: "NOEST Express", aliases: ["noest_express", "nord_ouest"], endpoint: { origin } }
]

/** A call as the operations name it: a POST's fields go in its JSON body, a GET's in its query. */
type NoestRequest =
  | {
      readonly method: "POST"
      readonly path: `/${string}`
      readonly body: Readonly<Record<string, unknown>>
    }
  | {
      readonly method: "GET"
      readonly path: `/${string}`
      readonly query?: Readonly<Record<string, string>>
    }

/**
 * One call to NOEST with the caller's credentials: `api_token` + `user_guid` in the JSON body of a POST or the
 * query of a GET, and the token as `Authorization: Bearer` too (both readings of §6 Q9 at once). The core blanks
 * either secret out of any answer that echoes it.
 */
const send = (credentials: Credentials, request: NoestRequest) => {
  const auth: Wire.Auth = {
    api_token: Redacted.value(credentials.apiToken),
    user_guid: Redacted.value(credentials.guid)
  }
  // Without `accept: application/json` Laravel answers validation errors with a redirect to an HTML page.
  const headers = { accept: "application/json", authorization: `Bearer ${auth.api_token}` }
  return Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request(
      request.method === "GET"
        ? { method: "GET", path: request.path, query: { ...request.query, ...auth }, headers }
        : { method: "POST", path: request.path, json: { ...auth, ...request.body }, headers }
    )
  )
}

/** `POST valid/order`: the parcel becomes visible to NOEST, which can no longer edit or delete it. */
const validate = (credentials: Credentials, tracking: string) =>
  send(credentials, { method: "POST", path: "/api/public/valid/order", body: Mapping.validationBody(tracking) }).pipe(
    Effect.flatMap((validated) => Effect.fromResult(Mapping.fromValidated(validated)))
  )

/** `create/order`, then `valid/order` — unless held undispatched (`dispatch: false`): then created only (`upload`). */
export const create = Effect.fn("Noest.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials, dispatch: dispatchNow }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkOrder(order))
  const created = yield* send(credentials, {
    method: "POST",
    path: "/api/public/create/order",
    body: Mapping.toCreateOrder(order)
  })
  const tracking = yield* Effect.fromResult(Mapping.fromCreated(created))
  if (dispatchNow === false) return { trackingNumber: tracking, rawStatus: Status.uploaded }
  yield* validate(credentials, tracking).pipe(Effect.mapError((reason) => Mapping.notValidated(tracking, reason)))
  return { trackingNumber: tracking, rawStatus: Status.validated }
})

/**
 * `POST create/orders` with every order NOEST would take (one request against the account's 60 a minute), then
 * `valid/order` for each parcel it made, four at a time, as `create` validates its one: a parcel made but not
 * validated is refused naming it. An order NOEST refuses, or one `create` would refuse first (a short reference), is
 * refused alone.
 */
export const createBatch = Effect.fn("Noest.createBatch")(function* (
  orders: ReadonlyArray<Shipment.ParcelOrder>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const checked = orders.map((order) => ({ order, check: Mapping.checkOrder(order) }))
  const toSend = checked.flatMap(({ order, check }) => (Result.isSuccess(check) ? [order] : []))
  const created =
    toSend.length === 0
      ? []
      : yield* Effect.fromResult(
          Mapping.fromCreatedBatch(
            toSend.map((order) => order.reference ?? ""),
            yield* send(credentials, {
              method: "POST",
              path: "/api/public/create/orders",
              body: Mapping.toCreateOrders(toSend)
            })
          )
        )
  let next = 0
  return yield* Effect.forEach(
    checked,
    ({
      check
    }): Effect.Effect<
      Result.Result<CourierAdapter.CreatedParcel, CourierError.CourierErrorReason>,
      never,
      CourierHttp.CourierHttp
    > => {
      if (Result.isFailure(check)) return Effect.succeed(Result.fail(check.failure))
      const result = created[next++]!
      if (Result.isFailure(result)) return Effect.succeed(Result.fail(result.failure))
      return validate(credentials, result.success).pipe(
        Effect.mapError((reason) => Mapping.notValidated(result.success, reason)),
        Effect.as({ trackingNumber: result.success, rawStatus: Status.validated }),
        Effect.result
      )
    },
    { concurrency: 4 }
  )
})

/** `POST valid/order` of a parcel held undispatched; one validated already is refused in NOEST's words. */
export const dispatch = Effect.fn("Noest.dispatch")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* validate(credentials, trackingNumber)
  return { rawStatus: Status.validated }
})

/**
 * `POST delete/order { tracking }`: NOEST deletes a parcel only before `valid/order` — one held undispatched. When it
 * refuses, the parcel's events say why: past `upload` it is validated, `NotCancellable`; else the refusal as is.
 */
export const cancel = Effect.fn("Noest.cancel")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api/public/delete/order",
    body: Mapping.validationBody(trackingNumber)
  })
  const deleted = Mapping.fromDeleted(response)
  if (Result.isSuccess(deleted)) return
  if (deleted.failure._tag !== "Refused") return yield* Effect.fail(deleted.failure)
  const tracked = yield* send(credentials, {
    method: "POST",
    path: "/api/public/get/trackings/info",
    body: Mapping.trackingBody(trackingNumber)
  })
  const events = yield* Effect.fromResult(Mapping.fromTracking(trackingNumber, tracked))
  return yield* Effect.fail(Mapping.whyNotDeleted(events, deleted.failure))
})

export const track = Effect.fn("Noest.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api/public/get/trackings/info",
    body: Mapping.trackingBody(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromTracking(trackingNumber, response))
})

export const rates = Effect.fn("Noest.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials, { method: "GET", path: "/api/public/fees" })
  return yield* Effect.fromResult(Mapping.fromFees(query, response))
})

export const label = Effect.fn("Noest.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: "/api/public/get/order/label",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/**
 * Up to 100 parcels in one `POST get/trackings/info { trackings: […] }`, the call `track` makes for one: the events
 * of each number NOEST returns; a number it does not know is left out. None asked: nothing to send.
 */
export const trackBatch = Effect.fn("Noest.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  if (trackingNumbers.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api/public/get/trackings/info",
    body: Mapping.batchTrackingBody(trackingNumbers)
  })
  return yield* Effect.fromResult(Mapping.fromTrackingBatch(trackingNumbers, response))
})

/** `GET desks` (the whole network, keyed by station code) → the desks of one wilaya. */
const desksOf = (wilaya: WilayaCode.WilayaCode, credentials: Credentials) =>
  Effect.flatMap(send(credentials, { method: "GET", path: "/api/public/desks" }), (response) =>
    Effect.fromResult(Mapping.fromDesks(wilaya, response))
  )

export const stopDesks = Effect.fn("Noest.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  return yield* desksOf(wilaya, credentials)
})

/** `GET get/communes/{wilaya}`, then `GET desks` to say which communes have a desk: two calls. */
export const communes = Effect.fn("Noest.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: `/api/public/get/communes/${wilaya}` })
  const desks = yield* desksOf(wilaya, credentials)
  return yield* Effect.fromResult(Mapping.fromCommunes(response, desks))
})

/** `GET get/wilayas`, the smallest read NOEST documents (courier-dz's credentials test); creates nothing. */
export const checkCredentials = Effect.fn("Noest.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/api/public/get/wilayas" })
  return yield* Effect.fromResult(Mapping.fromWilayas(response))
})

/**
 * The documented limit of every account, 60 requests a minute (one source, which adds that NOEST answers 429 at once
 * past it: README "Unverified"). Counted per account by the core, which waits or refuses before NOEST does.
 */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "noest",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  rateLimits,
  operations: {
    create,
    createBatch,
    dispatch,
    track,
    rates,
    label,
    cancel,
    trackBatch,
    stopDesks,
    communes,
    checkCredentials
  }
})
