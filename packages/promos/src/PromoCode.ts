/**
 * A promo code (spec "Promo code"): the record as kept and as the store API shows it, which is also the form the
 * change history records it in. Amounts are exact decimals shown as JSON numbers; times are Algeria time
 * `YYYY-MM-DD HH:MM:SS`.
 */
import { AlgiersTime, BodyFields, StoreAmount } from "@tawsil/domain"
import { type BigDecimal, type DateTime, Schema, Struct } from "effect"
import * as field from "./internal/fields.ts"

export const PromoCodeId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.brand("PromoCodeId"))
export type PromoCodeId = typeof PromoCodeId.Type

export const DiscountType = Schema.Literals(["percentage", "fixed"])
export type DiscountType = typeof DiscountType.Type

export class PromoCode extends Schema.Class<PromoCode>("PromoCode")({
  id: PromoCodeId,
  /** Upper case, `A-Z 0-9 - _`, unique per store. */
  code: Schema.String,
  discount_type: DiscountType,
  /** A percentage above 0 and at most 100, or an amount in DZD. */
  discount_value: StoreAmount.FromNumber,
  /** The minimum products subtotal; null for none. */
  min_order_amount: Schema.NullOr(StoreAmount.FromNumber),
  /** Null for unlimited. */
  max_uses: Schema.NullOr(Schema.Int),
  used_count: Schema.Int,
  is_active: Schema.Boolean,
  /** Algeria time; before it the code is refused. */
  starts_at: Schema.NullOr(AlgiersTime.SqlTimestamp),
  /** Algeria time; after it the code is refused. */
  expires_at: Schema.NullOr(AlgiersTime.SqlTimestamp),
  created_at: AlgiersTime.SqlTimestamp,
  updated_at: AlgiersTime.SqlTimestamp
}) {}

/** A code's fields as a struct (what a delete records whole). */
export const PromoCodeFields = Schema.Struct(PromoCode.fields)

/**
 * What a `promo_code` change records: the whole code (a create, a delete), or the fields an update changed, with the
 * code's `id` (never `updated_at`, which every write moves).
 */
export const RecordedPromo = PromoCodeFields.mapFields((fields) => ({
  ...Struct.map(fields, Schema.optionalKey),
  id: PromoCodeId
}))
export type RecordedPromo = typeof RecordedPromo.Type

/** How `promo_code` changes lay out their values: `id` always; `updated_at` never. */
export const LAYOUT = { kept: ["id"], ignored: ["updated_at"] }

/** The values a create sets and a PATCH may change (`used_count` is never written by a caller). */
export interface PromoValues {
  readonly code: string
  readonly discount_type: DiscountType
  readonly discount_value: BigDecimal.BigDecimal
  readonly min_order_amount: BigDecimal.BigDecimal | null
  readonly max_uses: number | null
  readonly is_active: boolean
  readonly starts_at: DateTime.Utc | null
  readonly expires_at: DateTime.Utc | null
}

export type PromoPatch = Partial<PromoValues>

/** What an undo writes back: the values plus what a deleted code returns with (its id, usage count, creation). */
export interface PromoRestore extends PromoValues {
  readonly id: PromoCodeId
  readonly used_count: number
  readonly created_at: DateTime.Utc
}

export const valuesOf = (promo: PromoCode): PromoValues => ({
  code: promo.code,
  discount_type: promo.discount_type,
  discount_value: promo.discount_value,
  min_order_amount: promo.min_order_amount,
  max_uses: promo.max_uses,
  is_active: promo.is_active,
  starts_at: promo.starts_at,
  expires_at: promo.expires_at
})

/** `GET /v1/promo-codes` data: the list envelope plus whether the add-on is active. */
export const PromoCodeList = Schema.Struct({
  items: Schema.Array(PromoCode),
  next_cursor: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean,
  addon_enabled: Schema.Boolean
}).annotate({ identifier: "PromoCodeList" })
export type PromoCodeList = typeof PromoCodeList.Type

/** `DELETE /v1/promo-codes/{id}` data. */
export const PromoCodeDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: Schema.Int }).annotate({
  identifier: "PromoCodeDeleted"
})
export type PromoCodeDeleted = typeof PromoCodeDeleted.Type

// ---------------------------------------------------------------------------------------------------------------
// Bodies

const DATE_FORMS = "use YYYY-MM-DD HH:MM:SS (Algeria time) or ISO 8601"

/** The spec's message for each field, relative to the field's name (`code must be …`). */
const messages = {
  code: "must be 2 to 30 characters of A-Z, 0-9, - and _",
  discount_type: "must be percentage or fixed",
  discount_value: `must be a number above 0, at most 100 for a percentage and ${StoreAmount.MAXIMUM_TEXT} for a fixed amount`,
  min_order_amount: `must be a number from 0 to ${StoreAmount.MAXIMUM_TEXT} (0, empty or null for none)`,
  max_uses: "must be a whole number of 1 or more (0, empty or null for unlimited)",
  starts_at: `is not a date-time we can read; ${DATE_FORMS}`,
  expires_at: `is not a date-time we can read; ${DATE_FORMS}`
}

export const CODE_MESSAGE = `code ${messages.code}`
export const DISCOUNT_TYPE_MESSAGE = `discount_type ${messages.discount_type}`
export const DISCOUNT_VALUE_MESSAGE = `discount_value ${messages.discount_value}`
export const MIN_ORDER_MESSAGE = `min_order_amount ${messages.min_order_amount}`
export const MAX_USES_MESSAGE = `max_uses ${messages.max_uses}`
export const STARTS_AT_MESSAGE = `starts_at ${messages.starts_at}`
export const EXPIRES_AT_MESSAGE = `expires_at ${messages.expires_at}`

const required = <S extends Schema.Top>(schema: S, message: string) =>
  schema.pipe(Schema.annotateKey({ messageMissingKey: message }))

const bodyFields = {
  /** Trimmed and upper-cased; 2 to 30 of `A-Z 0-9 - _`; unique per store (409 `code_exists`). */
  code: field.code(messages.code),
  /** `percentage` or `fixed`, any letter case. */
  discount_type: field.discountType(messages.discount_type),
  /** Above 0; at most 100 for a percentage (100 needs confirmation); a number or a decimal string. */
  discount_value: field.discountValue(messages.discount_value),
  /** Minimum products subtotal; `0`, `""` or null for none. */
  min_order_amount: Schema.optionalKey(field.minOrderAmount(messages.min_order_amount)),
  /** 1 or more; `0`, `""` or null for unlimited. */
  max_uses: Schema.optionalKey(field.maxUses(messages.max_uses)),
  /** Default true; any value other than a JSON boolean is read as a boolean cast would (`"false"` is true). */
  is_active: Schema.optionalKey(Schema.Unknown),
  /** `YYYY-MM-DD HH:MM:SS` Algeria time, or ISO 8601 (an offset is converted); null or `""` for none. */
  starts_at: Schema.optionalKey(field.dateTime(messages.starts_at)),
  /** Same forms; in the future and after `starts_at`; null or `""` for none. */
  expires_at: Schema.optionalKey(field.dateTime(messages.expires_at)),
  /** The token of a `confirmation_required` answer, for a 100% discount. */
  confirm_token: Schema.optionalKey(field.loose(Schema.String)),
  /** true skips the 100% confirmation; dashboard-created keys only (ignored for others). */
  confirm_full_discount: Schema.optionalKey(field.loose(Schema.Boolean))
}

/**
 * `POST /v1/promo-codes` body, in the spec's order, which is the order its fields are checked in (the first
 * failure answers, with the field's own code). The rules between fields, or with the clock, are `PromoRules`'.
 */
export const PromoCodeBody = Schema.Struct({
  ...bodyFields,
  code: required(bodyFields.code, messages.code),
  discount_type: required(bodyFields.discount_type, messages.discount_type),
  discount_value: required(bodyFields.discount_value, messages.discount_value)
}).annotate({ identifier: "PromoCodeCreate", ...BodyFields.objectMessage })
export type PromoCodeBody = typeof PromoCodeBody.Type

/** `PATCH /v1/promo-codes/{id}` body: any create field; only sent fields change; `used_count` is ignored. */
export const PromoCodePatchBody = Schema.Struct({
  ...bodyFields,
  code: Schema.optionalKey(bodyFields.code),
  discount_type: Schema.optionalKey(bodyFields.discount_type),
  discount_value: Schema.optionalKey(bodyFields.discount_value)
}).annotate({ identifier: "PromoCodePatch", ...BodyFields.objectMessage })
export type PromoCodePatchBody = typeof PromoCodePatchBody.Type
