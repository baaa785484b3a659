/**
 * The field-by-field form of a failed decode, which both error envelopes can carry: {@link FieldIssues} maps each
 * dotted path of the input to its message. No HTTP words here; each API decides where in its envelope it goes.
 */
import { Schema, SchemaIssue } from "effect"

/** Dotted path (`order.recipient.phone`, `items.2.quantity`) → message. */
export const FieldIssues = Schema.Record(Schema.String, Schema.String)
export type FieldIssues = typeof FieldIssues.Type

/** The key of an issue about the whole input, when no prefix names it. */
export const rootKey = "$"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Every issue of a failed decode (run it with `{ errors: "all" }`), keyed by its dotted path. `prefix` names the
 * input (`"query"` gives `query.limit`) and is itself the key of issues about the whole input, else {@link rootKey}.
 * Several issues on one path are joined with `"; "`.
 */
export const fromIssue = (issue: SchemaIssue.Issue, options?: { readonly prefix?: string }): FieldIssues => {
  // A Map, not an object: paths come from the caller's input and may be `__proto__`, `valueOf`, `constructor`…
  const messages = new Map<string, Array<string>>()
  for (const { message, path = [] } of formatter(issue).issues) {
    const segments = path.map((segment) => String(typeof segment === "object" ? segment.key : segment))
    if (options?.prefix !== undefined) segments.unshift(options.prefix)
    const key = segments.length === 0 ? rootKey : segments.join(".")
    const previous = messages.get(key) ?? []
    if (!previous.includes(message)) messages.set(key, [...previous, message])
  }
  return Object.fromEntries([...messages].map(([key, list]) => [key, list.join("; ")]))
}
