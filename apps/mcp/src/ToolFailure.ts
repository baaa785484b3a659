/**
 * What a tool answers when the call did not succeed: the API's own refusal (its `code` and `message`, and what else
 * its error carried, such as a commune's `suggestions` or a body's `fields`), or why the API could not be asked. The
 * MCP server sends it as a tool error (`isError: true`) whose content is this object as JSON, so the agent reads the
 * same codes the API documents and can correct its call.
 */
import { Effect, Predicate, Schema } from "effect"
import { HttpClientError } from "effect/http"

export const ToolFailure = Schema.Struct({
  /** The API's error code (`unknown_commune`, `not_found`, `forbidden`, …), or `unreachable` / `invalid_arguments`. */
  code: Schema.String,
  message: Schema.String,
  /** Present when the API said when to retry (429, some 503 and 409 answers). */
  retryAfterSeconds: Schema.optionalKey(Schema.Int),
  /** The rest of the API's error object: `suggestions`, `fields`, … */
  details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Json))
}).annotate({ identifier: "ToolFailure" })
export type ToolFailure = typeof ToolFailure.Type

const isErrorBody = (value: unknown): value is { readonly code: string; readonly message: string } =>
  Predicate.isObject(value) && typeof value.code === "string" && typeof value.message === "string"

/** Codes of the answers that carry `Retry-After` and are decoded to their own classes (shipping API). */
const retryCodes: Readonly<Record<string, string>> = {
  RateLimited: "rate_limited",
  InFlight: "idempotency_in_flight"
}

/**
 * A client call's failure as the tool's failure. Every failure of `@tawsil/client` is one of: a declared wire error
 * (`{ error: { code, message, … } }`), one of the shipping API's retry-after errors, an HTTP transport error (the API
 * could not be reached or answered something undecodable), or a body the endpoint's own rules refused before sending.
 */
export const fromClient = (api: string, error: unknown): ToolFailure => {
  if (Predicate.isObject(error) && isErrorBody(error.error)) {
    const { code, message, ...rest } = error.error as { code: string; message: string } & Record<string, unknown>
    return Object.keys(rest).length === 0
      ? { code, message }
      : { code, message, details: JSON.parse(JSON.stringify(rest)) as Record<string, Schema.Json> }
  }
  if (
    Predicate.isObject(error) &&
    typeof error.retryAfterSeconds === "number" &&
    typeof error.message === "string" &&
    typeof error._tag === "string"
  ) {
    const code = typeof error.code === "string" ? error.code : (retryCodes[error._tag] ?? "unavailable")
    return { code, message: error.message, retryAfterSeconds: error.retryAfterSeconds }
  }
  if (HttpClientError.isHttpClientError(error)) {
    return {
      code: "unreachable",
      message: `The ${api} API did not answer usably (${error.reason._tag}); check the MCP server's ${api} URL`
    }
  }
  if (Schema.isSchemaError(error)) {
    return { code: "invalid_arguments", message: error.message }
  }
  return { code: "unexpected", message: `The ${api} API call failed unexpectedly` }
}

/** Runs a client call, its failures as the tool's failure. */
export const call =
  (api: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, ToolFailure, R> =>
    Effect.mapError(effect, (error) => fromClient(api, error))
