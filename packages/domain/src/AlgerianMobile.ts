/**
 * Algerian mobile phone numbers: 05, 06 or 07 followed by 8 digits, kept in the national form `0XXXXXXXXX`.
 *
 * Input may carry the international prefix (`+213` or `00213`, which replaces the leading 0) and spaces, dots,
 * dashes or parentheses between digits. Two edge cases are decided here:
 * - a 0 after the country code (`+213 0555 12 34 56`, also written `+213 (0) 555 …`) is accepted: it is a common
 *   way to write the number, and the digit count leaves no doubt about which number is meant;
 * - the country code without `+` or `00` (`213555123456`) is rejected, like every other form not listed above.
 *
 * Landlines (`021…`), other countries and wrong lengths are rejected. The schema only accepts strings: a request
 * schema types the phone as `Schema.String` (anything else is invalid input) and the handler then applies
 * `AlgerianMobile` or {@link normalize}, so that "not a mobile" can be answered as a refused rule on its own.
 */
import { Option, Schema, SchemaTransformation } from "effect"

const message = "Expected an Algerian mobile number: 05, 06 or 07 followed by 8 digits"

const separators = /[\s.()-]/g
const accepted = /^(?:(?:\+|00)2130?|0)([567]\d{8})$/

/** The national form `0XXXXXXXXX` of an accepted input, or `undefined`: the rule itself, without a Schema run. */
const nationalForm = (input: string): string | undefined => {
  const match = accepted.exec(input.replace(separators, ""))
  return match === null ? undefined : `0${match[1]}`
}

const Canonical = Schema.String.check(Schema.isPattern(/^0[567]\d{8}$/, { message })).pipe(
  Schema.brand("AlgerianMobile")
)

/** Decodes any accepted form to `0XXXXXXXXX`; encodes the national form as it is. */
export const AlgerianMobile = Schema.String.pipe(
  Schema.decodeTo(
    Canonical,
    SchemaTransformation.transform({
      // A string that is not a mobile is passed on unchanged, for the check on `Canonical` to refuse it.
      decode: (input) => nationalForm(input) ?? input,
      encode: (mobile) => mobile
    })
  )
)
export type AlgerianMobile = typeof AlgerianMobile.Type

/**
 * The national form of an Algerian mobile number, or `None` when `input` is not one: what decoding `AlgerianMobile`
 * gives, as a plain function (a Schema run per call cost the courier create path a few microseconds; a property test
 * compares the two).
 */
export const normalize = (input: string): Option.Option<AlgerianMobile> => {
  const mobile = nationalForm(input)
  return mobile === undefined ? Option.none() : Option.some(mobile as AlgerianMobile)
}

/**
 * A phone as a courier's create takes it: the national form of an Algerian mobile, or the text as sent (trimmed)
 * when it is not one, for the courier's own checks to answer.
 */
export const nationalOrAsSent = (input: string): string => nationalForm(input) ?? input.trim()
