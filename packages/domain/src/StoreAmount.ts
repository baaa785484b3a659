/**
 * Money on the store API: exact decimals (`BigDecimal`), never floating point.
 *
 * The store takes amounts as JSON numbers "exactly as sent" (`shipping_cost: 350.5`) and returns some as decimal
 * strings (`price_adjustment: "350.50"`). A JSON number is read through its shortest decimal form, `String(n)`,
 * which is the text the sender wrote for any amount of up to 15 significant digits; no arithmetic is ever done on
 * the binary float. Amounts are kept at the precision they arrived with and never rounded.
 */
import { BigDecimal, Schema, SchemaTransformation } from "effect"

export type StoreAmount = BigDecimal.BigDecimal
export const StoreAmount = Schema.BigDecimal

export const zero: StoreAmount = BigDecimal.fromBigInt(0n)

export const isNonNegative = Schema.isGreaterThanOrEqualToBigDecimal(zero, { message: "Expected an amount >= 0" })

/**
 * The largest amount the store API takes, in either sign (`MAXIMUM_TEXT`, one hundred million dinars): every price,
 * variant adjustment, order shipping cost, discount and fee, and promo code amount. Storage is not what bounds it
 * (`numeric` holds far more); answers are: amounts go out as JSON numbers, and an order priced from amounts of at
 * most this stays below 2^53 (`Pricing.MAX_TOTAL`), a finite number exact to the dinar, where `1e308` made the total
 * of two `Infinity`.
 */
export const MAXIMUM_TEXT = "100000000"
export const MAXIMUM: StoreAmount = BigDecimal.fromStringUnsafe(MAXIMUM_TEXT)

/** `-MAXIMUM` to `MAXIMUM` (a variant's adjustment may be negative); `annotations` carry the field's message. */
export const isWithinMaximum = (annotations?: Schema.Annotations.Filter) =>
  Schema.isBetweenBigDecimal(
    { minimum: BigDecimal.negate(MAXIMUM), maximum: MAXIMUM },
    { message: `Expected an amount between -${MAXIMUM_TEXT} and ${MAXIMUM_TEXT}`, ...annotations }
  )

/** At most `MAXIMUM`; `annotations` carry the field's message. */
export const isAtMostMaximum = (annotations?: Schema.Annotations.Filter) =>
  Schema.isLessThanOrEqualToBigDecimal(MAXIMUM, {
    message: `Expected an amount of at most ${MAXIMUM_TEXT}`,
    ...annotations
  })

/**
 * The canonical text of an amount: at least 2 decimals (`"1250.00"`, `"350.50"`). An amount sent with more
 * decimals keeps them all (`"0.125"`) rather than be rounded behind the sender's back.
 */
export const format = (amount: StoreAmount): string => {
  const normalized = BigDecimal.normalize(amount)
  const { scale, value } = normalized.scale < 2 ? BigDecimal.scale(normalized, 2) : normalized
  const digits = String(value < 0n ? -value : value).padStart(scale + 1, "0")
  const point = digits.length - scale
  return `${value < 0n ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`
}

/**
 * A JSON number read exactly as written (`350.5` is 350.5, `0.1` is 0.1). Encodes back to the number with that
 * decimal form; beyond 15 significant digits the number, not the decimal, is approximate.
 */
export const FromNumber = Schema.Finite.pipe(
  Schema.decodeTo(
    StoreAmount,
    SchemaTransformation.transform({
      // `fromNumberUnsafe` parses `${n}`, the shortest round-tripping decimal form, never the binary value.
      decode: BigDecimal.fromNumberUnsafe,
      encode: BigDecimal.toNumberUnsafe
    })
  )
)

/** A plain decimal string such as `"350.50"` or `"-200"`: no exponent, no spaces, no empty string. */
export const FromString = Schema.String.check(
  Schema.isPattern(/^-?\d+(?:\.\d+)?$/, { message: 'Expected a decimal amount such as "350.50"' })
).pipe(
  Schema.decodeTo(
    StoreAmount,
    SchemaTransformation.transform({
      decode: BigDecimal.fromStringUnsafe,
      encode: format
    })
  )
)

export const sum = (amounts: Iterable<StoreAmount>): StoreAmount => BigDecimal.sumAll(amounts)

/** `amount` times a line quantity. Throws a `RangeError` when `quantity` is not an integer. */
export const times = (amount: StoreAmount, quantity: number): StoreAmount =>
  BigDecimal.multiply(amount, BigDecimal.fromBigInt(BigInt(quantity)))

export const subtract = (minuend: StoreAmount, subtrahend: StoreAmount): StoreAmount =>
  BigDecimal.subtract(minuend, subtrahend)

export const clampAtZero = (amount: StoreAmount): StoreAmount => BigDecimal.max(amount, zero)

/** The amount as a JSON number; exact in JSON for amounts of up to 15 significant digits. */
export const toJsonNumber = (amount: StoreAmount): number => BigDecimal.toNumberUnsafe(amount)
