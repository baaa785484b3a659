/**
 * The Yalidine engine: one API (`/v1/…`) behind six courier networks — Yalidine, Yalitec, Guepex, Economiqua,
 * Easy & Speed and We Can — each on its own pinned origin, with its own accounts. Every request carries the
 * caller's `X-API-ID` and `X-API-TOKEN`. A parcel is created in one call (no follow-up step: it is "En préparation"
 * until the courier collects it), tracked by its history, priced per destination commune, and its label is the
 * PDF at `/labels/{tracking}`. The documented quotas (5 a second, 50 a minute, 1 000 an hour, 10 000 a day, per
 * account) are declared, for the core to enforce.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Clock, Effect, Redacted, Schema } from "effect"
import * as Mapping from "./YalidineMapping.ts"
import * as Status from "./YalidineStatus.ts"

/**
 * The caller's API id and token, from the courier's Developer Dashboard. No length is documented (the docs show a
 * 20-digit id and 32 to 64-character tokens): 8–256 visible ASCII characters each, so that each can only ever be
 * one header value.
 */
const Secret = (what: string) =>
  Schema.RedactedFromValue(
    Schema.String.check(
      Schema.isBetweenLength(8, 256, { message: `Expected a Yalidine ${what} of 8 to 256 characters` }),
      Schema.isPattern(/^[\x21-\x7e]+$/, {
        message: `Expected a Yalidine ${what} without spaces or control characters`
      })
    )
  )

export const Credentials = Schema.Struct({ apiId: Secret("API id"), apiToken: Secret("API token") })
export type Credentials = typeof Credentials.Type

/** One engine, six networks: each has its own API host and accounts (research §1.1, §2; dzship keys). */
export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  { key: "yalidine", name: "Yalidine", aliases: [], endpoint: { origin: "https://api.yalidine.app" } },
  { key: "yalitec", name: "Yalitec", aliases: [], endpoint: { origin: "https://api.yalitec.me" } },
  { key: "guepex", name: "Guepex", aliases: ["goupex"], endpoint: { origin: "https://api.guepex.app" } },
  { key: "economiqua", name: "Economiqua", aliases: [], endpoint: { origin: "https://api.economiqua.app" } },
  {
    key: "easyandspeed",
    name: "Easy & Speed",
    aliases: ["easy_and_speed", "easy_speed"],
    endpoint: { origin: "https://api.easyandspeed.app" }
  },
  {
    key: "wecan",
    name: "We Can Services",
    aliases: ["wecan_services", "wecanservices"],
    endpoint: { origin: "https://api.wecanservices.me" }
  }
]

/** The documented default quotas of every account (§1.1 "Rate limits"). */
export const rateLimits = [
  { limit: 5, window: "1 second" },
  { limit: 50, window: "1 minute" },
  { limit: 1000, window: "1 hour" },
  { limit: 10000, window: "1 day" }
] as const

/**
 * One authenticated call (the core blanks the credentials out of any answer that echoes them).
 */
const send = (credentials: Credentials, request: CourierHttp.CourierRequest, accept = "application/json") =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept,
        "x-api-id": Redacted.value(credentials.apiId),
        "x-api-token": Redacted.value(credentials.apiToken)
      }
    })
  )

export const create = Effect.fn("Yalidine.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  const origin = yield* Effect.fromResult(Mapping.originOf(fromWilaya))
  const orderId = Mapping.orderIdOf(order, yield* Clock.currentTimeMillis)
  const parcel = yield* Effect.fromResult(Mapping.toParcel(order, origin, orderId))
  const response = yield* send(credentials, { method: "POST", path: "/v1/parcels/", json: [parcel] })
  const created = yield* Effect.fromResult(Mapping.fromCreated(orderId, response))
  return {
    trackingNumber: created.tracking,
    ...(created.labelUrl === undefined ? {} : { labelUrl: created.labelUrl }),
    rawStatus: Status.created
  }
})

/**
 * The parcel's history, exactly this tracking number's rows. A parcel with no history yet answers its current
 * status instead, read from the parcel itself; that second call also tells an unknown tracking number apart.
 */
export const track = Effect.fn("Yalidine.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const tracking = yield* Effect.fromResult(Mapping.checkTracking(trackingNumber))
  const history = yield* send(credentials, { method: "GET", path: Mapping.historiesPath(tracking) })
  const events = yield* Effect.fromResult(Mapping.fromHistories(tracking, history))
  if (events !== undefined) return events
  const parcel = yield* send(credentials, { method: "GET", path: Mapping.parcelPath(tracking) })
  return yield* Effect.fromResult(Mapping.fromParcel(tracking, parcel))
})

export const rates = Effect.fn("Yalidine.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials, fromWilaya }: CourierAdapter.Context<Credentials>
) {
  const origin = yield* Effect.fromResult(Mapping.originOf(query.fromWilaya, fromWilaya))
  const response = yield* send(credentials, {
    method: "GET",
    path: "/v1/fees/",
    query: Mapping.feesQuery(origin, query.toWilaya)
  })
  return yield* Effect.fromResult(Mapping.fromFees(query, response))
})

export const label = Effect.fn("Yalidine.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const tracking = yield* Effect.fromResult(Mapping.checkTracking(trackingNumber))
  const response = yield* send(credentials, { method: "GET", path: Mapping.labelPath(tracking) }, "application/pdf")
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

export const adapter = CourierAdapter.define<Credentials>({
  platform: "yalidine",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  operations: { create, track, rates, label },
  rateLimits
})
