/**
 * Why a `Confirmation` operation failed: the order's own reasons (`OrderError`: not found, a refused or concurrent
 * move), or one of the workflow's. Transport-agnostic: the store API decides each reason's status.
 */
import { Schema } from "effect"
import { OrderErrorReason } from "./OrderError.ts"

/** A confirmation body breaks a rule (an unknown outcome, `postponed` without a future time, a note too long). */
export class InvalidConfirmation extends Schema.TaggedError<InvalidConfirmation>()("InvalidConfirmation", {
  message: Schema.String
}) {}

/** Only a pending order is confirmed: an attempt or a link for an order that left `pending` is refused. */
export class NotAwaitingConfirmation extends Schema.TaggedError<NotAwaitingConfirmation>()("NotAwaitingConfirmation", {
  message: Schema.String
}) {}

/** No secret key is configured (`TAWSIL_SECRET_KEY`), so no link can be signed. */
export class LinksUnavailable extends Schema.TaggedError<LinksUnavailable>()("LinksUnavailable", {
  message: Schema.String
}) {}

export const ConfirmationErrorReason = Schema.Union([
  ...OrderErrorReason.members,
  InvalidConfirmation,
  NotAwaitingConfirmation,
  LinksUnavailable
])
export type ConfirmationErrorReason = typeof ConfirmationErrorReason.Type

export class ConfirmationError extends Schema.TaggedError<ConfirmationError>()("ConfirmationError", {
  reason: ConfirmationErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: ConfirmationErrorReason) => new ConfirmationError({ reason })
