/**
 * Near Delivery: one courier on its own API (`https://api.neardelivery.app/api/v1/sender/…`) whose parcels all go
 * to relay points, "buralists" (tobacco shops). A home delivery is refused before any request, naming the
 * relay-point rule and what to send instead (`NearDeliveryMapping.RELAY_POINT_ONLY`). The caller's API key and
 * secret travel as the `ApiKey` and `ApiSecret` headers of every call, and never in a URL or an error message.
 *
 * No label endpoint is documented in the research this adapter rests on, so `label` is left out: the host answers
 * it as unsupported, without a request (README "Unverified" names the endpoint two integrations call). Nor are a
 * cancel or a batch tracking endpoint: `cancel` and `trackBatch` are left out too. The reference lists are read:
 * `stopDesks` (the buralists), `communes` (`sender/wilayas`) and `checkCredentials` (`sender/centers`).
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Effect, Redacted, Schema } from "effect"
import * as Mapping from "./NearDeliveryMapping.ts"
import * as Status from "./NearDeliveryStatus.ts"

const visible = (name: string) =>
  Schema.String.check(
    Schema.isBetweenLength(8, 512, { message: `Expected a Near Delivery ${name} of 8 to 512 characters` }),
    Schema.isPattern(/^[\x21-\x7e]+$/, {
      message: `Expected a Near Delivery ${name} without spaces or control characters`
    })
  )

/**
 * The caller's Near Delivery credentials, as the dzship client names them: `apiKey` (the `ApiKey` header) and
 * `apiSecret` (`ApiSecret`). No length is documented: 8–512 visible ASCII characters each, so that each can only
 * ever be one header value.
 */
export const Credentials = Schema.Struct({
  apiKey: Schema.RedactedFromValue(visible("API key")),
  apiSecret: Schema.RedactedFromValue(visible("API secret"))
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.neardelivery.app"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "neardelivery", name: "Near Delivery", aliases: ["near_delivery"], endpoint: { origin } }
]

/** Every path is under the API's version prefix. */
const BASE = "/api/v1/sender"

/** One call with the caller's key and secret as the `ApiKey` and `ApiSecret` headers. */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept: "application/json",
        ApiKey: Redacted.value(credentials.apiKey),
        ApiSecret: Redacted.value(credentials.apiSecret)
      }
    })
  )

export const create = Effect.fn("NearDelivery.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  // The relay-point rule first: a home delivery (or a stop desk without a buralist) sends nothing.
  const body = yield* Effect.fromResult(Mapping.toCreateParcels(order))
  const response = yield* send(credentials, { method: "POST", path: `${BASE}/parcels`, json: body })
  return yield* Effect.fromResult(Mapping.fromCreated(response))
})

export const track = Effect.fn("NearDelivery.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "GET",
    path: `${BASE}/parcels/${encodeURIComponent(trackingNumber)}`
  })
  return yield* Effect.fromResult(Mapping.fromTracked(trackingNumber, response))
})

export const rates = Effect.fn("NearDelivery.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkRates(query))
  const response = yield* send(credentials, {
    method: "GET",
    path: `${BASE}/delivery-fees`,
    query: Mapping.feesQuery(query)
  })
  return yield* Effect.fromResult(Mapping.fromFees(query, query.fromWilaya ?? fromWilaya, response))
})

/** `GET sender/wilayas` → the communes of one wilaya, in Near Delivery's spelling. */
const communesOf = (wilaya: WilayaCode.WilayaCode, credentials: Credentials) =>
  Effect.flatMap(send(credentials, { method: "GET", path: `${BASE}/wilayas` }), (response) =>
    Effect.fromResult(Mapping.fromCommunes(wilaya, response))
  )

/**
 * The relay points of a wilaya: `GET sender/buralists` (the whole network, filtered here), then, when one of them
 * says its commune's code, `GET sender/wilayas` to name it — two calls at most, one for a wilaya without buralists.
 */
export const stopDesks = Effect.fn("NearDelivery.stopDesks")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: `${BASE}/buralists` })
  const buralists = yield* Effect.fromResult(Mapping.buralistsIn(wilaya, response))
  const communes = buralists.some((buralist) => buralist.commune_code !== undefined && buralist.commune_code !== null)
    ? yield* communesOf(wilaya, credentials)
    : []
  return Mapping.toStopDesks(wilaya, buralists, communes)
})

/** `GET sender/wilayas`: the wilaya's communes, each served through a relay point, none at the door. */
export const communes = Effect.fn("NearDelivery.communes")(function* (
  wilaya: WilayaCode.WilayaCode,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  return yield* communesOf(wilaya, credentials)
})

/** `GET sender/centers`, the shortest list the API has (the senders' centres); creates nothing. */
export const checkCredentials = Effect.fn("NearDelivery.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's `Operation<void, …>`: the check takes no input
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: `${BASE}/centers` })
  return yield* Effect.fromResult(Mapping.fromCenters(response))
})

/**
 * No documented limit (couriers.md says nothing). 45 requests a minute per account is a conservative guess — the
 * floor courier-dz applies to couriers without one — counted by the core, which waits or refuses before Near
 * Delivery would (README "Unverified").
 */
export const rateLimits = [{ limit: 45, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "neardelivery",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  rateLimits,
  operations: { create, track, rates, stopDesks, communes, checkCredentials }
})
