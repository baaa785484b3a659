/**
 * The shipping API's errors on the wire: `{ error: { code, message, fields? } }` (spec "Error body"). `fields`
 * maps dotted request paths (`order.recipient.phone`) to messages, every issue reported. The codes are the ones the
 * public `dzship` client documents, so its `DzshipError.code` reads the same against us; docs/api/README.md lists
 * them. Only these classes reach the wire.
 *
 * `codes` is the one table of wire codes — status and default message; each wire class answers the codes of its
 * status, and the four answers that say when to retry (`rate_limited`, `overloaded`, `unavailable`, a create's
 * `idempotency_in_flight`) carry `Retry-After` too. How a failure of the gateway or a courier reaches these codes is
 * `Reasons.ts`.
 */

import { ShippingError } from "@tawsil/courier"
import { FieldIssues } from "@tawsil/domain"
import { Schema } from "effect"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"

/** Every wire code of the shipping API: its status, and what it means (docs/api/README.md "Errors"). */
export const codes = {
  invalid_input: [400, "The request does not fit the API; fields names each value at fault"],
  unknown_courier: [400, "No courier of GET /v1/couriers has this key or alias"],
  invalid_credentials: [400, "The credentials do not fit the courier: fields missing, extra or malformed"],
  blocked_egress: [400, "options.baseUrl is not accepted for this courier"],
  unsupported: [400, "The courier does not offer this operation"],
  not_found: [404, "No such thing: a wilaya code outside 1 to 69"],
  not_cancellable: [409, "The courier will not cancel the parcel any more (picked up, shipped)"],
  idempotency_in_flight: [409, "A call with this Idempotency-Key is still running"],
  invalid_phone: [422, "The recipient's phone is not an Algerian mobile"],
  unknown_commune: [422, "The commune is not one of the wilaya's; suggestions lists the nearest"],
  commune_not_served: [422, "The courier does not deliver to the commune that way"],
  courier_refused: [422, "The courier refused the request; its message is passed on"],
  credentials_rejected: [422, "The courier refused the credentials"],
  idempotency_key_reuse: [422, "This Idempotency-Key was used for another request"],
  rate_limited: [429, "This client's window, or the courier's limit on the caller's account; honour Retry-After"],
  courier_error: [502, "The courier answered something that cannot be read"],
  courier_unreachable: [502, "The courier could not be reached, or did not answer in time"],
  overloaded: [503, "Too many parcels are being created right now; honour Retry-After"],
  unavailable: [503, "The service's database cannot be reached for a moment; honour Retry-After"],
  communes_unavailable: [503, "The communes dataset is not loaded; the message says how to load it"]
} as const satisfies Record<string, readonly [number, string]>

export type Code = keyof typeof codes
export type Status = (typeof codes)[Code][0]
export type CodesOf<S extends Status> = { readonly [C in Code]: (typeof codes)[C][0] extends S ? C : never }[Code]

/** The codes of a status, in the table's order. */
const codesOf = <S extends Status>(status: S) =>
  (Object.keys(codes) as Array<Code>).filter((code) => codes[code][0] === status) as Array<CodesOf<S>>

/** A code only a comparison's quote carries: a courier the comparison's deadline passed (no status of its own). */
export const COURIER_TIMEOUT = "courier_timeout"

const Body = <Code extends string>(codes: ReadonlyArray<Code>) =>
  Schema.Struct({
    code: Schema.Literals(codes),
    message: Schema.String,
    fields: Schema.optionalKey(FieldIssues.FieldIssues)
  })

/** 400: validation, configuration, unknown courier, credentials that do not fit, blocked egress. */
export class InvalidInput extends Schema.Error<InvalidInput>("InvalidInput")(
  { error: Body(codesOf(400)) },
  { httpApiStatus: 400 }
) {}

/**
 * 422: the phone is not an Algerian mobile, the commune is not one of the wilaya's (`unknown_commune`, with up to
 * five `suggestions`) or not one the courier serves, or the courier refused the request (its message passed on).
 */
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(
  {
    error: Schema.Struct({
      ...Body(codesOf(422)).fields,
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
  { error: Body(codesOf(409)) },
  { httpApiStatus: 409 }
) {}

/** 502: the courier rejected the request without a usable reason, answered garbage, or could not be reached. */
export class CourierFailed extends Schema.Error<CourierFailed>("CourierFailed")(
  { error: Body(codesOf(502)) },
  { httpApiStatus: 502 }
) {}

const retryAfterFields = { retryAfterSeconds: Schema.Int, message: Schema.String }

/** The wire form of an error that tells the caller when to retry: the envelope plus `Retry-After` (seconds). */
const withRetryAfter =
  <C extends Code>(code: C) =>
  <E extends { readonly retryAfterSeconds: number; readonly message: string }>(
    self: Schema.Codec<E, unknown> & (new (fields: { retryAfterSeconds: number; message: string }) => E)
  ) =>
    self.pipe(
      HttpApiSchema.encodeToWithHeaders(
        {
          body: Schema.Struct({ error: Body([code]) }).pipe(HttpApiSchema.status(codes[code][0])),
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
export const RateLimitedResponse = withRetryAfter("rate_limited")(RateLimited)

/** The 503 codes said with `Retry-After`, and the one said without. */
const retried503 = ["overloaded", "unavailable"] as const satisfies ReadonlyArray<CodesOf<503>>
const plain503 = ["communes_unavailable"] as const satisfies ReadonlyArray<CodesOf<503>>

/**
 * 503 with `Retry-After`: too many creates are in flight (`overloaded`: the capacity guard on create), or the
 * service's database cannot be reached for a moment (`unavailable`: a create or cancel with an `Idempotency-Key`
 * needs it; the calls that store nothing do not). One class for both: an endpoint has one 503 with headers.
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  code: Schema.Literals(retried503),
  ...retryAfterFields
}) {}
export const ServiceUnavailableResponse = ServiceUnavailable.pipe(
  HttpApiSchema.encodeToWithHeaders(
    {
      body: Schema.Struct({ error: Body(retried503) }).pipe(HttpApiSchema.status(503)),
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
export const InFlightResponse = withRetryAfter("idempotency_in_flight")(InFlight)

/** 404: no such thing (a wilaya code outside 1–58). */
export class NotFound extends Schema.Error<NotFound>("NotFound")(
  { error: Body(codesOf(404)) },
  { httpApiStatus: 404 }
) {}

/** 503: reference data not loaded (the communes dataset); the message says how to load it. */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(
  { error: Body(plain503) },
  { httpApiStatus: 503 }
) {}

/** The wire class of each status, for the answers that do not say when to retry. */
const plain = {
  400: InvalidInput,
  404: NotFound,
  409: Conflict,
  422: Unprocessable,
  502: CourierFailed,
  503: Unavailable
} as const

/** The wire class of each code that says when to retry, with `Retry-After`. */
const retried = {
  rate_limited: RateLimited,
  overloaded: ServiceUnavailable,
  unavailable: ServiceUnavailable,
  idempotency_in_flight: InFlight
} as const

type Plain = typeof plain
type Retried = typeof retried

/** Every wire failure of the shipping API. */
export type Failure = InstanceType<Plain[keyof Plain] | Retried[keyof Retried]>

/** The failure a code is answered with: with `Retry-After` where it says when, else its status's class. */
export type FailureOfCode<C extends Code> = C extends keyof Retried
  ? InstanceType<Retried[C]>
  : InstanceType<Plain[(typeof codes)[C][0] & keyof Plain]>

/** What an answer may carry beside its code and message. */
export interface Details {
  readonly fields?: FieldIssues.FieldIssues | undefined
  readonly suggestions?: ReadonlyArray<ShippingError.CommuneSuggestion> | undefined
  /** Seconds before a retry: sent as `Retry-After` (`rate_limited`, `overloaded`, `unavailable`, a create's 409). */
  readonly retryAfterSeconds?: number | undefined
}

/**
 * The failure `code`, with `message` (the code's own meaning unless one is given). A code that says when to retry
 * is answered with `Retry-After` (`retryAfterSeconds`, required for it), except a cancel's 409
 * `idempotency_in_flight`, which says when in its message and is answered without it.
 */
export const make = <C extends Code>(
  code: C,
  message: string = codes[code][1],
  details: Details = {}
): FailureOfCode<C> => {
  const { fields, suggestions, retryAfterSeconds } = details
  if (retryAfterSeconds !== undefined && Object.hasOwn(retried, code)) {
    const Class = retried[code as keyof Retried]
    const failure =
      Class === ServiceUnavailable
        ? new ServiceUnavailable({ code: code as (typeof retried503)[number], retryAfterSeconds, message })
        : new (Class as typeof RateLimited | typeof InFlight)({ retryAfterSeconds, message })
    return failure as FailureOfCode<C>
  }
  // Only a cancel's 409 says when in its message; every other code that says when has no answer without it.
  if (code !== "idempotency_in_flight" && Object.hasOwn(retried, code)) {
    throw new Error(`${code} says when to retry: it needs retryAfterSeconds`)
  }
  const Class = plain[codes[code][0] as keyof Plain] as unknown as new (fields: unknown) => FailureOfCode<C>
  return new Class({
    error: {
      code,
      message,
      ...(fields === undefined ? {} : { fields }),
      ...(suggestions === undefined ? {} : { suggestions })
    }
  })
}

/** A failure's code and message, as one item of a batch or comparison answers it. */
export const itemOf = (failure: Failure): { readonly code: string; readonly message: string } =>
  "error" in failure
    ? { code: failure.error.code, message: failure.error.message }
    : {
        code:
          failure instanceof ServiceUnavailable
            ? failure.code
            : failure instanceof InFlight
              ? "idempotency_in_flight"
              : "rate_limited",
        message: failure.message
      }

/**
 * A failure as one order of a batch create answers it: the whole `error` object the single create would answer
 * (`fields`, `suggestions`), its status, and the seconds its `Retry-After` would say.
 */
export const createItemOf = (
  failure: Failure
): {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly fields?: FieldIssues.FieldIssues
  readonly suggestions?: ReadonlyArray<ShippingError.CommuneSuggestion>
  readonly retryAfterSeconds?: number
} => {
  if ("error" in failure) return { status: codes[failure.error.code][0], ...failure.error }
  const code =
    failure instanceof ServiceUnavailable
      ? failure.code
      : failure instanceof InFlight
        ? "idempotency_in_flight"
        : "rate_limited"
  return { status: codes[code][0], code, message: failure.message, retryAfterSeconds: failure.retryAfterSeconds }
}

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
