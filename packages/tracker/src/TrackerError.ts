/**
 * Why a signup or an event was not accepted: `TrackerError`, whose `reason` says which body rule failed, with the
 * message the caller reads. Transport-agnostic: the store API answers both 400.
 */
import { Schema } from "effect"

/** A `POST /v1/signups` body that breaks a rule. */
export class InvalidSignup extends Schema.TaggedError<InvalidSignup>()("InvalidSignup", { message: Schema.String }) {}

/** A `POST /v1/events` body that breaks a rule. */
export class InvalidEvent extends Schema.TaggedError<InvalidEvent>()("InvalidEvent", { message: Schema.String }) {}

export const TrackerErrorReason = Schema.Union([InvalidSignup, InvalidEvent])
export type TrackerErrorReason = typeof TrackerErrorReason.Type

export class TrackerError extends Schema.TaggedError<TrackerError>()("TrackerError", { reason: TrackerErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: TrackerErrorReason) => new TrackerError({ reason })
