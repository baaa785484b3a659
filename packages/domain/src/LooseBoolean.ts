/**
 * The store API's lenient booleans, each read the way the spec writes it for its field:
 *
 * - a body field read as a boolean cast reads it ({@link LooseBoolean}, {@link cast}: promo codes' `is_active`,
 *   pixels' `is_active` and `is_default`): a JSON boolean as it is; anything else is true unless it is one of the
 *   values a cast reads as false (`0`, `""`, `"0"`, `[]`), so the string `"false"` is true;
 * - a query flag ({@link fromQuery}: the promo code list's `is_active`): `true`, `1`, `yes` and `on`, exactly as
 *   written, are true; any other value is false (`TRUE`, ` yes`, `On` too); no value at all is no filter.
 */
import { Schema, SchemaTransformation } from "effect"

const castsToFalse = (value: unknown) =>
  value === 0 || value === "" || value === "0" || (Array.isArray(value) && value.length === 0)

export const LooseBoolean = Schema.Unknown.pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (value) => (typeof value === "boolean" ? value : !castsToFalse(value)),
      encode: (value) => value
    })
  )
)

/** A body value as a boolean cast reads it. */
export const cast: (value: unknown) => boolean = Schema.decodeUnknownSync(LooseBoolean)

/** The query values that mean true, as the spec writes them. */
export const TRUE_WORDS: ReadonlyArray<string> = ["true", "1", "yes", "on"]

/** A query flag: `undefined` when absent, else whether it is one of {@link TRUE_WORDS} exactly. */
export const fromQuery = (raw: string | undefined): boolean | undefined =>
  raw === undefined ? undefined : TRUE_WORDS.includes(raw)
