/**
 * Zimou Express: a delivery router on its own Laravel API (`https://zimou.express/api/v3/…`). It takes a parcel,
 * hands it to a partner courier (Yalidine, Maystro, DHD…) and answers both its own tracking code and the partner's;
 * every later call names the parcel by Zimou's code. It sells three services: `Express` and `Flexible` to the door
 * (the order's `tier`), and `Point relais` to an office (`stopDeskId`).
 *
 * Also: batch tracking (`packages/status` with several codes), cancel (`DELETE packages/bulk`, refused past pickup),
 * the relay points and communes of a wilaya (`helpers/offices`, `helpers/communes`) and the token check (`user`).
 *
 * The caller's token travels as `Authorization: Bearer` on every call, never anywhere else; it is never put in an
 * error message.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Redacted, Result, Schema } from "effect"
import * as Mapping from "./ZimouMapping.ts"
import * as Status from "./ZimouStatus.ts"

/**
 * The caller's Zimou credentials, as the dzship catalogue names them: one API `token` (Zimou's personal access token,
 * sent as Bearer). No length is documented: 8–512 visible ASCII characters, so that it can only ever be one header
 * value.
 */
export const Credentials = Schema.Struct({
  token: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: "Expected a Zimou API token of 8 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: "Expected a Zimou API token without spaces or control characters"
      })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://zimou.express"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "zimou", name: "Zimou Express", aliases: ["zimou_express"], endpoint: { origin } }
]

/**
 * One call with the caller's token as `Authorization: Bearer`. Without `accept: application/json` Laravel answers a
 * validation error or a missing token with a redirect to an HTML page instead of its JSON.
 */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: { accept: "application/json", authorization: `Bearer ${Redacted.value(credentials.token)}` }
    })
  )

export const create = Effect.fn("Zimou.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  // A desk order without its office is refused here, before anything is sent.
  const body = yield* Effect.fromResult(Mapping.toCreatePackage(order))
  const response = yield* send(credentials, { method: "POST", path: "/api/v3/packages", json: body })
  return yield* Effect.fromResult(Mapping.fromCreated(response))
})

export const track = Effect.fn("Zimou.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: "/api/v3/packages/status",
    query: Mapping.statusQuery(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromStatuses(trackingNumber, response))
})

export const rates = Effect.fn("Zimou.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/api/v3/my/prices" })
  return yield* Effect.fromResult(Mapping.fromPrices(query, response))
})

export const label = Effect.fn("Zimou.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/api/v3/packages/labels",
    json: Mapping.labelBody(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/**
 * `GET v3/packages/status` with up to 100 codes (courier-dz's `getOrders`): each known parcel's current status, keyed
 * by its code; a code Zimou does not know is left out.
 */
export const trackBatch = Effect.fn("Zimou.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  if (asked.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const response = yield* send(credentials, {
    method: "GET",
    path: "/api/v3/packages/status",
    query: Mapping.batchQuery(asked)
  })
  return yield* Effect.fromResult(Mapping.fromBatchStatuses(asked, response))
})

/**
 * `DELETE v3/packages/bulk { tracking_codes: [code] }` (courier-dz's `cancelOrder`). A refusal is told apart by the
 * parcel's status, read just after it ({@link Mapping.whyNotCancelled}): past pickup, it is `NotCancellable` in
 * Zimou's words; otherwise it stays what Zimou said.
 */
export const cancel = Effect.fn("Zimou.cancel")(function* (
  trackingNumber: string,
  context: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(context.credentials, {
    method: "DELETE",
    path: "/api/v3/packages/bulk",
    json: Mapping.bulkDeleteBody(trackingNumber)
  })
  const deleted = Mapping.fromDeleted(response)
  if (Result.isSuccess(deleted)) return
  if (deleted.failure._tag !== "Refused") return yield* Effect.fail(deleted.failure)
  const status = yield* Effect.result(track(trackingNumber, context))
  return yield* Effect.fail(Mapping.whyNotCancelled(deleted.failure, status))
})

/** Zimou's communes and its offices, every wilaya: an office names its commune only, so both are needed. */
const communesAndOffices = Effect.fnUntraced(function* (credentials: Credentials) {
  const communes = yield* Effect.fromResult(
    Mapping.fromCommunes(yield* send(credentials, { method: "GET", path: "/api/v3/helpers/communes" }))
  )
  const offices = yield* Effect.fromResult(
    Mapping.fromOffices(yield* send(credentials, { method: "GET", path: "/api/v3/helpers/offices" }))
  )
  return { communes, offices }
})

/** The relay points of a wilaya: `helpers/offices`, placed in the wilaya by their commune (`helpers/communes`). */
export const stopDesks = Effect.fn("Zimou.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const { communes, offices } = yield* communesAndOffices(credentials)
  return Mapping.desksIn(wilaya, communes, offices)
})

/** `helpers/communes` of a wilaya, in Zimou's spelling with its ids; a desk where `helpers/offices` has one. */
export const communes = Effect.fn("Zimou.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const listed = yield* communesAndOffices(credentials)
  return Mapping.communesIn(wilaya, listed.communes, listed.offices)
})

/** `GET v3/user`: the token's account, the read courier-dz and uften test a token with. Creates nothing. */
export const checkCredentials = Effect.fn("Zimou.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/api/v3/user" })
  return yield* Effect.fromResult(Mapping.fromUser(response))
})

/**
 * No source documents Zimou's limits. 60 requests a minute per account is a conservative guess: Laravel's default
 * API throttle (README "Unverified"). The core counts it per account and waits or refuses before Zimou would; Zimou's
 * own 429 is still read (`Retry-After`).
 */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "zimou",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  rateLimits,
  operations: { create, track, rates, label, cancel, trackBatch, stopDesks, communes, checkCredentials }
})
