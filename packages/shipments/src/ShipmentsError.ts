/**
 * Why a courier account or a shipment operation failed: `ShipmentsError`, whose `reason` names the rule.
 * Transport-agnostic: an API decides the status and code of each reason. A courier's failure is carried as the
 * shipping gateway raised it (`CourierFailed`), so the host answers it as its shipping API answers that failure; the
 * order's own refusals stay `OrderError`s of `@tawsil/orders`.
 */
import { Gateway } from "@tawsil/shipping"
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
 * The courier failed the call: the shipping gateway's failure as it is (unknown courier, credentials, egress, the
 * commune, the courier's refusal, limit or silence). It carries no credential: the courier core blanks them out.
 */
export class CourierFailed extends Schema.TaggedError<CourierFailed>()("CourierFailed", {
  failure: Gateway.GatewayError,
  message: Schema.String
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

/** A gateway failure as this package's error. */
export const courierFailed = (failure: CourierFailed["failure"]) =>
  fail(new CourierFailed({ failure, message: failure.message }))
