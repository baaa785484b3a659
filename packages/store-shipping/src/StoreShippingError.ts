/**
 * Why a shipping configuration operation failed: `StoreShippingError`, whose `reason` names the rule. Transport-agnostic:
 * an API decides which status and code each reason gets. A courier's failure during a rate sync is carried as it is
 * (`CourierFailed`), so the host answers it as its shipping API answers that failure.
 */
import { ShippingError } from "@tawsil/courier"
import { Schema } from "effect"

/** The body is not a JSON object, or a field breaks its rule (the message names the field). */
export class InvalidShippingBody extends Schema.TaggedError<InvalidShippingBody>()("InvalidShippingBody", {
  message: Schema.String
}) {}

/** A rate sync needs the wilaya parcels leave from: the settings' `origin_wilaya` is not set. */
export class OriginWilayaMissing extends Schema.TaggedError<OriginWilayaMissing>()("OriginWilayaMissing", {
  message: Schema.String
}) {}

/** The values a rate write would record pass the change history's limit (spec: 422, and the write does not run). */
export class SnapshotTooLarge extends Schema.TaggedError<SnapshotTooLarge>()("SnapshotTooLarge", {
  message: Schema.String
}) {}

/**
 * The courier's prices could not be read: the shipping API's gateway failed for one of the destinations (unknown
 * courier, credentials, egress, the courier's refusal, limit or silence) as a rates call fails. Nothing was written.
 * The failure carries no credential: the courier core blanks them out of every failure.
 */
export class CourierFailed extends Schema.TaggedError<CourierFailed>()("CourierFailed", {
  failure: ShippingError.ShippingError,
  message: Schema.String
}) {}

export const StoreShippingErrorReason = Schema.Union([
  InvalidShippingBody,
  OriginWilayaMissing,
  SnapshotTooLarge,
  CourierFailed
])
export type StoreShippingErrorReason = typeof StoreShippingErrorReason.Type

export class StoreShippingError extends Schema.TaggedError<StoreShippingError>()("StoreShippingError", {
  reason: StoreShippingErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: StoreShippingErrorReason) => new StoreShippingError({ reason })
