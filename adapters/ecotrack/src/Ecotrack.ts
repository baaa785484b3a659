/**
 * The Ecotrack platform: one API (`/api/v1/…`) behind many couriers, each a tenant on its own origin. The generic
 * key `ecotrack` serves any `https://<tenant>.ecotrack.dz` the caller names in `options.baseUrl`; named tenants have
 * pinned origins. A parcel is created in two calls — `create/order`, then `valid/order`, without which the courier
 * never sees it. The caller's API token travels as `Authorization: Bearer` and as the `api_token` query parameter
 * on every call (some endpoints read only the latter), and is never put in an error message.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Effect, Redacted, Schema } from "effect"
import * as Mapping from "./EcotrackMapping.ts"
import * as Status from "./EcotrackStatus.ts"

/**
 * The caller's Ecotrack API token. No length is documented (Laravel tokens are usually 60 characters): 10–512
 * visible ASCII characters, so that it can only ever be one header value.
 */
export const Credentials = Schema.Struct({
  token: Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(10, 512, { message: "Expected an Ecotrack API token of 10 to 512 characters" }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: "Expected an Ecotrack API token without spaces or control characters"
      })
    )
  )
})
export type Credentials = typeof Credentials.Type

/** The tenant domain of the generic `ecotrack` key (the core checks `options.baseUrl` against it). */
export const tenantDomain = "ecotrack.dz"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "ecotrack", name: "Ecotrack (any tenant)", aliases: [], endpoint: { tenantDomain } },
  { key: "conexlog", name: "Conexlog", aliases: [], endpoint: { origin: "https://app.conexlog-dz.com" } },
  { key: "dhd", name: "DHD", aliases: [], endpoint: { origin: "https://platform.dhd-dz.com" } },
  { key: "msm_go", name: "MSM Go", aliases: ["msmgo"], endpoint: { origin: "https://msmgo.ecotrack.dz" } },
  {
    key: "rocket_delivery",
    name: "Rocket Delivery",
    aliases: ["rocket"],
    endpoint: { origin: "https://rocket.ecotrack.dz" }
  },
  {
    key: "worldexpress",
    name: "WorldExpress",
    aliases: ["world_express"],
    endpoint: { origin: "https://worldexpress.ecotrack.dz" }
  }
]

/**
 * One call to the courier, authenticated both ways Ecotrack reads a token. An answer that echoes the token (a debug
 * page quoting the request URL) reaches the mapping with it blanked out by the core.
 */
const send = (token: Redacted.Redacted<string>, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      query: { ...request.query, api_token: Redacted.value(token) },
      // Without `accept: application/json` Laravel answers validation errors with a redirect to an HTML page.
      headers: { accept: "application/json", authorization: `Bearer ${Redacted.value(token)}` }
    })
  )

export const create = Effect.fn("Ecotrack.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const created = yield* send(credentials.token, {
    method: "POST",
    path: "/api/v1/create/order",
    json: Mapping.toCreateOrder(order)
  })
  const tracking = yield* Effect.fromResult(Mapping.fromCreated(created))
  yield* send(credentials.token, {
    method: "POST",
    path: "/api/v1/valid/order",
    query: Mapping.validationQuery(tracking)
  }).pipe(
    Effect.flatMap((validated) => Effect.fromResult(Mapping.fromValidated(validated))),
    Effect.mapError((reason) => Mapping.notValidated(tracking, reason))
  )
  return { trackingNumber: tracking, rawStatus: Status.validated }
})

export const track = Effect.fn("Ecotrack.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/tracking/info",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromTracking(response))
})

export const rates = Effect.fn("Ecotrack.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkTier(query))
  const response = yield* send(credentials.token, { method: "GET", path: "/api/v1/get/fees" })
  return yield* Effect.fromResult(Mapping.fromFees(query, response))
})

export const label = Effect.fn("Ecotrack.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials.token, {
    method: "GET",
    path: "/api/v1/get/order/label",
    query: { tracking: trackingNumber }
  })
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "ecotrack",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  codStatuses: Status.codStatuses,
  operations: { create, track, rates, label }
})
