/**
 * The error taxonomy both APIs map from. Domain packages raise transport-agnostic `Schema.TaggedError`s that name
 * one of these categories; each API turns a category into its own wire code and status. No HTTP words here.
 *
 * Also the field-by-field form of a failed decode, {@link FieldIssues}, which both error envelopes can carry.
 */
import { Schema, SchemaIssue } from "effect"

export const ErrorCategory = Schema.Literals([
  /** The input is malformed: wrong type, missing field, out-of-range value. */
  "invalid_input",
  /** The request is well-formed but a rule refuses it (a phone that is not an Algerian mobile). */
  "unprocessable",
  /** No credentials, or credentials that identify no one. */
  "unauthenticated",
  /** The caller is known but may not do this (plan, pilot enrolment, scope). */
  "forbidden",
  /** The thing does not exist, or belongs to someone else. */
  "not_found",
  /** The current state forbids the write (a write with the same key still in flight, a concurrent change). */
  "conflict",
  /** Too many requests in a short window; retry after a delay. */
  "rate_limited",
  /** A longer-term allowance (monthly requests, orders) is used up. */
  "quota_exceeded",
  /** The request body is larger than accepted. */
  "payload_too_large",
  /** A third party we depend on (a courier) rejected the request or could not be reached. */
  "upstream_failure",
  /** We cannot serve this now (capacity guard tripped, database down); retry later. */
  "unavailable",
  /** A bug or an unexpected failure on our side. */
  "internal"
])
export type ErrorCategory = typeof ErrorCategory.Type

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
