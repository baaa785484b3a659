/**
 * Why a `StoreProfile` operation failed: `StoreProfileError`, whose `reason` carries the message. Transport-agnostic:
 * an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** No such store (an authenticated key always names one; a store deleted under it would not). */
export class StoreNotFound extends Schema.TaggedError<StoreNotFound>()("StoreNotFound", { message: Schema.String }) {}

export const StoreProfileErrorReason = Schema.Union([StoreNotFound])
export type StoreProfileErrorReason = typeof StoreProfileErrorReason.Type

export class StoreProfileError extends Schema.TaggedError<StoreProfileError>()("StoreProfileError", {
  reason: StoreProfileErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}
