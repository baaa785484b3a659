/**
 * The mobile check every courier call makes, as a plain function: `AlgerianMobile` (in `@tawsil/domain`) runs a
 * Schema decode per call, which the sandbox create path paid on every request. Same rule, same accepted and refused
 * inputs — a fast-check property compares the two on generated phone strings — while the schema stays what requests
 * and the OpenAPI document use. Change the rule there first; the property then fails until this follows.
 */

/** Separators allowed between digits: whitespace, dots, dashes, parentheses (as `AlgerianMobile`). */
const separators = /[\s.()-]/g
/** `+213`/`00213` (a 0 after it tolerated) or `0`, then 5, 6 or 7 and 8 ASCII digits (as `AlgerianMobile`). */
const accepted = /^(?:(?:\+|00)2130?|0)([567]\d{8})$/

/** The national form `0XXXXXXXXX` of an Algerian mobile number, or `undefined` when `input` is not one. */
export const nationalMobile = (input: string): string | undefined => {
  const match = accepted.exec(input.replace(separators, ""))
  return match === null ? undefined : `0${match[1]}`
}
