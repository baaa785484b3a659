/**
 * Why a promo code operation failed: `PromoError`, whose `reason` names the spec's rule (its wire code, one to one)
 * and carries the message. Transport-agnostic: an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** The body is not a JSON object. */
export class InvalidPromoBody extends Schema.TaggedError<InvalidPromoBody>()("InvalidPromoBody", {
  message: Schema.String
}) {}
/** The Promo codes add-on is not active on the store: writes are refused. */
export class AddonInactive extends Schema.TaggedError<AddonInactive>()("AddonInactive", { message: Schema.String }) {}
/** Another code of the store has this text. */
export class CodeExists extends Schema.TaggedError<CodeExists>()("CodeExists", { message: Schema.String }) {}
/** `code` missing, not 2 to 30 characters, or a character outside `A-Z 0-9 - _`. */
export class InvalidCode extends Schema.TaggedError<InvalidCode>()("InvalidCode", { message: Schema.String }) {}
/** `discount_type` missing or not `percentage`/`fixed`. */
export class InvalidDiscountType extends Schema.TaggedError<InvalidDiscountType>()("InvalidDiscountType", {
  message: Schema.String
}) {}
/** `discount_value` missing, not a number, 0 or less, or above 100 for a percentage. */
export class InvalidDiscountValue extends Schema.TaggedError<InvalidDiscountValue>()("InvalidDiscountValue", {
  message: Schema.String
}) {}
/** `min_order_amount` not a number (or below 0). */
export class InvalidMinOrderAmount extends Schema.TaggedError<InvalidMinOrderAmount>()("InvalidMinOrderAmount", {
  message: Schema.String
}) {}
/** `max_uses` not a whole number, or below 1 (0 means unlimited). */
export class InvalidMaxUses extends Schema.TaggedError<InvalidMaxUses>()("InvalidMaxUses", {
  message: Schema.String
}) {}
/** `starts_at` not a date-time we read. */
export class InvalidStartsAt extends Schema.TaggedError<InvalidStartsAt>()("InvalidStartsAt", {
  message: Schema.String
}) {}
/** `expires_at` not a date-time we read. */
export class InvalidExpiresAt extends Schema.TaggedError<InvalidExpiresAt>()("InvalidExpiresAt", {
  message: Schema.String
}) {}
/** A new `expires_at` is not in the future. */
export class ExpiresAtInPast extends Schema.TaggedError<ExpiresAtInPast>()("ExpiresAtInPast", {
  message: Schema.String
}) {}
/** `expires_at` is not after `starts_at`. */
export class InvalidDateWindow extends Schema.TaggedError<InvalidDateWindow>()("InvalidDateWindow", {
  message: Schema.String
}) {}
/** No code with that id in the store. */
export class PromoNotFound extends Schema.TaggedError<PromoNotFound>()("PromoNotFound", { message: Schema.String }) {}

/** What the merchant approves before a 100% code is written, as `will_change` shows it. */
export const WillChange = Schema.Struct({
  action: Schema.String,
  code: Schema.String,
  discount: Schema.String,
  reversible: Schema.Boolean,
  note: Schema.String
})
export type WillChange = typeof WillChange.Type

const confirmation = {
  message: Schema.String,
  /** Single use; send it back with the same body and a new `Idempotency-Key`. */
  confirmToken: Schema.String,
  /** Seconds the token stays valid (600). */
  expiresIn: Schema.Int,
  /** `promo.full_discount:new` on create, `promo.full_discount:<id>` on update. */
  action: Schema.String,
  willChange: WillChange
}

/** The write would make a 100% percentage code: nothing written; approve with the token. */
export class ConfirmationRequired extends Schema.TaggedError<ConfirmationRequired>()(
  "ConfirmationRequired",
  confirmation
) {}

/** The token sent is expired, used or for another write: nothing written; here is a fresh one. */
export class ConfirmationStale extends Schema.TaggedError<ConfirmationStale>()("ConfirmationStale", confirmation) {}

export const PromoErrorReason = Schema.Union([
  InvalidPromoBody,
  AddonInactive,
  CodeExists,
  InvalidCode,
  InvalidDiscountType,
  InvalidDiscountValue,
  InvalidMinOrderAmount,
  InvalidMaxUses,
  InvalidStartsAt,
  InvalidExpiresAt,
  ExpiresAtInPast,
  InvalidDateWindow,
  ConfirmationRequired,
  ConfirmationStale,
  PromoNotFound
])
export type PromoErrorReason = typeof PromoErrorReason.Type

export class PromoError extends Schema.TaggedError<PromoError>()("PromoError", { reason: PromoErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: PromoErrorReason) => new PromoError({ reason })
