/**
 * The field schemas shared by the rates, sync and settings bodies, each failing with one message whatever is wrong
 * (messages are relative to the field: `BodyFields.decode` prefixes its path): an amount (a JSON number exactly as
 * written, or a decimal string; 0 to `StoreAmount.MAXIMUM`, at most 15 significant digits), a wilaya of the 58 (a
 * code of the 2026 division answered with the code couriers take instead, as the shipping API answers it), a list
 * with no item twice, and text PostgreSQL keeps as sent (`StoreText`).
 */
import { BodyFields, StoreAmount, StoreText, type WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { BigDecimal, Option, Schema } from "effect"

/** The number of significant digits of an amount (`1250.00` has 3): more than 15 would not come back as sent. */
const significantDigits = (amount: BigDecimal.BigDecimal): number => {
  const { value } = BigDecimal.normalize(amount)
  return value === 0n ? 1 : String(value < 0n ? -value : value).length
}

/** What an amount field's refusal says after its name: `must be an amount from 0 to 100000000 …`. */
export const amountMessage = (nullable: boolean, maximum: string = StoreAmount.MAXIMUM_TEXT) =>
  `must be an amount from 0 to ${maximum} (a number, or a decimal string such as "450.00")` +
  (nullable ? ", or null" : "")

/** An amount as the store API takes it, from 0 to `maximum`; whatever is wrong, `message`. */
export const amount = (message: string, maximum: string = StoreAmount.MAXIMUM_TEXT) => {
  const bound = BigDecimal.fromStringUnsafe(maximum)
  return Schema.Union([StoreAmount.FromNumber, StoreAmount.FromString])
    .annotate({ message })
    .check(
      Schema.makeFilter(
        (value: BigDecimal.BigDecimal) =>
          BigDecimal.isGreaterThanOrEqualTo(value, StoreAmount.zero) &&
          BigDecimal.isLessThanOrEqualTo(value, bound) &&
          significantDigits(value) <= 15,
        { message }
      )
    )
    .pipe(BodyFields.oneMessage(message))
}

/** `value` as an amount from 0 to `StoreAmount.MAXIMUM` (a courier's quote, recorded values), or `None`. */
export const amountOf: (value: unknown) => Option.Option<BigDecimal.BigDecimal> = Schema.decodeUnknownOption(
  amount(amountMessage(false))
)

/** `schema` or null, one message for both. */
export const nullable = <S extends Schema.Top>(schema: S, message: string) =>
  Schema.NullOr(schema).annotate({ message })

/** A key the body must have; `message` when it is missing. */
export const required = <S extends Schema.Top>(schema: S, message: string) =>
  schema.pipe(Schema.annotateKey({ messageMissingKey: message }))

export const WILAYA_MESSAGE = "must be a wilaya code, an integer from 1 to 58"

/**
 * A code of the 2026 division (59 to 69) is answered with the wilaya couriers still deliver it as (`shipAs`), like
 * the shipping API answers it.
 */
const deliveredAs = Schema.makeFilter((code: number) => {
  const wilaya = Option.getOrUndefined(Wilayas.byCode(code))
  if (wilaya?.shipAs === undefined) return undefined
  const shipAs = Option.getOrThrow(Wilayas.byCode(wilaya.shipAs))
  return (
    `: wilaya ${wilaya.code} (${wilaya.nameFr}) is not accepted by couriers yet: send ${shipAs.code} ` +
    `(${shipAs.nameFr}), the wilaya couriers deliver it as`
  )
})

/** One of the 58 wilayas couriers deliver to. */
export const wilaya = Schema.Number.annotate({ message: WILAYA_MESSAGE })
  .check(
    Schema.isInt({ message: WILAYA_MESSAGE }).abort(),
    deliveredAs.abort(),
    Schema.isBetween({ minimum: 1, maximum: 58 }, { message: WILAYA_MESSAGE })
  )
  .pipe(Schema.brand("WilayaCode")) satisfies Schema.Codec<WilayaCode.WilayaCode, number>

/** The first item whose `key` repeats an earlier one's is refused at `[index, ...at]`: `: <key> is listed twice`. */
export const listedOnce = <A>(key: (item: A) => number, at: ReadonlyArray<PropertyKey>) =>
  Schema.makeFilter<ReadonlyArray<A>>((items) => {
    const seen = new Set<number>()
    for (const [index, item] of items.entries()) {
      const value = key(item)
      if (seen.has(value)) return { path: [index, ...at], issue: `: wilaya ${value} is listed twice` }
      seen.add(value)
    }
    return undefined
  })

/** A string PostgreSQL keeps as sent (no NUL character, no lone surrogate). */
export const storable = (message: string) => Schema.String.annotate({ message }).check(StoreText.storable({ message }))

/** Two amounts, either possibly absent, are the same value (`400` and `400.00` are). */
export const sameAmount = (a: BigDecimal.BigDecimal | null, b: BigDecimal.BigDecimal | null): boolean =>
  a === null || b === null ? a === b : BigDecimal.equals(a, b)

/** An amount as a JSON number (recorded values and answers). */
export const toNumber = (amount: BigDecimal.BigDecimal | null): number | null =>
  amount === null ? null : StoreAmount.toJsonNumber(amount)
