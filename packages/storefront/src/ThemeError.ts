/**
 * Why a theme operation failed: `ThemeError`, whose `reason` names the spec's rule (its wire code, one to one) and
 * carries the message. Transport-agnostic: an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** `theme` missing, over 50 characters, or a character outside Latin letters, digits, `_` and `-`. */
export class InvalidTheme extends Schema.TaggedError<InvalidTheme>()("InvalidTheme", { message: Schema.String }) {}

/** `style` missing, empty or over 50 characters. */
export class InvalidStyle extends Schema.TaggedError<InvalidStyle>()("InvalidStyle", { message: Schema.String }) {}

/** No active theme with this key. */
export class ThemeNotFound extends Schema.TaggedError<ThemeNotFound>()("ThemeNotFound", { message: Schema.String }) {}

/** No active variant style with this key (no fallback to `default`). */
export class StyleNotFound extends Schema.TaggedError<StyleNotFound>()("StyleNotFound", { message: Schema.String }) {}

/** The theme or style needs a higher plan than the store has now. */
export class PlanRequired extends Schema.TaggedError<PlanRequired>()("PlanRequired", {
  required: Schema.String,
  plan: Schema.String,
  message: Schema.String
}) {}

/** The store is gone. */
export class StoreNotFound extends Schema.TaggedError<StoreNotFound>()("StoreNotFound", { message: Schema.String }) {}

export const ThemeErrorReason = Schema.Union([
  InvalidTheme,
  InvalidStyle,
  ThemeNotFound,
  StyleNotFound,
  PlanRequired,
  StoreNotFound
])
export type ThemeErrorReason = typeof ThemeErrorReason.Type

export class ThemeError extends Schema.TaggedError<ThemeError>()("ThemeError", { reason: ThemeErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: ThemeErrorReason) => new ThemeError({ reason })
