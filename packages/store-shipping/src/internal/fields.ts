/**
 * The field rules shared by the rates and the settings bodies: an amount (a JSON number exactly as written, or a
 * decimal string; 0 to `StoreAmount.MAXIMUM`, at most 15 significant digits), a wilaya of the 58 (a code of the
 * 2026 division answered with the code couriers take instead, as the shipping API answers it), and text PostgreSQL
 * keeps as sent (`StoreText`).
 */
import { StoreAmount, WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { BigDecimal, Option, Result, Schema } from "effect"

/** An amount as the store API takes it. */
const Amount = Schema.Union([StoreAmount.FromNumber, StoreAmount.FromString])
const decodeAmount = Schema.decodeUnknownOption(Amount)

/** The number of significant digits of an amount (`1250.00` has 3): more than 15 would not come back as sent. */
const significantDigits = (amount: BigDecimal.BigDecimal): number => {
  const { value } = BigDecimal.normalize(amount)
  return value === 0n ? 1 : String(value < 0n ? -value : value).length
}

/** `value` as an amount from 0 to `maximum`, or `None`. */
export const amountOf = (
  value: unknown,
  maximum: BigDecimal.BigDecimal = StoreAmount.MAXIMUM
): Option.Option<BigDecimal.BigDecimal> =>
  Option.filter(
    decodeAmount(value),
    (amount) =>
      BigDecimal.isGreaterThanOrEqualTo(amount, StoreAmount.zero) &&
      BigDecimal.isLessThanOrEqualTo(amount, maximum) &&
      significantDigits(amount) <= 15
  )

/** What an amount field's refusal says: `home_price must be an amount from 0 to 100000000 …`. */
export const amountRule = (field: string, nullable: boolean, maximum: string = StoreAmount.MAXIMUM_TEXT) =>
  `${field} must be an amount from 0 to ${maximum} (a number, or a decimal string such as "450.00")` +
  (nullable ? ", or null" : "")

/**
 * `value` as one of the 58 wilayas couriers deliver to, or why not: a code of the 2026 division (59 to 69) is
 * answered with the wilaya couriers still deliver it as (`shipAs`), like the shipping API answers it.
 */
export const wilayaOf = (value: unknown, field: string): Result.Result<WilayaCode.WilayaCode, string> => {
  if (Schema.is(WilayaCode.WilayaCode)(value)) return Result.succeed(value)
  if (typeof value === "number") {
    const wilaya = Option.getOrUndefined(Wilayas.byCode(value))
    if (wilaya?.shipAs !== undefined) {
      const shipAs = Option.getOrThrow(Wilayas.byCode(wilaya.shipAs))
      return Result.fail(
        `${field}: wilaya ${wilaya.code} (${wilaya.nameFr}) is not accepted by couriers yet: send ${shipAs.code} ` +
          `(${shipAs.nameFr}), the wilaya couriers deliver it as`
      )
    }
  }
  return Result.fail(`${field} must be a wilaya code, an integer from 1 to 58`)
}

/** Two amounts, either possibly absent, are the same value (`400` and `400.00` are). */
export const sameAmount = (a: BigDecimal.BigDecimal | null, b: BigDecimal.BigDecimal | null): boolean =>
  a === null || b === null ? a === b : BigDecimal.equals(a, b)

/** An amount as a JSON number (recorded values and answers). */
export const toNumber = (amount: BigDecimal.BigDecimal | null): number | null =>
  amount === null ? null : StoreAmount.toJsonNumber(amount)
