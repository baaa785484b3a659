/**
 * The codecs of a promo code body's fields, each reading the lenient forms the spec allows (numeric strings, `0`,
 * `""` or null for "none", any letter case), so that `PromoRules` decodes every untrusted value with a schema and
 * only orders the checks and names their codes.
 */
import { AlgiersTime, StoreAmount } from "@tawsil/domain"
import { BigDecimal, DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

/** An amount: a JSON number exactly as written, or a decimal string such as `"350.50"`. */
export const Amount = Schema.Union([StoreAmount.FromNumber, StoreAmount.FromString])

/** Nothing sent for an optional amount or count: `null` or `""` (`0` is read by the field's own schema). */
export const Blank = Schema.Union([Schema.Null, Schema.Literal("")])

/** A whole count: a JSON integer or a string of digits. */
export const Count = Schema.Union([
  Schema.Int,
  Schema.String.check(Schema.isPattern(/^\s*-?\d{1,15}\s*$/)).pipe(
    Schema.decodeTo(
      Schema.Int,
      SchemaTransformation.transform({ decode: (text) => Number(text.trim()), encode: (n) => String(n) })
    )
  )
])

/** The code's text: trimmed and upper-cased, then 2 to 30 of `A-Z 0-9 - _`. */
export const Code = Schema.String.pipe(
  Schema.decodeTo(
    Schema.String.check(Schema.isPattern(/^[A-Z0-9_-]{2,30}$/)),
    SchemaTransformation.transform({ decode: (text) => text.trim().toUpperCase(), encode: (text) => text })
  )
)

/** `percentage` or `fixed`, any letter case. */
export const DiscountTypeText = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(["percentage", "fixed"]),
    // The target checks the normalised text is one of the two.
    SchemaTransformation.transform({
      decode: (text) => text.trim().toLowerCase() as "percentage" | "fixed",
      encode: (text) => text
    })
  )
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
export const DateTimeText = Schema.String.pipe(
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

/** The number of significant digits of an amount (`1250.00` has 3). */
export const significantDigits = (amount: BigDecimal.BigDecimal): number => {
  const { value } = BigDecimal.normalize(amount)
  return value === 0n ? 1 : String(value < 0n ? -value : value).length
}
