/**
 * Why a pixel operation failed: `PixelError`, whose `reason` names the spec's rule (its wire code, one to one) and
 * carries the message. Transport-agnostic: an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** The body is not a JSON object, or a field without a code of its own has the wrong type. */
export class InvalidPixelBody extends Schema.TaggedError<InvalidPixelBody>()("InvalidPixelBody", {
  message: Schema.String
}) {}

/** `pixel_type` (or `type`) missing or not one of the seven. */
export class InvalidPixelType extends Schema.TaggedError<InvalidPixelType>()("InvalidPixelType", {
  message: Schema.String
}) {}

/** `pixel_id` missing or not in its platform's format. */
export class InvalidPixelId extends Schema.TaggedError<InvalidPixelId>()("InvalidPixelId", {
  message: Schema.String
}) {}

/** The plan allows no more pixels of this type. */
export class LimitReached extends Schema.TaggedError<LimitReached>()("LimitReached", { message: Schema.String }) {}

/** A pixel of the same type and `pixel_id` exists. */
export class PixelExists extends Schema.TaggedError<PixelExists>()("PixelExists", { message: Schema.String }) {}

/** The cleaned access token breaks a rule. */
export class InvalidAccessToken extends Schema.TaggedError<InvalidAccessToken>()("InvalidAccessToken", {
  message: Schema.String
}) {}

/** A PATCH sent `pixel_type`, `type` or `pixel_id`, fixed at creation. */
export class ImmutableField extends Schema.TaggedError<ImmutableField>()("ImmutableField", {
  message: Schema.String
}) {}

/** The database refused the write after every check passed (the store vanished, a constraint). */
export class PixelWriteFailed extends Schema.TaggedError<PixelWriteFailed>()("PixelWriteFailed", {
  message: Schema.String
}) {}

/** No pixel with that id in the store. */
export class PixelNotFound extends Schema.TaggedError<PixelNotFound>()("PixelNotFound", { message: Schema.String }) {}

export const PixelErrorReason = Schema.Union([
  InvalidPixelBody,
  InvalidPixelType,
  InvalidPixelId,
  LimitReached,
  PixelExists,
  InvalidAccessToken,
  ImmutableField,
  PixelWriteFailed,
  PixelNotFound
])
export type PixelErrorReason = typeof PixelErrorReason.Type

export class PixelError extends Schema.TaggedError<PixelError>()("PixelError", { reason: PixelErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: PixelErrorReason) => new PixelError({ reason })
