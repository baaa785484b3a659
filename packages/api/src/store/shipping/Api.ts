/**
 * A store's shipping rates and settings (docs/store-api-config.md, "Shipping rates and settings"): per-wilaya home
 * and stop-desk prices, the settings, and the courier rate sync through the shipping API's gateway. Recorded as
 * `shipping.rates` and `shipping.settings`.
 *
 * A courier's failure during a sync is answered with the shipping API's code for it (`courierFailure`: a courier's
 * reasons as `../../shipping/Reasons.ts` maps them, in this API's envelope), never with a credential.
 */

import type { ShippingError } from "@tawsil/courier"
import * as Rate from "@tawsil/store-shipping/Rate"
import * as Settings from "@tawsil/store-shipping/Settings"
import * as StoreShippingError from "@tawsil/store-shipping/StoreShippingError"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as ShippingReasons from "../../shipping/Reasons.ts"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** `SnapshotTooLarge` is named after its code. */
export const reasons = Reasons.of(StoreShippingError.StoreShippingErrorReason, {
  InvalidShippingBody: "bad_request",
  OriginWilayaMissing: "bad_request",
  // Refined per failure by `courierFailure`; the code of a failure no row names.
  CourierFailed: "courier_error"
})

type Failure = ShippingError.ShippingError

/** Each failure of a courier call (a sync's rates calls fail as the courier core does), as this API answers it. */
const gatewayFailures: {
  readonly [Tag in Failure["_tag"]]: (
    failure: Extract<Failure, { readonly _tag: Tag }>,
    requestId: string
  ) => Errors.Failure
} = {
  UnknownCourier: (failure, requestId) => Errors.make("unknown_courier", requestId, failure.message),
  // The message names the fields at fault (not those only missing: it lists them), never their values.
  InvalidCredentials: (failure, requestId) => {
    const named = Object.entries(failure.fields ?? {})
      .filter(([, issue]) => issue !== "required")
      .map(([field]) => field)
    return Errors.make(
      "invalid_credentials",
      requestId,
      named.length === 0 ? failure.message : `${failure.message}: ${named.join(", ")}`
    )
  },
  BlockedEgress: (failure, requestId) => Errors.make("blocked_egress", requestId, failure.message),
  // A create's checks: a rates call never meets them; a shipment's create answers them as the shipping API does.
  NotAMobile: (failure, requestId) => Errors.make("invalid_phone", requestId, failure.message),
  UnknownCommune: (failure, requestId) =>
    Errors.make("unknown_commune", requestId, failure.message, { suggestions: failure.suggestions }),
  CommuneNotServed: (failure, requestId) => Errors.make("commune_not_served", requestId, failure.message),
  // The shipping API's code for the courier's reason (its one table), the failure's message.
  CourierError: (failure, requestId) =>
    Errors.make(
      ShippingReasons.courier.codes[failure.reason._tag],
      requestId,
      failure.message,
      failure.reason._tag === "CourierRateLimited" ? { retry_after: failure.reason.retryAfterSeconds } : {}
    )
}

/** A courier's failure (during a sync, a shipment's create, label, cancel or dispatch), as the shipping API's code. */
export const courierFailure = (failure: Failure, requestId: string): Errors.Failure =>
  (gatewayFailures[failure._tag] as (failure: Failure, requestId: string) => Errors.Failure)(failure, requestId)

/** The wire classes a courier's failure can become. */
export const courierClasses = [Errors.BadRequest, Errors.Unprocessable, Errors.RateLimited, Errors.BadGateway]

const { Data } = Endpoint
const writes = [...Errors.writes, ...reasons.classes]
const read = "shipping:read"
const scope = "shipping:write"

export class ShippingGroup extends HttpApiGroup.make("shipping")
  .add(
    HttpApiEndpoint.get("listShippingRates", "/v1/shipping/rates", {
      success: Data(Rate.RatesTable),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, read),
    /**
     * Upserts the listed wilayas' prices: only sent prices change; null stops that delivery type there; a wilaya
     * left with neither price has no rate. Answers the whole table. Recorded as `shipping.rates` (the changed
     * wilayas' prices before and after); a write whose record would pass 256 KB is 422 `snapshot_too_large`.
     */
    Endpoint.post("writeShippingRates", "/v1/shipping/rates", {
      payload: Rate.RatesBody,
      success: Data(Rate.RatesTable),
      error: writes,
      scope
    }),
    /**
     * Pulls one courier's prices to every wilaya (or `wilaya_ids`) from the settings' `origin_wilaya`, through the
     * shipping API's couriers, with your credentials for this call only (never stored, recorded or logged).
     * Overwrites the prices the courier quotes and adds the wilayas without a rate; a wilaya the courier does not
     * serve is skipped. A courier failure writes nothing and answers the shipping API's code (`unknown_courier`,
     * `invalid_credentials`, `credentials_rejected`, `courier_refused`, `rate_limited`, `courier_unreachable`,
     * `courier_error`…). Answers the change's id: its undo restores the overwritten prices and keeps the added ones.
     */
    Endpoint.post("syncShippingRates", "/v1/shipping/rates/sync", {
      payload: Rate.SyncBody,
      success: Data(Rate.RatesSynced),
      error: [...writes, ...courierClasses],
      scope
    }).annotate(Endpoint.CallsOut, true),
    /**
     * The store's latest courier rate sync, running or ended (null when it never synced): how many of its
     * destinations are priced so far. A sync is paced under the courier account's limits, so a full one against a
     * courier of 50 calls a minute runs for a minute and a half; this is how to follow it.
     */
    HttpApiEndpoint.get("getShippingRatesSync", "/v1/shipping/rates/sync", {
      success: Data(Schema.NullOr(Rate.SyncProgress)),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, read),
    HttpApiEndpoint.get("getShippingSettings", "/v1/shipping/settings", {
      success: Data(Settings.Settings),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, read),
    /** Only sent fields change; an empty body changes nothing. Recorded as `shipping.settings`. */
    Endpoint.patch("updateShippingSettings", "/v1/shipping/settings", {
      payload: Settings.SettingsPatchBody,
      success: Data(Settings.Settings),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "shipping",
      description:
        "Per-wilaya home and stop-desk prices, the shipping settings, and the courier rate sync. Recorded as " +
        "shipping.rates and shipping.settings."
    })
  ) {}
