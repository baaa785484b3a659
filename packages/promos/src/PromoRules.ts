/**
 * The rules of promo code bodies and of checkout, as pure functions (spec "Create body", "PATCH rules", "100%
 * discount flow"; docs/promo-codes.md for what the spec leaves open).
 *
 * A body's fields are read in the order of the spec's create table and the first failure answers: `code`,
 * `discount_type`, `discount_value`, `min_order_amount`, `max_uses`, `starts_at`, `expires_at`, then whether
 * `expires_at` is in the future, then whether it is after `starts_at`. A PATCH reads only the fields it sends, checks
 * `discount_type` and `discount_value` as a pair with the stored one, requires a future `expires_at` only when it
 * sends one, and checks the window with whichever dates result.
 */
import { BodyFields, Ids, LooseBoolean, StoreAmount } from "@tawsil/domain"
import { BigDecimal, DateTime, Effect, Option, Schema } from "effect"
import { Amount, Blank, Code, Count, DateTimeText, DiscountTypeText, significantDigits } from "./internal/fields.ts"
import type { DiscountType, PromoCode, PromoPatch, PromoValues } from "./PromoCode.ts"
import * as PromoError from "./PromoError.ts"

/** Amounts are answered as JSON numbers, which hold 15 significant digits exactly: more are refused. */
export const MAX_SIGNIFICANT_DIGITS = 15

/**
 * Every amount is at most `StoreAmount.MAXIMUM`, the store API's bound for money (the spec's "no upper bound for
 * fixed" is read as no business bound: a fixed discount never takes more than the subtotal anyway).
 */
const isWithinMaximum = (amount: BigDecimal.BigDecimal) =>
  BigDecimal.isLessThanOrEqualTo(amount, StoreAmount.MAXIMUM) && significantDigits(amount) <= MAX_SIGNIFICANT_DIGITS

const HUNDRED = BigDecimal.fromBigInt(100n)
const ZERO = BigDecimal.fromBigInt(0n)

export const CODE_MESSAGE = "code must be 2 to 30 characters of A-Z, 0-9, - and _"
export const DISCOUNT_TYPE_MESSAGE = "discount_type must be percentage or fixed"
export const DISCOUNT_VALUE_MESSAGE = `discount_value must be a number above 0, at most 100 for a percentage and ${StoreAmount.MAXIMUM_TEXT} for a fixed amount`
export const MIN_ORDER_MESSAGE = `min_order_amount must be a number from 0 to ${StoreAmount.MAXIMUM_TEXT} (0, empty or null for none)`
export const MAX_USES_MESSAGE = "max_uses must be a whole number of 1 or more (0, empty or null for unlimited)"
const DATE_FORMS = "use YYYY-MM-DD HH:MM:SS (Algeria time) or ISO 8601"
export const STARTS_AT_MESSAGE = `starts_at is not a date-time we can read; ${DATE_FORMS}`
export const EXPIRES_AT_MESSAGE = `expires_at is not a date-time we can read; ${DATE_FORMS}`
export const EXPIRES_IN_PAST_MESSAGE = "expires_at must be in the future"
export const DATE_WINDOW_MESSAGE = "expires_at must be after starts_at"
export const BODY_MESSAGE = "Body must be a JSON object"

const refuse = (reason: PromoError.PromoErrorReason) => Effect.fail(PromoError.fail(reason))

/** Decodes `value` with `schema`, failing with `reason` whatever is wrong. */
const read = <S extends Schema.Decoder<unknown>>(
  schema: S,
  value: unknown,
  reason: () => PromoError.PromoErrorReason
) =>
  Schema.decodeUnknownEffect(schema)(value).pipe(Effect.mapError(() => PromoError.fail(reason()))) as Effect.Effect<
    S["Type"],
    PromoError.PromoError
  >

/** The body as an object, or `InvalidPromoBody`. */
export const bodyObject = (body: unknown) =>
  read(BodyFields.BodyFields, body, () => new PromoError.InvalidPromoBody({ message: BODY_MESSAGE }))

const code = (value: unknown) => read(Code, value, () => new PromoError.InvalidCode({ message: CODE_MESSAGE }))

const discountType = (value: unknown) =>
  read(DiscountTypeText, value, () => new PromoError.InvalidDiscountType({ message: DISCOUNT_TYPE_MESSAGE }))

const invalidValue = () => new PromoError.InvalidDiscountValue({ message: DISCOUNT_VALUE_MESSAGE })

const discountValue = Effect.fnUntraced(function* (value: unknown) {
  const amount = yield* read(Amount, value, invalidValue)
  if (!BigDecimal.isPositive(amount) || !isWithinMaximum(amount)) return yield* refuse(invalidValue())
  return amount
})

/** The pair rule: a percentage is at most 100. */
const checkPair = (type: DiscountType, value: BigDecimal.BigDecimal) =>
  type === "percentage" && BigDecimal.isGreaterThan(value, HUNDRED) ? refuse(invalidValue()) : Effect.void

const minOrderAmount = Effect.fnUntraced(function* (value: unknown) {
  const invalid = () => new PromoError.InvalidMinOrderAmount({ message: MIN_ORDER_MESSAGE })
  const amount = yield* read(Schema.Union([Blank, Amount]), value, invalid)
  if (amount === null || amount === "" || BigDecimal.isZero(amount)) return null
  if (BigDecimal.isNegative(amount) || !isWithinMaximum(amount)) return yield* refuse(invalid())
  return amount
})

const maxUses = Effect.fnUntraced(function* (value: unknown) {
  const invalid = () => new PromoError.InvalidMaxUses({ message: MAX_USES_MESSAGE })
  const count = yield* read(Schema.Union([Blank, Count]), value, invalid)
  if (count === null || count === "" || count === 0) return null
  // The column is an `integer`, like the ids.
  if (count < 1 || count > Ids.MAX_ID) return yield* refuse(invalid())
  return count
})

const dateTime = (value: unknown, reason: () => PromoError.PromoErrorReason) =>
  Effect.map(read(Schema.Union([Blank, DateTimeText]), value, reason), (dt) => (dt === null || dt === "" ? null : dt))

const startsAt = (value: unknown) =>
  dateTime(value, () => new PromoError.InvalidStartsAt({ message: STARTS_AT_MESSAGE }))
const expiresAt = (value: unknown) =>
  dateTime(value, () => new PromoError.InvalidExpiresAt({ message: EXPIRES_AT_MESSAGE }))

const isActive = LooseBoolean.cast

const checkFuture = (expires: DateTime.Utc | null, now: DateTime.Utc) =>
  expires !== null && !DateTime.isGreaterThan(expires, now)
    ? refuse(new PromoError.ExpiresAtInPast({ message: EXPIRES_IN_PAST_MESSAGE }))
    : Effect.void

const checkWindow = (starts: DateTime.Utc | null, expires: DateTime.Utc | null) =>
  starts !== null && expires !== null && !DateTime.isGreaterThan(expires, starts)
    ? refuse(new PromoError.InvalidDateWindow({ message: DATE_WINDOW_MESSAGE }))
    : Effect.void

/** What a body says of the 100% flow: the token it sends back, and whether it asks to skip the confirmation. */
export interface Approval {
  readonly confirmToken: string | undefined
  readonly confirmFullDiscount: boolean
}

const approvalOf = (fields: Readonly<Record<string, unknown>>): Approval => ({
  confirmToken:
    typeof fields.confirm_token === "string" && fields.confirm_token !== "" ? fields.confirm_token : undefined,
  confirmFullDiscount: fields.confirm_full_discount === true
})

/** `POST /v1/promo-codes`: the new code's values, or the first rule it breaks. */
export const parseCreate = Effect.fnUntraced(function* (body: unknown, now: DateTime.Utc) {
  const fields = yield* bodyObject(body)
  const codeText = yield* code(fields.code)
  const type = yield* discountType(fields.discount_type)
  const value = yield* discountValue(fields.discount_value)
  yield* checkPair(type, value)
  const values: PromoValues = {
    code: codeText,
    discount_type: type,
    discount_value: value,
    min_order_amount: yield* minOrderAmount(fields.min_order_amount ?? null),
    max_uses: yield* maxUses(fields.max_uses ?? null),
    is_active: fields.is_active === undefined || fields.is_active === null ? true : isActive(fields.is_active),
    starts_at: yield* startsAt(fields.starts_at ?? null),
    expires_at: yield* expiresAt(fields.expires_at ?? null)
  }
  yield* checkFuture(values.expires_at, now)
  yield* checkWindow(values.starts_at, values.expires_at)
  return { values, approval: approvalOf(fields) }
})

/**
 * `PATCH /v1/promo-codes/{id}`: the fields sent (`used_count` and unknown fields are ignored), checked against the
 * code's current values; an empty patch changes nothing.
 */
export const parsePatch = Effect.fnUntraced(function* (body: unknown, current: PromoCode, now: DateTime.Utc) {
  const fields = yield* bodyObject(body)
  const patch: { -readonly [K in keyof PromoPatch]: PromoPatch[K] } = {}
  if (BodyFields.sent(fields, "code")) patch.code = yield* code(fields.code)
  if (BodyFields.sent(fields, "discount_type")) patch.discount_type = yield* discountType(fields.discount_type)
  if (BodyFields.sent(fields, "discount_value")) patch.discount_value = yield* discountValue(fields.discount_value)
  if (patch.discount_type !== undefined || patch.discount_value !== undefined) {
    yield* checkPair(patch.discount_type ?? current.discount_type, patch.discount_value ?? current.discount_value)
  }
  if (BodyFields.sent(fields, "min_order_amount"))
    patch.min_order_amount = yield* minOrderAmount(fields.min_order_amount)
  if (BodyFields.sent(fields, "max_uses")) patch.max_uses = yield* maxUses(fields.max_uses)
  if (BodyFields.sent(fields, "is_active") && fields.is_active !== null) patch.is_active = isActive(fields.is_active)
  if (BodyFields.sent(fields, "starts_at")) patch.starts_at = yield* startsAt(fields.starts_at)
  if (BodyFields.sent(fields, "expires_at")) patch.expires_at = yield* expiresAt(fields.expires_at)
  if (patch.expires_at !== undefined) yield* checkFuture(patch.expires_at, now)
  if (patch.starts_at !== undefined || patch.expires_at !== undefined) {
    yield* checkWindow(
      patch.starts_at === undefined ? current.starts_at : patch.starts_at,
      patch.expires_at === undefined ? current.expires_at : patch.expires_at
    )
  }
  return { patch: patch as PromoPatch, approval: approvalOf(fields) }
})

/**
 * What the values an update's undo leaves (its recorded fields over the code's current ones) must still satisfy:
 * the pair rule and the date window. Not the confirmation, nor the future-expiry rule: an undo restores what was,
 * even a 100% discount or a passed expiry (spec undo rule 6).
 */
export const checkRestored = Effect.fnUntraced(function* (values: PromoValues) {
  yield* checkPair(values.discount_type, values.discount_value)
  yield* checkWindow(values.starts_at, values.expires_at)
})

/** Whether values make orders free: a 100% percentage code. */
export const isFullDiscount = (values: Pick<PromoValues, "discount_type" | "discount_value">): boolean =>
  values.discount_type === "percentage" && BigDecimal.equals(values.discount_value, HUNDRED)

/** The values a PATCH leaves: the current ones with the patch's. */
export const applyPatch = (current: PromoValues, patch: PromoPatch): PromoValues => ({ ...current, ...patch })

/** Why a code is refused at checkout, in the order a buyer would want to hear it; `None` when it applies. */
export type CheckoutRefusal = "inactive" | "not_started" | "expired" | "below_minimum" | "used_up"

export const checkoutRefusal = (
  promo: Pick<PromoCode, "is_active" | "starts_at" | "expires_at" | "min_order_amount" | "max_uses" | "used_count">,
  subtotal: BigDecimal.BigDecimal,
  now: DateTime.Utc
): Option.Option<CheckoutRefusal> => {
  if (!promo.is_active) return Option.some("inactive")
  if (promo.starts_at !== null && DateTime.isLessThan(now, promo.starts_at)) return Option.some("not_started")
  if (promo.expires_at !== null && DateTime.isGreaterThan(now, promo.expires_at)) return Option.some("expired")
  if (promo.min_order_amount !== null && BigDecimal.isLessThan(subtotal, promo.min_order_amount)) {
    return Option.some("below_minimum")
  }
  if (promo.max_uses !== null && promo.used_count >= promo.max_uses) return Option.some("used_up")
  return Option.none()
}

/**
 * The discount on a products subtotal: a percentage of it, rounded down to the centime (never more than the share
 * the code names), or a fixed amount, never more than the subtotal. Shipping is never discounted.
 */
export const discountOf = (
  promo: Pick<PromoValues, "discount_type" | "discount_value">,
  subtotal: BigDecimal.BigDecimal
): BigDecimal.BigDecimal => {
  if (!BigDecimal.isPositive(subtotal)) return ZERO
  if (promo.discount_type === "fixed") return BigDecimal.min(promo.discount_value, subtotal)
  const product = BigDecimal.multiply(subtotal, promo.discount_value)
  const share = BigDecimal.make(product.value, product.scale + 2)
  return BigDecimal.round(share, { scale: 2, mode: "floor" })
}
