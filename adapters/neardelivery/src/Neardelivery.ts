/**
 * The Near Delivery courier adapter: the manifest (couriers, credentials, status tables, rate limits) and the
 * operations. Operations reach the courier only through `CourierHttp`, with paths relative to the origin the core
 * pins; they never build a URL and never call `fetch`. The pure mapping is in `NeardeliveryMapping.ts`.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Effect, Redacted, Schema } from "effect"
import * as Mapping from "./NeardeliveryMapping.ts"
import * as Status from "./NeardeliveryStatus.ts"

/** The caller's credentials: one API token, 8–512 visible ASCII characters (one header value, nothing more). */
export const Credentials = Schema.Struct({
  apiToken: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 512, { message: "Expected an API token of 8 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, { message: "Expected an API token without spaces or control characters" })
    )
  )
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.neardelivery.example"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "neardelivery", name: "Near Delivery", aliases: [], endpoint: { origin } }
]

/** One call with the caller's token as `Authorization: Bearer`. */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: { accept: "application/json", authorization: `Bearer ${Redacted.value(credentials.apiToken)}` }
    })
  )

export const create = Effect.fn("Neardelivery.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/v1/parcels",
    json: Mapping.toCreateParcel(order)
  })
  return yield* Effect.fromResult(Mapping.fromCreated(response))
})

export const track = Effect.fn("Neardelivery.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: `/v1/parcels/${encodeURIComponent(trackingNumber)}/events`
  })
  return yield* Effect.fromResult(Mapping.fromEvents(response))
})

export const rates = Effect.fn("Neardelivery.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/v1/rates", query: Mapping.toRatesQuery(query) })
  return yield* Effect.fromResult(Mapping.fromRates(query, response))
})

export const label = Effect.fn("Neardelivery.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: `/v1/parcels/${encodeURIComponent(trackingNumber)}/label`
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/** The courier's documented limit per account; the core counts every request and holds back one past it. */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "neardelivery",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  rateLimits,
  operations: { create, track, rates, label }
})
