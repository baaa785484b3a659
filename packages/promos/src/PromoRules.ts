/**
 * The rules of promo code bodies and of checkout, as pure functions (spec "Create body", "PATCH rules", "100%
 * discount flow"; docs/promo-codes.md for what the spec leaves open).
 *
 * A body is decoded with the schema its endpoint declares (`PromoCode.PromoCodeBody`, `PromoCodePatchBody`), whose
 * fields are in the order of the spec's create table: the first field that fails answers, with its own code and
 * message (`code`, `discount_type`, `discount_value`, `min_order_amount`, `max_uses`, `starts_at`, `expires_at`),
 * `discount_type` and `discount_value` checked as a pair (a PATCH's with the stored one) before the fields after
 * them. Then whether `expires_at` is in the future (a PATCH's only when it sends one), then whether it is after
 * `starts_at` (a PATCH's with whichever dates result).
 */
import { BodyFields, LooseBoolean } from "@tawsil/domain"
import { BigDecimal, DateTime, Effect, Option, Struct } from "effect"
import {
  DISCOUNT_VALUE_MESSAGE,
  type DiscountType,
  type PromoCode,
  PromoCodeBody,
  PromoCodePatchBody,
  type PromoPatch,
  type PromoValues
} from "./PromoCode.ts"
import * as PromoError from "./PromoError.ts"

export { MAX_SIGNIFICANT_DIGITS } from "./internal/fields.ts"
export {
  CODE_MESSAGE,
  DISCOUNT_TYPE_MESSAGE,
  DISCOUNT_VALUE_MESSAGE,
  EXPIRES_AT_MESSAGE,
  MAX_USES_MESSAGE,
  MIN_ORDER_MESSAGE,
  STARTS_AT_MESSAGE
} from "./PromoCode.ts"

const HUNDRED = BigDecimal.fromBigInt(100n)
const ZERO = BigDecimal.fromBigInt(0n)

export const EXPIRES_IN_PAST_MESSAGE = "expires_at must be in the future"
export const DATE_WINDOW_MESSAGE = "expires_at must be after starts_at"
export const BODY_MESSAGE = BodyFields.OBJECT_MESSAGE

const refuse = (reason: PromoError.PromoErrorReason) => Effect.fail(PromoError.fail(reason))

/** Each field's reason, by the field's name; a body that is not an object is `InvalidPromoBody`. */
const fieldReasons: Record<string, (message: string) => PromoError.PromoErrorReason> = {
  code: (message) => new PromoError.InvalidCode({ message }),
  discount_type: (message) => new PromoError.InvalidDiscountType({ message }),
  discount_value: (message) => new PromoError.InvalidDiscountValue({ message }),
  min_order_amount: (message) => new PromoError.InvalidMinOrderAmount({ message }),
  max_uses: (message) => new PromoError.InvalidMaxUses({ message }),
  starts_at: (message) => new PromoError.InvalidStartsAt({ message }),
  expires_at: (message) => new PromoError.InvalidExpiresAt({ message })
}

const refusal = ({ path: [field], text }: BodyFields.Refusal) => {
  const reason = typeof field === "string" && Object.hasOwn(fieldReasons, field) ? fieldReasons[field] : undefined
  return PromoError.fail(reason === undefined ? new PromoError.InvalidPromoBody({ message: text }) : reason(text))
}

/** The fields up to `discount_value`: the pair rule answers before the fields after them. */
const HEAD = ["code", "discount_type", "discount_value"] as const

const decodeCreateHead = BodyFields.decode(
  PromoCodeBody.mapFields(Struct.pick(HEAD)).annotate(BodyFields.objectMessage),
  refusal
)
const decodeCreate = BodyFields.decode(PromoCodeBody, refusal)
const decodePatchHead = BodyFields.decode(
  PromoCodePatchBody.mapFields(Struct.pick(HEAD)).annotate(BodyFields.objectMessage),
  refusal
)
const decodePatch = BodyFields.decode(PromoCodePatchBody, refusal)

const invalidValue = () => new PromoError.InvalidDiscountValue({ message: DISCOUNT_VALUE_MESSAGE })

/** The pair rule: a percentage is at most 100. */
const checkPair = (type: DiscountType, value: BigDecimal.BigDecimal) =>
  type === "percentage" && BigDecimal.isGreaterThan(value, HUNDRED) ? refuse(invalidValue()) : Effect.void

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

const approvalOf = (body: Pick<PromoCodeBody, "confirm_token" | "confirm_full_discount">): Approval => ({
  confirmToken: body.confirm_token === "" ? undefined : body.confirm_token,
  confirmFullDiscount: body.confirm_full_discount === true
})

/** `POST /v1/promo-codes`: the new code's values, or the first rule it breaks. */
export const parseCreate = Effect.fnUntraced(function* (body: unknown, now: DateTime.Utc) {
  const head = yield* decodeCreateHead(body)
  yield* checkPair(head.discount_type, head.discount_value)
  const sent = yield* decodeCreate(body)
  const values: PromoValues = {
    code: sent.code,
    discount_type: sent.discount_type,
    discount_value: sent.discount_value,
    min_order_amount: sent.min_order_amount ?? null,
    max_uses: sent.max_uses ?? null,
    is_active: sent.is_active === undefined || sent.is_active === null ? true : isActive(sent.is_active),
    starts_at: sent.starts_at ?? null,
    expires_at: sent.expires_at ?? null
  }
  yield* checkFuture(values.expires_at, now)
  yield* checkWindow(values.starts_at, values.expires_at)
  return { values, approval: approvalOf(sent) }
})

/**
 * `PATCH /v1/promo-codes/{id}`: the fields sent (`used_count` and unknown fields are ignored), checked against the
 * code's current values; an empty patch changes nothing.
 */
export const parsePatch = Effect.fnUntraced(function* (body: unknown, current: PromoCode, now: DateTime.Utc) {
  const head = yield* decodePatchHead(body)
  if (head.discount_type !== undefined || head.discount_value !== undefined) {
    yield* checkPair(head.discount_type ?? current.discount_type, head.discount_value ?? current.discount_value)
  }
  const sent = yield* decodePatch(body)
  const patch: { -readonly [K in keyof PromoPatch]: PromoPatch[K] } = {}
  if (sent.code !== undefined) patch.code = sent.code
  if (sent.discount_type !== undefined) patch.discount_type = sent.discount_type
  if (sent.discount_value !== undefined) patch.discount_value = sent.discount_value
  if (sent.min_order_amount !== undefined) patch.min_order_amount = sent.min_order_amount
  if (sent.max_uses !== undefined) patch.max_uses = sent.max_uses
  if (sent.is_active !== undefined && sent.is_active !== null) patch.is_active = isActive(sent.is_active)
  if (sent.starts_at !== undefined) patch.starts_at = sent.starts_at
  if (sent.expires_at !== undefined) patch.expires_at = sent.expires_at
  if (patch.expires_at !== undefined) yield* checkFuture(patch.expires_at, now)
  if (patch.starts_at !== undefined || patch.expires_at !== undefined) {
    yield* checkWindow(
      patch.starts_at === undefined ? current.starts_at : patch.starts_at,
      patch.expires_at === undefined ? current.expires_at : patch.expires_at
    )
  }
  return { patch: patch as PromoPatch, approval: approvalOf(sent) }
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
