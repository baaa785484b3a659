/**
 * Why a signup or an event was not accepted: `TrackerError`, whose `reason` says which body rule failed, with the
 * message the caller reads. Transport-agnostic: the store API answers each 400.
 */
import { Schema } from "effect"

/** A `POST /v1/signups` body that breaks a rule. */
export class InvalidSignup extends Schema.TaggedError<InvalidSignup>()("InvalidSignup", { message: Schema.String }) {}

/** A `POST /v1/events` body that breaks a rule. */
export class InvalidEvent extends Schema.TaggedError<InvalidEvent>()("InvalidEvent", { message: Schema.String }) {}

/**
 * A batch call (`POST /v1/signups/batch`, `POST /v1/events/batch`) whose body is not a batch: not an object holding
 * an array of 1 to 500 items. The whole call is refused; an item that breaks a rule is not this, but is reported
 * by its index beside the others.
 */
export class InvalidBatch extends Schema.TaggedError<InvalidBatch>()("InvalidBatch", { message: Schema.String }) {}

export const TrackerErrorReason = Schema.Union([InvalidSignup, InvalidEvent, InvalidBatch])
export type TrackerErrorReason = typeof TrackerErrorReason.Type

export class TrackerError extends Schema.TaggedError<TrackerError>()("TrackerError", { reason: TrackerErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: TrackerErrorReason) => new TrackerError({ reason })
