/**
 * What can go wrong when a courier is asked to do something, transport-agnostic: the HTTP API maps each reason to
 * its wire code and status (docs/api). Messages are safe to show the caller: they never carry credentials.
 */

import { BlockedEgress } from "@tawsil/egress/Egress"
import { Schema } from "effect"
import { operations } from "./Capability.ts"

/**
 * The courier answered and refused the request for a reason the caller can act on (its message is passed on).
 * `created` is the tracking number of a parcel a create made even so, when a follow-up step failed after it
 * ({@link unfinishedCreate}): a retry would make a second parcel. A refusal without it made nothing.
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  message: Schema.String,
  courierCode: Schema.optionalKey(Schema.String),
  created: Schema.optionalKey(Schema.String)
}) {}

/** The courier refused the caller's credentials. */
export class CredentialsRejected extends Schema.TaggedError<CredentialsRejected>()("CredentialsRejected", {
  message: Schema.String
}) {}

/** The courier limits the caller's account; retry after this many seconds. */
export class CourierRateLimited extends Schema.TaggedError<CourierRateLimited>()("CourierRateLimited", {
  retryAfterSeconds: Schema.Int
}) {
  override get message() {
    return `the courier limits this account's requests; retry in ${this.retryAfterSeconds} s`
  }
}

/** No answer, a reset, a timeout, a 5xx, or the circuit breaker is open. */
export class Unreachable extends Schema.TaggedError<Unreachable>()("Unreachable", {
  message: Schema.String
}) {}

/** The courier answered something we cannot read (HTML, garbage, a shape its API does not document). */
export class BadResponse extends Schema.TaggedError<BadResponse>()("BadResponse", {
  message: Schema.String
}) {}

/** The courier does not offer this operation (its capability is false). */
export class Unsupported extends Schema.TaggedError<Unsupported>()("Unsupported", {
  operation: Schema.String
}) {
  override get message() {
    return `this courier does not offer ${this.operation}`
  }
}

/**
 * The courier refuses to cancel the parcel because it is past the point where it can (picked up, shipped,
 * delivered): a conflict with the parcel's state, in the courier's words.
 */
export class NotCancellable extends Schema.TaggedError<NotCancellable>()("NotCancellable", {
  message: Schema.String
}) {}

export const CourierErrorReason = Schema.Union([
  BlockedEgress,
  Refused,
  CredentialsRejected,
  CourierRateLimited,
  Unreachable,
  BadResponse,
  Unsupported,
  NotCancellable
])
export type CourierErrorReason = typeof CourierErrorReason.Type

export class CourierError extends Schema.TaggedError<CourierError>()("CourierError", {
  courier: Schema.String,
  operation: Schema.Literals(operations),
  reason: CourierErrorReason
}) {
  override get message() {
    return `${this.courier} ${this.operation}: ${this.reason.message}`
  }
}

/**
 * A create whose parcel exists but whose follow-up step (validate, confirm, ready to dispatch) failed. Whatever the
 * step's failure, the caller gets a refusal that names the parcel (`created`), says what is left to do in the
 * courier's dashboard, and is never retryable: retrying the create would make a second parcel.
 */
export const unfinishedCreate = (
  trackingNumber: string,
  step: {
    /** What did not happen, after "but": `did not validate it`. */
    readonly failed: string
    /** Where that leaves the parcel: `it exists on your account, invisible to the courier until validated`. */
    readonly consequence: string
    /** What the caller should do: `Validate or delete it in the courier's dashboard`. */
    readonly remedy: string
  },
  reason: CourierErrorReason
): Refused =>
  new Refused({
    message: `the courier created the parcel ${trackingNumber} but ${step.failed} (${
      reason._tag === "CourierRateLimited" ? `rate limited, retry after ${reason.retryAfterSeconds} s` : reason.message
    }): ${step.consequence}. ${step.remedy}; do not create it again.`,
    created: trackingNumber,
    ...(reason._tag === "Refused" && reason.courierCode !== undefined ? { courierCode: reason.courierCode } : {})
  })
