/**
 * The codecs of a promo code body's fields, each reading the lenient forms the spec allows (numeric strings, `0`,
 * `""` or null for "none", any letter case) and failing with one message, the field's, whatever is wrong: the body
 * schemas (`PromoCode.PromoCodeBody`, `PromoCodePatchBody`) are built from them.
 */
import { AlgiersTime, BodyFields, Ids, StoreAmount } from "@tawsil/domain"
import { BigDecimal, DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** Amounts are answered as JSON numbers, which hold 15 significant digits exactly: more are refused. */
export const MAX_SIGNIFICANT_DIGITS = 15

/** The number of significant digits of an amount (`1250.00` has 3). */
export const significantDigits = (amount: BigDecimal.BigDecimal): number => {
  const { value } = BigDecimal.normalize(amount)
  return value === 0n ? 1 : String(value < 0n ? -value : value).length
}

/**
 * Every amount is at most `StoreAmount.MAXIMUM`, the store API's bound for money (the spec's "no upper bound for
 * fixed" is read as no business bound: a fixed discount never takes more than the subtotal anyway).
 */
const isWithinMaximum = (amount: BigDecimal.BigDecimal) =>
  BigDecimal.isLessThanOrEqualTo(amount, StoreAmount.MAXIMUM) && significantDigits(amount) <= MAX_SIGNIFICANT_DIGITS

/** An amount: a JSON number exactly as written, or a decimal string such as `"350.50"`. */
const Amount = Schema.Union([StoreAmount.FromNumber, StoreAmount.FromString])

/** Nothing sent for an optional amount or count: `null` or `""` (`0` is read by the field's own schema). */
const Blank = Schema.Union([Schema.Null, Schema.Literal("")])

/** A whole count: a JSON integer or a string of digits. */
const Count = Schema.Union([
  Schema.Int,
  Schema.String.check(Schema.isPattern(/^\s*-?\d{1,15}\s*$/)).pipe(
    Schema.decodeTo(
      Schema.Int,
      SchemaTransformation.transform({ decode: (text) => Number(text.trim()), encode: (n) => String(n) })
    )
  )
])

/** `schema`, or null or `""` for none, read as null like the values `isNone` names; whatever is wrong, `message`. */
const orNone = <S extends Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }>(
  schema: S,
  accepts: (value: S["Type"]) => boolean,
  isNone: (value: S["Type"]) => boolean,
  message: string
) =>
  Schema.Union([Blank, schema])
    .annotate({ message })
    .check(
      Schema.makeFilter((value: null | "" | S["Type"]) => value === null || value === "" || accepts(value), {
        message
      })
    )
    .pipe(
      Schema.decodeTo(
        Schema.NullOr(Schema.toType(schema)),
        SchemaTransformation.transform({
          decode: (value: null | "" | S["Type"]): S["Type"] | null =>
            value === null || value === "" || isNone(value) ? null : value,
          encode: (value) => value
        })
      ),
      BodyFields.oneMessage(message)
    )

/** The code's text: trimmed and upper-cased, then 2 to 30 of `A-Z 0-9 - _`. */
export const code = (message: string) =>
  Schema.String.annotate({ message }).pipe(
    Schema.decodeTo(
      Schema.String.check(Schema.isPattern(/^[A-Z0-9_-]{2,30}$/, { message })),
      SchemaTransformation.transform({ decode: (text) => text.trim().toUpperCase(), encode: (text) => text })
    ),
    BodyFields.oneMessage(message)
  )

/** `percentage` or `fixed`, any letter case. */
export const discountType = (message: string) =>
  Schema.String.annotate({ message }).pipe(
    Schema.decodeTo(
      // The target checks the normalised text is one of the two.
      Schema.Literals(["percentage", "fixed"]).annotate({ message }),
      SchemaTransformation.transform({
        decode: (text) => text.trim().toLowerCase() as "percentage" | "fixed",
        encode: (text) => text
      })
    ),
    BodyFields.oneMessage(message)
  )

/** An amount above 0 and within the maximum (a percentage's bound of 100 is the pair rule's, in `PromoRules`). */
export const discountValue = (message: string) =>
  Amount.annotate({ message })
    .check(Schema.makeFilter((amount) => BigDecimal.isPositive(amount) && isWithinMaximum(amount), { message }))
    .pipe(BodyFields.oneMessage(message))

/** An amount from 0 to the maximum; 0, `""` or null for none (null). */
export const minOrderAmount = (message: string) =>
  orNone(Amount, (amount) => !BigDecimal.isNegative(amount) && isWithinMaximum(amount), BigDecimal.isZero, message)

/** A count of 1 or more, at most an id (the column is an `integer`); 0, `""` or null for unlimited (null). */
export const maxUses = (message: string) =>
  orNone(
    Count,
    (count) => count >= 0 && count <= Ids.MAX_ID,
    (count) => count === 0,
    message
  )
const DATE_TIME =
  /^(\d{4})[-/](\d{2})[-/](\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/**
 * A date-time in the common forms: `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]`, ISO 8601 with `T`, fractions of a second
 * and an offset (`Z`, `+01:00`, `+0100`, `+01`), `/` between date parts. Without an offset it is Algeria time; with
 * one it is converted. A date alone is its midnight.
 */
export const parseDateTime = (raw: string): Option.Option<DateTime.Utc> => {
  const match = DATE_TIME.exec(raw.trim())
  if (match === null) return Option.none()
  const [, y, mo, d, h = "00", mi = "00", s = "00", offset] = match
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) {
    return Option.none()
  }
  const local = `${y}-${mo}-${d}T${h}:${mi}:${s}`
  if (offset === undefined) {
    return Option.map(
      DateTime.makeZoned(`${local}Z`, { timeZone: AlgiersTime.zone, adjustForTimeZone: true }),
      DateTime.toUtc
    )
  }
  const zone =
    offset.toUpperCase() === "Z" ? "Z" : `${offset.slice(0, 3)}:${offset.length > 3 ? offset.slice(-2) : "00"}`
  return Option.map(DateTime.make(`${local}${zone}`), DateTime.toUtc)
}

/** A date-time string in a form `parseDateTime` reads. */
const DateTimeText = Schema.String.pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (text) =>
        Option.match(parseDateTime(text), {
          onNone: () => Effect.fail(new SchemaIssue.InvalidValue({ expected: "a date-time" }, text)),
          onSome: Effect.succeed
        }),
      encode: (dt) => Effect.succeed(AlgiersTime.formatSql(dt))
    })
  )
)

/** A date-time in a form `parseDateTime` reads; null or `""` for none (null). */
export const dateTime = (message: string) =>
  orNone(
    DateTimeText,
    () => true,
    () => false,
    message
  )

/** A value the body may send loosely: what it is when it has `schema`'s type, else as if not sent. */
export const loose = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) =>
  schema.pipe(Schema.catchDecoding(() => Effect.succeedNone))
