/**
 * A boolean the store API's lenient way: JSON booleans as they are; anything else is read as true unless it is one of
 * the values a boolean cast reads as false (`0`, `""`, `"0"`, `[]`) — so the string `"false"` is true.
 */
import { Schema, SchemaTransformation } from "effect"

export const LooseBoolean = Schema.Unknown.pipe(
  Schema.decodeTo(
    Schema.Boolean,
    SchemaTransformation.transform({
      decode: (value) =>
        typeof value === "boolean"
          ? value
          : !(value === 0 || value === "" || value === "0" || (Array.isArray(value) && value.length === 0)),
      encode: (value) => value
    })
  )
)

export const looseBoolean = Schema.decodeUnknownSync(LooseBoolean)
