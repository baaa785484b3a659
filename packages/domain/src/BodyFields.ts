/**
 * A JSON request body, as the store API's writes read theirs: decoded with the schema the endpoint declares, each
 * field of which carries the spec's message for it, so that a refused body answers `<field> <message>`; and, for
 * what a schema cannot say alone (a rule between two fields, one that needs the stored record or the clock), its
 * fields when it is a JSON object and whether it sent a field.
 */
import { Effect, Schema, SchemaIssue } from "effect"

/** A JSON object's fields. */
export const BodyFields = Schema.Record(Schema.String, Schema.Unknown)
export type BodyFields = typeof BodyFields.Type

/** The fields of `value` when it is a JSON object (not an array, not null), else `None`. */
export const fieldsOf = Schema.decodeUnknownOption(BodyFields)

/** Whether the body sent `name`, even as null (a JSON body never holds `undefined`; a value built in code may). */
export const sent = (fields: BodyFields, name: string): boolean =>
  Object.hasOwn(fields, name) && fields[name] !== undefined

/** The message of a body that is not a JSON object; annotate a body's struct with {@link objectMessage}. */
export const OBJECT_MESSAGE = "Body must be a JSON object"
export const objectMessage = { message: OBJECT_MESSAGE } as const

/** Why a body was refused: the first issue of its decode. */
export interface Refusal {
  /** The refused value's place in the body (`["items", 2, "price"]`); empty for the body itself. */
  readonly path: ReadonlyArray<PropertyKey>
  /** The schema's message, relative to the path (`is required (1-255 chars)`). */
  readonly message: string
  /**
   * `<path> <message>` (`items[2].price must be …`), or the message alone for the body itself; a message that
   * starts with a colon follows the path directly (`rates[1].wilaya_id: wilaya 16 is listed twice`).
   */
  readonly text: string
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathText = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => {
    if (typeof key === "number") return `${text}[${key}]`
    return text === "" ? String(key) : `${text}.${String(key)}`
  }, "")

/** The refusal of the first issue of a failed decode. */
export const refusalOf = (issue: SchemaIssue.Issue): Refusal => {
  const [first] = formatter(issue).issues
  if (first === undefined) return { path: [], message: "Invalid body", text: "Invalid body" }
  const path = (first.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
  const at = pathText(path)
  const text = at === "" ? first.message : `${at}${first.message.startsWith(":") ? "" : " "}${first.message}`
  return { path, message: first.message, text }
}

/**
 * A schema whose every failure, wherever inside it, is one issue at its own place with `message`: for a value whose
 * parts must not be named or echoed (credentials), or whose rule is one sentence.
 */
export const oneMessage =
  (message: string) =>
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) =>
    schema.pipe(Schema.catchDecoding(() => Effect.fail(new SchemaIssue.InvalidValue({ message }))))

/** Decodes an untrusted body with `schema`, failing with `refuse` of the first issue's refusal. */
export const decode = <S extends Schema.Decoder<unknown>, E>(schema: S, refuse: (refusal: Refusal) => E) => {
  const decodeSchema = Schema.decodeUnknownEffect(schema)
  return (body: unknown): Effect.Effect<S["Type"], E> =>
    decodeSchema(body).pipe(Effect.mapError((error) => refuse(refusalOf(error.issue))))
}
