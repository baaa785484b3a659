/**
 * Why a courier account or a shipment operation failed: `ShipmentsError`, whose `reason` names the rule.
 * Transport-agnostic: an API decides the status and code of each reason. A courier's failure is carried as the
 * courier core raised it (`CourierFailed`: the SDK's `ShippingError`), so the host answers it as its shipping API
 * answers that failure; the shipping gateway's own refusals around a create (its capacity, the order's create still
 * unsettled) have reasons of their own; the order's refusals stay `OrderError`s of `@tawsil/orders`. No host is
 * imported here: the API contract names this module.
 */
import * as ShippingError from "@tawsil/courier/ShippingError"
import { Schema } from "effect"

/** The body is not a JSON object, or a field breaks its rule (the message names the field). */
export class InvalidShipmentsBody extends Schema.TaggedError<InvalidShipmentsBody>()("InvalidShipmentsBody", {
  message: Schema.String
}) {}

/** No courier account with that id in the store. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  message: Schema.String
}) {}

/** The account carries parcels still on their way: deleting it would stop following them. */
export class AccountInUse extends Schema.TaggedError<AccountInUse>()("AccountInUse", { message: Schema.String }) {}

/** The courier refused the account's credentials (its words in the message). Nothing was stored. */
export class CredentialsRejected extends Schema.TaggedError<CredentialsRejected>()("CredentialsRejected", {
  message: Schema.String
}) {}

/**
 * The courier does not offer what was asked of it: a webhook secret for a courier that does not push, a parcel
 * created undispatched on a platform that does not separate the two.
 */
export class Unsupported extends Schema.TaggedError<Unsupported>()("Unsupported", { message: Schema.String }) {}

/**
 * Sealed values cannot be sealed or opened: no secret key is configured (the message names `TAWSIL_SECRET_KEY`), or
 * the key that sealed a value is gone. Nothing was stored or sent.
 */
export class SecretsUnavailable extends Schema.TaggedError<SecretsUnavailable>()("SecretsUnavailable", {
  message: Schema.String
}) {}

/**
 * The courier failed the call: the courier core's failure as it is (unknown courier, credentials, egress, the
 * commune, the courier's refusal, limit or silence). It carries no credential: the courier core blanks them out.
 */
export class CourierFailed extends Schema.TaggedError<CourierFailed>()("CourierFailed", {
  failure: ShippingError.ShippingError,
  message: Schema.String
}) {}

/** Too many parcels are being created right now (the shipping gateway's capacity guard): retry after a while. */
export class Busy extends Schema.TaggedError<Busy>()("Busy", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int
}) {}

/**
 * An earlier attempt to create this order's parcel is unsettled: still running, or it got no answer from the courier
 * and may have created the parcel (the gateway keeps its claim until its lease runs out). Retried after that, the
 * courier's parcel is found or created once.
 */
export class ParcelPending extends Schema.TaggedError<ParcelPending>()("ParcelPending", {
  message: Schema.String,
  retryAfterSeconds: Schema.optionalKey(Schema.Int)
}) {}

/** A cancel of a parcel that already arrived or came back: nothing to ask the courier. */
export class NotCancellable extends Schema.TaggedError<NotCancellable>()("NotCancellable", {
  message: Schema.String
}) {}

export const ShipmentsErrorReason = Schema.Union([
  InvalidShipmentsBody,
  AccountNotFound,
  AccountInUse,
  CredentialsRejected,
  Unsupported,
  SecretsUnavailable,
  CourierFailed,
  Busy,
  ParcelPending,
  NotCancellable
])
export type ShipmentsErrorReason = typeof ShipmentsErrorReason.Type

export class ShipmentsError extends Schema.TaggedError<ShipmentsError>()("ShipmentsError", {
  reason: ShipmentsErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: ShipmentsErrorReason) => new ShipmentsError({ reason })

/** A courier core's failure as this package's error. */
export const courierFailed = (failure: ShippingError.ShippingError) =>
  fail(new CourierFailed({ failure, message: failure.message }))

/** What the shipping gateway may refuse a create, cancel or dispatch with besides the courier core's failures. */
export type GatewayRefusal =
  | { readonly _tag: "Overloaded"; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly _tag: "InFlight"; readonly retryAfterSeconds: number; readonly message: string }
  | { readonly _tag: "KeyReused"; readonly message: string }
  | { readonly _tag: "InvalidKey"; readonly message: string }
  | { readonly _tag: "ClientRateLimited"; readonly retryAfterSeconds: number; readonly message: string }

const isShippingError = Schema.is(ShippingError.ShippingError)

/** A failure of the shipping gateway's create, cancel or dispatch as this package's error. */
export const fromGateway = (failure: ShippingError.ShippingError | GatewayRefusal): ShipmentsError => {
  if (isShippingError(failure)) return courierFailed(failure)
  switch (failure._tag) {
    case "Overloaded":
    case "ClientRateLimited":
      return fail(new Busy({ message: failure.message, retryAfterSeconds: failure.retryAfterSeconds }))
    case "InFlight":
      return fail(
        new ParcelPending({
          message: "An earlier attempt at this order's parcel is unsettled at the courier; retry after Retry-After",
          retryAfterSeconds: failure.retryAfterSeconds
        })
      )
    case "KeyReused":
    case "InvalidKey":
      return fail(
        new ParcelPending({
          message:
            "An earlier attempt at this order's parcel, with other details, got no answer from the courier and may " +
            "have created it: look it up at the courier, or retry with the same details"
        })
      )
  }
}
