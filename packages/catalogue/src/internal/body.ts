/**
 * Request bodies decoded with their schemas into the spec's 400 messages. A body schema annotates each field with
 * a message relative to the field ("is required (1-255 chars)"); the first issue of a decode becomes
 * `<path> <message>` ("variant_groups[0].options[2].value must be unique per group"), or the message alone for
 * the body itself ("Body must be a JSON object").
 */
import { Effect, Schema, SchemaIssue } from "effect"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathText = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path.reduce<string>((text, segment) => {
    const key = typeof segment === "object" ? segment.key : segment
    if (typeof key === "number") return `${text}[${key}]`
    return text === "" ? String(key) : `${text}.${String(key)}`
  }, "")

/** The caller's message for the first issue of a failed decode. */
export const messageOf = (issue: SchemaIssue.Issue): string => {
  const [first] = formatter(issue).issues
  if (first === undefined) return "Invalid body"
  const at = pathText(first.path ?? [])
  return at === "" ? first.message : `${at} ${first.message}`
}

/** Decodes an untrusted body, failing with `invalid` of the message of its first issue. */
export const decodeBody = <S extends Schema.Decoder<unknown>, E>(schema: S, invalid: (message: string) => E) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (body: unknown): Effect.Effect<S["Type"], E> =>
    decode(body).pipe(Effect.mapError((error) => invalid(messageOf(error.issue))))
}

/** The annotation of a body: anything but a JSON object is refused with the spec's words. */
export const bodyObject = { message: "Body must be a JSON object" } as const
