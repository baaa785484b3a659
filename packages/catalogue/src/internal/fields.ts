/**
 * Field schemas of request bodies, each failing with one message whatever is wrong (type, range, length), so a
 * caller reads what was expected. Messages are relative to the field: `BodyFields.decode` prefixes the field's path.
 */
import { StoreAmount, StoreText } from "@tawsil/domain"
import { Effect, Schema } from "effect"

/**
 * A string PostgreSQL keeps as sent (`StoreText`): `text` refuses a NUL character, and would store a lone surrogate
 * as U+FFFD (a landing page's slug then never matches its stored self when made unique).
 */
export const storable = (message: string) => Schema.String.annotate({ message }).check(StoreText.storable({ message }))

/** A string of `min` to `max` characters (code points, so an emoji counts once). */
export const text = (min: number, max: number, message: string) =>
  storable(message).check(Schema.isBetweenCodePoints(min, max, { message }))

/** An integer in `min..max`. */
export const integer = (min: number, max: number, message: string) =>
  Schema.Number.annotate({ message }).check(
    // Abort after a fraction so that 0.5 is reported once, not also as out of range.
    Schema.isInt({ message }).abort(),
    Schema.isBetween({ minimum: min, maximum: max }, { message })
  )

/** The message of an amount beyond `StoreAmount.MAXIMUM`. */
export const MAXIMUM_MESSAGE = `must be at most ${StoreAmount.MAXIMUM_TEXT}`
const WITHIN_MAXIMUM_MESSAGE = `must be between -${StoreAmount.MAXIMUM_TEXT} and ${StoreAmount.MAXIMUM_TEXT}`

const finiteAmount = (message: string) =>
  // `Schema.Finite.annotate` would name only its finiteness check; the type check needs the message too.
  Schema.Number.annotate({ message }).check(Schema.isFinite({ message })).pipe(Schema.decodeTo(StoreAmount.FromNumber))

/** An exact amount from a JSON number (`StoreAmount.FromNumber`), any sign, within ±`StoreAmount.MAXIMUM`. */
export const amount = (message: string) =>
  finiteAmount(message).check(StoreAmount.isWithinMaximum({ message: WITHIN_MAXIMUM_MESSAGE }))

/** An exact amount from 0 to `StoreAmount.MAXIMUM`. */
export const nonNegativeAmount = (message: string) =>
  finiteAmount(message).check(
    StoreAmount.isNonNegative.annotate({ message }),
    StoreAmount.isAtMostMaximum({ message: MAXIMUM_MESSAGE })
  )

/** `schema` or `null`, one message for both. */
export const nullable = <S extends Schema.Top>(schema: S, message: string) =>
  Schema.NullOr(schema).annotate({ message })

/** A key the body must have; `message` when it is missing. */
export const required = <S extends Schema.Top>(schema: S, message: string) =>
  schema.pipe(Schema.annotateKey({ messageMissingKey: message }))

/** A key the body may leave out, then `value` (given in its JSON form). */
export const withDefault =
  <S extends Schema.Top & { readonly DecodingServices: never }>(value: S["Encoded"]) =>
  (schema: S) =>
    schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/** The first item of an array whose `key` repeats an earlier one is refused at `[index, field]`. */
export const uniqueBy = <A>(field: string, key: (item: A) => string, message: string) =>
  Schema.makeFilter<ReadonlyArray<A>>((items) => {
    const seen = new Set<string>()
    for (const [index, item] of items.entries()) {
      const value = key(item)
      if (seen.has(value)) return { path: [index, field], issue: message }
      seen.add(value)
    }
    return undefined
  })
