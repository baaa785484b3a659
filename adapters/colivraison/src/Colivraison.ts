/**
 * Colivraison Express: one courier on its own API (`https://api.colivraison.express/v2/…`; not an Ecotrack tenant).
 * No API document was found: the calls are the ones the only public integration makes (WooBordereauGenerator,
 * research peer-landscape.md §1 row 6) — a bulk create with one order in it, the bulk tracking history (also for up
 * to 100 parcels at once), the price list (also the credential check) and a label PDF. No cancel, desk or commune
 * endpoint is evidenced, so none is declared. The caller's public key and access token travel in headers only
 * (`coliv-public-key` and `Authorization: Bearer`), never in a URL, a body or an error message.
 */
import { CourierAdapter, CourierHttp, type Shipment } from "@tawsil/courier"
import { Effect, Redacted, Schema } from "effect"
import * as Mapping from "./ColivraisonMapping.ts"
import * as Status from "./ColivraisonStatus.ts"

const visible = (name: string, minimum: number, maximum: number) =>
  Schema.String.check(
    Schema.isBetweenLength(minimum, maximum, {
      message: `Expected a Colivraison ${name} of ${minimum} to ${maximum} characters`
    }),
    Schema.isPattern(/^[\x21-\x7e]+$/, {
      message: `Expected a Colivraison ${name} without spaces or control characters`
    })
  )

/**
 * The caller's Colivraison credentials, as the dzship catalogue names them: `publicKey` (the plugin's "Public Key",
 * sent as `coliv-public-key`) and `token` (its "Access Token", sent as `Authorization: Bearer`), both from the
 * merchant's "Configuration API" page. No length is documented: 8–512 and 8–2000 visible ASCII characters (the
 * token may be a long JWT), so that each can only ever be one header value.
 */
export const Credentials = Schema.Struct({
  publicKey: Schema.RedactedFromValue(visible("public key", 8, 512)),
  token: Schema.RedactedFromValue(visible("access token", 8, 2000))
})
export type Credentials = typeof Credentials.Type

export const origin = "https://api.colivraison.express"

export const couriers: ReadonlyArray<CourierAdapter.CourierManifest> = [
  // `colivraison_express` is the id other catalogues give it (README); courier-dz has none.
  { key: "colivraison", name: "Colivraison Express", aliases: ["colivraison_express"], endpoint: { origin } }
]

/**
 * One call with the caller's credentials in the two headers the plugin sends on every call. The core blanks either
 * secret out of any answer that echoes it.
 */
const send = (
  credentials: Credentials,
  request: { readonly method: "GET" | "POST"; readonly path: `/v2/${string}`; readonly json?: unknown },
  accept = "application/json"
) =>
  Effect.flatMap(CourierHttp.CourierHttp, (http) =>
    http.request({
      ...request,
      headers: {
        accept,
        authorization: `Bearer ${Redacted.value(credentials.token)}`,
        "coliv-public-key": Redacted.value(credentials.publicKey)
      }
    })
  )

export const create = Effect.fn("Colivraison.create")(function* (
  order: Shipment.ParcelOrder,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/v2/orders/bulk",
    json: Mapping.createBody(order)
  })
  return yield* Effect.fromResult(Mapping.fromCreated(response))
})

export const track = Effect.fn("Colivraison.track")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, {
    method: "POST",
    path: "/v2/trackinghistory/bulk",
    json: Mapping.historyBody(trackingNumber)
  })
  return yield* Effect.fromResult(Mapping.fromHistory(trackingNumber, response))
})

export const rates = Effect.fn("Colivraison.rates")(function* (
  query: Shipment.RatesQuery,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  yield* Effect.fromResult(Mapping.checkDeliveryType(query))
  const response = yield* send(credentials, { method: "GET", path: "/v2/getpricing" })
  return yield* Effect.fromResult(Mapping.fromPricing(query, response))
})

export const label = Effect.fn("Colivraison.label")(function* (
  trackingNumber: string,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(
    credentials,
    { method: "POST", path: "/v2/generate-download-pdfx1", json: Mapping.labelBody(trackingNumber) },
    "application/pdf, application/json"
  )
  return yield* Effect.fromResult(Mapping.fromLabel(response))
})

/**
 * Up to 100 parcels in one `POST v2/trackinghistory/bulk` (the endpoint takes a list; the plugin sends one number):
 * each parcel the answer holds, with its history; a number it does not hold is left out.
 */
export const trackBatch = Effect.fn("Colivraison.trackBatch")(function* (
  trackingNumbers: ReadonlyArray<string>,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const asked = yield* Effect.fromResult(Mapping.checkBatch(trackingNumbers))
  if (asked.length === 0) return new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>()
  const response = yield* send(credentials, {
    method: "POST",
    path: "/v2/trackinghistory/bulk",
    json: Mapping.batchBody(asked)
  })
  return yield* Effect.fromResult(Mapping.fromHistories(asked, response))
})

/** The cheapest read the plugin shows, `GET v2/getpricing`, with both secrets; it creates nothing. */
export const checkCredentials = Effect.fn("Colivraison.checkCredentials")(function* (
  // biome-ignore lint/suspicious/noConfusingVoidType: the SDK's operation takes no input (`Operation<void, …>`)
  _: void,
  { credentials }: CourierAdapter.Context<Credentials>
) {
  const response = yield* send(credentials, { method: "GET", path: "/v2/getpricing" })
  return yield* Effect.fromResult(Mapping.fromPricingCheck(response))
})

/**
 * No limit is documented anywhere. 60 requests a minute per account is a conservative guess (the limit NOEST
 * documents), declared so that the core holds a busy account back before the courier has to (README "Unverified").
 */
export const rateLimits = [{ limit: 60, window: "1 minute" }] as const

export const adapter = CourierAdapter.define<Credentials>({
  platform: "colivraison",
  couriers,
  credentials: Credentials,
  statuses: Status.statuses,
  rateLimits,
  operations: { create, track, rates, label, trackBatch, checkCredentials }
})
