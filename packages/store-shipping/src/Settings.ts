/**
 * A store's shipping settings (`GET` and `PATCH /v1/shipping/settings`): where its parcels leave from, the courier
 * it ships with by default, the order amount from which delivery is free, the delivery type its checkout offers
 * first, and who pays the courier's fee on the cash collected at the door. Every store has them: a store that never
 * changed one reads the defaults.
 *
 * This module holds the wire shape, how a PATCH body is read (`parseSettingsPatch`: every refusal names its field)
 * and the form the change history records (`SettingsValues`).
 */
import { AlgiersTime, BodyFields, StoreText, WilayaCode } from "@tawsil/domain"
import { BigDecimal, type DateTime, Option, Result, Schema, Struct } from "effect"
import { amountOf, amountRule, sameAmount, toNumber, wilayaOf } from "./internal/fields.ts"

export const DeliveryType = Schema.Literals(["home", "desk"])
export type DeliveryType = typeof DeliveryType.Type

export const CodFeePayer = Schema.Literals(["merchant", "customer"])
export type CodFeePayer = typeof CodFeePayer.Type

/** The largest `cod_fee_percent`: the whole collected amount. */
export const MAX_COD_FEE_PERCENT = "100"

/** The settings' values, as the store keeps them. */
export interface SettingsFields {
  readonly origin_wilaya: WilayaCode.WilayaCode | null
  readonly default_courier: string | null
  readonly free_shipping_threshold: BigDecimal.BigDecimal | null
  readonly default_delivery_type: DeliveryType
  readonly cod_fee_payer: CodFeePayer
  readonly cod_fee_percent: BigDecimal.BigDecimal
}

export interface StoredSettings extends SettingsFields {
  /** When a PATCH (or an undo) last changed them; null for a store still on the defaults. */
  readonly updated_at: DateTime.Utc | null
}

/** What every store starts with. */
export const DEFAULTS: SettingsFields = {
  origin_wilaya: null,
  default_courier: null,
  free_shipping_threshold: null,
  default_delivery_type: "home",
  cod_fee_payer: "merchant",
  cod_fee_percent: BigDecimal.fromBigInt(0n)
}

const fields = {
  /**
   * The wilaya parcels leave from (1 to 58): what the courier rate sync prices from. Null until set; a wilaya of
   * the 2026 division (59 to 69) is refused with the code couriers deliver it as.
   */
  origin_wilaya: Schema.NullOr(Schema.Int),
  /** A courier key of `GET /v1/couriers` (an alias is saved as its key); null for none. */
  default_courier: Schema.NullOr(Schema.String),
  /** The products subtotal from which delivery is free, in DZD; null: delivery is never free. */
  free_shipping_threshold: Schema.NullOr(Schema.Number),
  /** The delivery type the checkout offers first: `home` or `desk` (stop-desk). */
  default_delivery_type: DeliveryType,
  /**
   * Who pays the courier's fee on the cash it collects: `merchant` (it stays in the delivery price) or `customer`
   * (the checkout adds `cod_fee_percent` of the order as its payment fee).
   */
  cod_fee_payer: CodFeePayer,
  /** The fee on collected cash the checkout adds when the customer pays it: a percentage, 0 to 100. */
  cod_fee_percent: Schema.Number
}

/** `GET /v1/shipping/settings` data. */
export const Settings = Schema.Struct({
  ...fields,
  /** `YYYY-MM-DD HH:MM:SS`, Algeria time; null while the store is on the defaults. */
  updated_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ShippingSettings" })
export type Settings = typeof Settings.Type

/** `PATCH /v1/shipping/settings` body: only sent fields change; an empty body changes nothing. */
export const SettingsPatchBody = Schema.Struct({
  origin_wilaya: Schema.optionalKey(fields.origin_wilaya),
  default_courier: Schema.optionalKey(fields.default_courier),
  /** A number or a decimal string, 0 to 100000000; null for none. */
  free_shipping_threshold: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Number, Schema.String]))),
  default_delivery_type: Schema.optionalKey(fields.default_delivery_type),
  cod_fee_payer: Schema.optionalKey(fields.cod_fee_payer),
  /** A number or a decimal string, 0 to 100. */
  cod_fee_percent: Schema.optionalKey(Schema.Union([Schema.Number, Schema.String]))
}).annotate({ identifier: "ShippingSettingsPatch" })

/** What the change history records of the settings (`shipping.settings`): the settings as `GET` shows them. */
export const SettingsValues = Schema.Struct({
  origin_wilaya: Schema.NullOr(WilayaCode.WilayaCode),
  default_courier: Schema.NullOr(Schema.String),
  free_shipping_threshold: Schema.NullOr(Schema.Number),
  default_delivery_type: DeliveryType,
  cod_fee_payer: CodFeePayer,
  cod_fee_percent: Schema.Number
})
export type SettingsValues = typeof SettingsValues.Type

/** What a `shipping.settings` change records: the settings it changed, as `GET /v1/shipping/settings` shows them. */
export const RecordedSettings = SettingsValues.mapFields(Struct.map(Schema.optionalKey))
export type RecordedSettings = typeof RecordedSettings.Type

/** How `shipping.settings` changes lay out their values: `updated_at` never. */
export const LAYOUT = { ignored: ["updated_at"] }

export const settingsOf = (stored: StoredSettings): Settings => ({
  ...valuesOf(stored),
  updated_at: stored.updated_at === null ? null : AlgiersTime.formatSql(stored.updated_at)
})

export const valuesOf = (settings: SettingsFields): SettingsValues => ({
  origin_wilaya: settings.origin_wilaya,
  default_courier: settings.default_courier,
  free_shipping_threshold: toNumber(settings.free_shipping_threshold),
  default_delivery_type: settings.default_delivery_type,
  cod_fee_payer: settings.cod_fee_payer,
  cod_fee_percent: toNumber(settings.cod_fee_percent) ?? 0
})

/** Recorded values as the settings they write (the values schema checked the wilaya and the literals). */
export const fieldsOf = (values: SettingsValues): Result.Result<SettingsFields, string> => {
  const threshold =
    values.free_shipping_threshold === null ? Option.some(null) : amountOf(values.free_shipping_threshold)
  const percent = amountOf(values.cod_fee_percent, BigDecimal.fromStringUnsafe(MAX_COD_FEE_PERCENT))
  if (Option.isNone(threshold)) return Result.fail(amountRule("free_shipping_threshold", true))
  if (Option.isNone(percent)) return Result.fail(amountRule("cod_fee_percent", false, MAX_COD_FEE_PERCENT))
  return Result.succeed({
    origin_wilaya: values.origin_wilaya,
    default_courier: values.default_courier,
    free_shipping_threshold: threshold.value,
    default_delivery_type: values.default_delivery_type,
    cod_fee_payer: values.cod_fee_payer,
    cod_fee_percent: percent.value
  })
}

export type SettingsPatch = Partial<SettingsFields>

/** The names of the settings, in the order they are shown. */
export const NAMES: ReadonlyArray<keyof SettingsFields> = [
  "origin_wilaya",
  "default_courier",
  "free_shipping_threshold",
  "default_delivery_type",
  "cod_fee_payer",
  "cod_fee_percent"
]

/**
 * A `PATCH /v1/shipping/settings` body read, or the message naming the first field that breaks its rule. `courier`
 * finds a courier's key from a key or an alias (the shipping API's catalogue); unknown fields are ignored.
 */
export const parseSettingsPatch = (
  body: unknown,
  courier: (keyOrAlias: string) => string | undefined
): Result.Result<SettingsPatch, string> => {
  const given = Option.getOrUndefined(BodyFields.fieldsOf(body))
  if (given === undefined) return Result.fail("Body must be a JSON object")
  const patch: { -readonly [K in keyof SettingsFields]?: SettingsFields[K] } = {}
  if (BodyFields.sent(given, "origin_wilaya")) {
    if (given.origin_wilaya === null) patch.origin_wilaya = null
    else {
      const wilaya = wilayaOf(given.origin_wilaya, "origin_wilaya")
      if (Result.isFailure(wilaya)) return Result.fail(wilaya.failure)
      patch.origin_wilaya = wilaya.success
    }
  }
  if (BodyFields.sent(given, "default_courier")) {
    const value = given.default_courier
    if (value === null) patch.default_courier = null
    else {
      const key = typeof value === "string" && StoreText.isStorable(value) ? courier(value) : undefined
      if (key === undefined) return Result.fail("default_courier must be a courier key of GET /v1/couriers, or null")
      patch.default_courier = key
    }
  }
  if (BodyFields.sent(given, "free_shipping_threshold")) {
    const value = given.free_shipping_threshold
    if (value === null) patch.free_shipping_threshold = null
    else {
      const amount = amountOf(value)
      if (Option.isNone(amount)) return Result.fail(amountRule("free_shipping_threshold", true))
      patch.free_shipping_threshold = amount.value
    }
  }
  if (BodyFields.sent(given, "default_delivery_type")) {
    if (!Schema.is(DeliveryType)(given.default_delivery_type)) {
      return Result.fail("default_delivery_type must be home or desk")
    }
    patch.default_delivery_type = given.default_delivery_type
  }
  if (BodyFields.sent(given, "cod_fee_payer")) {
    if (!Schema.is(CodFeePayer)(given.cod_fee_payer)) return Result.fail("cod_fee_payer must be merchant or customer")
    patch.cod_fee_payer = given.cod_fee_payer
  }
  if (BodyFields.sent(given, "cod_fee_percent")) {
    const amount = amountOf(given.cod_fee_percent, BigDecimal.fromStringUnsafe(MAX_COD_FEE_PERCENT))
    if (Option.isNone(amount)) return Result.fail(amountRule("cod_fee_percent", false, MAX_COD_FEE_PERCENT))
    patch.cod_fee_percent = amount.value
  }
  return Result.succeed(patch)
}

/** The names of the settings `next` holds with another value than `current`. */
export const changedNames = (current: SettingsFields, next: SettingsFields): ReadonlyArray<keyof SettingsFields> =>
  NAMES.filter((name) => {
    const [a, b] = [current[name], next[name]]
    return BigDecimal.isBigDecimal(a) || BigDecimal.isBigDecimal(b)
      ? !sameAmount(a as BigDecimal.BigDecimal | null, b as BigDecimal.BigDecimal | null)
      : a !== b
  })
