/**
 * The shipping API's errors on the wire: `{ error: { code, message, fields? } }` (spec "Error body"). `fields`
 * maps dotted request paths (`order.recipient.phone`) to messages, every issue reported. The codes are the ones the
 * public `dzship` client documents, so its `DzshipError.code` reads the same against us; docs/api/README.md lists
 * them. Only these classes reach the wire; how each failure of the gateway reaches one is the app's
 * (`apps/http/src/shipping/Errors.ts`).
 */

import { ShippingError } from "@tawsil/courier"
import { FieldIssues } from "@tawsil/domain"
import { Schema } from "effect"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"

const Body = <Code extends string>(codes: ReadonlyArray<Code>) =>
  Schema.Struct({
    code: Schema.Literals(codes),
    message: Schema.String,
    fields: Schema.optionalKey(FieldIssues.FieldIssues)
  })

/** 400: validation, configuration, unknown courier, credentials that do not fit, blocked egress. */
export class InvalidInput extends Schema.Error<InvalidInput>("InvalidInput")(
  { error: Body(["invalid_input", "unknown_courier", "invalid_credentials", "blocked_egress", "unsupported"]) },
  { httpApiStatus: 400 }
) {}

/**
 * 422: the phone is not an Algerian mobile, the commune is not one of the wilaya's (`unknown_commune`, with up to
 * five `suggestions`) or not one the courier serves, or the courier refused the request (its message passed on).
 */
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(
  {
    error: Schema.Struct({
      ...Body([
        "invalid_phone",
        "unknown_commune",
        "commune_not_served",
        "courier_refused",
        "credentials_rejected",
        "idempotency_key_reuse"
      ]).fields,
      suggestions: Schema.optionalKey(Schema.Array(ShippingError.CommuneSuggestion))
    })
  },
  { httpApiStatus: 422 }
) {}

/**
 * 409 on cancel: the courier will not cancel the parcel any more (picked up, shipped; its words in the message), or
 * a cancel with this `Idempotency-Key` is still running (its message says when to retry; one 409 shape per route).
 */
export class Conflict extends Schema.Error<Conflict>("Conflict")(
  { error: Body(["not_cancellable", "idempotency_in_flight"]) },
  { httpApiStatus: 409 }
) {}

/** 502: the courier rejected the request without a usable reason, answered garbage, or could not be reached. */
export class CourierFailed extends Schema.Error<CourierFailed>("CourierFailed")(
  { error: Body(["courier_error", "courier_unreachable"]) },
  { httpApiStatus: 502 }
) {}

const retryAfterFields = { retryAfterSeconds: Schema.Int, message: Schema.String }

/** The wire form of an error that tells the caller when to retry: the envelope plus `Retry-After` (seconds). */
const withRetryAfter =
  <Code extends string>(code: Code, status: number) =>
  <E extends { readonly retryAfterSeconds: number; readonly message: string }>(
    self: Schema.Codec<E, unknown> & (new (fields: { retryAfterSeconds: number; message: string }) => E)
  ) =>
    self.pipe(
      HttpApiSchema.encodeToWithHeaders(
        {
          body: Schema.Struct({ error: Body([code]) }).pipe(HttpApiSchema.status(status)),
          headers: { "retry-after": Schema.NumberFromString }
        },
        {
          decode: ({ body, headers }) =>
            new self({ retryAfterSeconds: headers["retry-after"], message: body.error.message }),
          encode: (error) => ({
            body: { error: { code, message: error.message } },
            headers: { "retry-after": error.retryAfterSeconds }
          })
        }
      )
    )

/** 429 with `Retry-After`: this client's rate limit, or the courier's limit on the caller's account. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", retryAfterFields) {}
export const RateLimitedResponse = withRetryAfter("rate_limited", 429)(RateLimited)

/**
 * 503 with `Retry-After`: too many creates are in flight (`overloaded`: the capacity guard on create), or the
 * service's database cannot be reached for a moment (`unavailable`: a create or cancel with an `Idempotency-Key`
 * needs it; the calls that store nothing do not). One class for both: an endpoint has one 503 with headers.
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  code: Schema.Literals(["overloaded", "unavailable"]),
  ...retryAfterFields
}) {}
export const ServiceUnavailableResponse = ServiceUnavailable.pipe(
  HttpApiSchema.encodeToWithHeaders(
    {
      body: Schema.Struct({ error: Body(["overloaded", "unavailable"]) }).pipe(HttpApiSchema.status(503)),
      headers: { "retry-after": Schema.NumberFromString }
    },
    {
      decode: ({ body, headers }) =>
        new ServiceUnavailable({
          code: body.error.code,
          retryAfterSeconds: headers["retry-after"],
          message: body.error.message
        }),
      encode: (error) => ({
        body: { error: { code: error.code, message: error.message } },
        headers: { "retry-after": error.retryAfterSeconds }
      })
    }
  )
)

/** 409 with `Retry-After`: a create with this `Idempotency-Key` is still in flight. */
export class InFlight extends Schema.TaggedError<InFlight>()("InFlight", retryAfterFields) {}
export const InFlightResponse = withRetryAfter("idempotency_in_flight", 409)(InFlight)

/** 404: no such thing (a wilaya code outside 1–58). */
export class NotFound extends Schema.Error<NotFound>("NotFound")(
  { error: Body(["not_found"]) },
  { httpApiStatus: 404 }
) {}

/** 503: reference data not loaded (the communes dataset); the message says how to load it. */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(
  { error: Body(["communes_unavailable"]) },
  { httpApiStatus: 503 }
) {}

/** The per-client window, on every endpoint of the `shipping` group (every call that may reach a courier). */
export class ClientRateLimit extends HttpApiMiddleware.Service<ClientRateLimit>()(
  "@tawsil/api/shipping/ClientRateLimit",
  {
    error: RateLimitedResponse
  }
) {}

/** Decoding failures of any request become `invalid_input` with every field issue. */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@tawsil/api/shipping/Validation", {
  error: InvalidInput
}) {}
