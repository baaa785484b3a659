/**
 * A JSON request body read field by field, as the store API's writes read theirs: its fields when it is a JSON
 * object, and whether it sent a field. A PATCH changes only the fields it sends (even as null), so each package asks
 * `sent` before it applies a field's own rule.
 */
import { Schema } from "effect"

/** A JSON object's fields. */
export const BodyFields = Schema.Record(Schema.String, Schema.Unknown)
export type BodyFields = typeof BodyFields.Type

/** The fields of `value` when it is a JSON object (not an array, not null), else `None`. */
export const fieldsOf = Schema.decodeUnknownOption(BodyFields)

/** Whether the body sent `name`, even as null (a JSON body never holds `undefined`; a value built in code may). */
export const sent = (fields: BodyFields, name: string): boolean =>
  Object.hasOwn(fields, name) && fields[name] !== undefined
