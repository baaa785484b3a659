/**
 * Why a write of the store's own configuration failed — its settings, design, home sections or home layout:
 * `StoreConfigError`, whose `reason` carries the message. Transport-agnostic: an API decides which status each
 * reason gets.
 */
import { Schema } from "effect"

/** The body, or one of its fields, breaks a rule; the message names the field and the rule. */
export class InvalidBody extends Schema.TaggedError<InvalidBody>()("InvalidBody", { message: Schema.String }) {}

/** No such store (an authenticated key always names one; a store deleted under it would not). */
export class StoreNotFound extends Schema.TaggedError<StoreNotFound>()("StoreNotFound", { message: Schema.String }) {}

/** No section with that id in the store's home layout. */
export class SectionNotFound extends Schema.TaggedError<SectionNotFound>()("SectionNotFound", {
  message: Schema.String
}) {}

export const StoreConfigErrorReason = Schema.Union([InvalidBody, StoreNotFound, SectionNotFound])
export type StoreConfigErrorReason = typeof StoreConfigErrorReason.Type

export class StoreConfigError extends Schema.TaggedError<StoreConfigError>()("StoreConfigError", {
  reason: StoreConfigErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: StoreConfigErrorReason) => new StoreConfigError({ reason })

/** A refusal of the body, with the message that names the field. */
export const invalid = (message: string) => fail(new InvalidBody({ message }))

export const storeNotFound = () => fail(new StoreNotFound({ message: "Store not found" }))
