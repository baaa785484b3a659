/**
 * Integer schemas whose every failure reads as one message, so a caller's field error says what was expected
 * whether the input was a string, a fraction or out of range.
 */
import { Schema } from "effect"

export const integer = (range: { readonly minimum: number; readonly maximum?: number }, message: string) =>
  Schema.Number.annotate({ message }).check(
    // Abort after a fraction so that 0.5 is reported once, not also as out of range.
    Schema.isInt({ message }).abort(),
    range.maximum === undefined
      ? Schema.isGreaterThanOrEqualTo(range.minimum, { message })
      : Schema.isBetween({ minimum: range.minimum, maximum: range.maximum }, { message })
  )
