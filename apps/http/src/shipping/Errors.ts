/**
 * The shipping API's errors on the wire: `{ error: { code, message, fields? } }` (spec "Error body"). `fields`
 * maps dotted request paths (`order.recipient.phone`) to messages, every issue reported. The codes are the ones the
 * public `dzship` client documents, so its `DzshipError.code` reads the same against us; docs/api/README.md lists
 * them. Only these classes reach the wire.
 *
 * Every failure of the gateway (`Gateway.GatewayError`) and every reason of a courier's failure
 * (`CourierError.CourierErrorReason`) is mapped here explicitly, one row each (`gatewayFailures`, `courierFailures`);
 * a test walks both unions and fails on one without a row.
 */
import type { CourierError } from "@tawsil/courier"
import { FieldIssues } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import type { Gateway } from "@tawsil/shipping"
import { Effect, Option, Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiSchema } from "effect/http-api"
import type * as Edge from "../Edge.ts"

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

/** 422: the phone is not an Algerian mobile, or the courier refused the request (its message passed on). */
export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(
  { error: Body(["invalid_phone", "courier_refused", "credentials_rejected", "idempotency_key_reuse"]) },
  { httpApiStatus: 422 }
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

/** 503 with `Retry-After`: the capacity guard on create tripped (too many creates in flight). */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", retryAfterFields) {}
export const OverloadedResponse = withRetryAfter("overloaded", 503)(Overloaded)

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

type Wire = InvalidInput | Unprocessable | CourierFailed | RateLimited | Overloaded | InFlight

const invalidInput = (code: typeof InvalidInput.Type.error.code, message: string, fields?: FieldIssues.FieldIssues) =>
  new InvalidInput({ error: { code, message, ...(fields === undefined ? {} : { fields }) } })

/** Each reason a courier gives for a failed call, as the wire answers it. */
export const courierFailures: {
  readonly [Tag in CourierError.CourierErrorReason["_tag"]]: (
    reason: Extract<CourierError.CourierErrorReason, { readonly _tag: Tag }>,
    error: CourierError.CourierError
  ) => Wire
} = {
  BlockedEgress: (reason) => invalidInput("blocked_egress", reason.message),
  Refused: (_, error) => new Unprocessable({ error: { code: "courier_refused", message: error.message } }),
  CredentialsRejected: (_, error) =>
    new Unprocessable({ error: { code: "credentials_rejected", message: error.message } }),
  CourierRateLimited: (reason, error) =>
    new RateLimited({ retryAfterSeconds: reason.retryAfterSeconds, message: error.message }),
  Unreachable: (_, error) => new CourierFailed({ error: { code: "courier_unreachable", message: error.message } }),
  BadResponse: (_, error) => new CourierFailed({ error: { code: "courier_error", message: error.message } }),
  Unsupported: (_, error) => invalidInput("unsupported", error.message)
}

/** Each failure of the gateway, as the wire answers it. */
export const gatewayFailures: {
  readonly [Tag in Gateway.GatewayError["_tag"]]: (error: Extract<Gateway.GatewayError, { readonly _tag: Tag }>) => Wire
} = {
  UnknownCourier: (error) => invalidInput("unknown_courier", error.message),
  InvalidCredentials: (error) => invalidInput("invalid_credentials", error.message, error.fields),
  BlockedEgress: (error) => invalidInput("blocked_egress", error.message),
  NotAMobile: (error) =>
    new Unprocessable({
      error: { code: "invalid_phone", message: error.message, fields: { [error.field]: error.message } }
    }),
  CourierError: (error) =>
    (
      courierFailures[error.reason._tag] as (
        reason: CourierError.CourierErrorReason,
        error: CourierError.CourierError
      ) => Wire
    )(error.reason, error),
  ClientRateLimited: (error) => new RateLimited({ retryAfterSeconds: error.retryAfterSeconds, message: error.message }),
  Overloaded: (error) => new Overloaded({ retryAfterSeconds: error.retryAfterSeconds, message: error.message }),
  InvalidKey: (error) =>
    invalidInput("invalid_input", "Request validation failed", {
      "headers.idempotency-key": `${error.reason}: expected 1-64 of A-Z a-z 0-9 _ - : .`
    }),
  KeyReused: () =>
    new Unprocessable({
      error: { code: "idempotency_key_reuse", message: "this Idempotency-Key was used for another request" }
    }),
  InFlight: (error) =>
    new InFlight({
      retryAfterSeconds: error.retryAfterSeconds,
      message: "a create with this Idempotency-Key is still in flight"
    })
}

/** A gateway failure as its wire error. */
export const fromGateway = <E extends Gateway.GatewayError>(error: E) =>
  (gatewayFailures[error._tag] as (error: Gateway.GatewayError) => Wire)(error) as WireOf<E>

/** The wire errors a gateway failure can become (by the rows above): what each endpoint declares. */
type WireOf<E> = E extends { readonly _tag: "ClientRateLimited" }
  ? RateLimited
  : E extends { readonly _tag: "Overloaded" }
    ? Overloaded
    : E extends { readonly _tag: "InFlight" }
      ? InFlight
      : E extends { readonly _tag: "NotAMobile" | "KeyReused" }
        ? Unprocessable
        : E extends { readonly _tag: "CourierError" }
          ? InvalidInput | Unprocessable | RateLimited | CourierFailed
          : InvalidInput

/** The per-client rate limit, applied to create, track and rates. */
export class ClientRateLimit extends HttpApiMiddleware.Service<ClientRateLimit>()(
  "@tawsil/http/shipping/ClientRateLimit",
  {
    error: RateLimitedResponse
  }
) {}

/** Decoding failures of any request become `invalid_input` with every field issue. */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@tawsil/http/shipping/Validation", {
  error: InvalidInput
}) {}

/** The body's wilaya fields: a code of the 2026 division there is answered with the code to send instead. */
const WILAYA_FIELDS = ["order.recipient.wilayaCode", "options.fromWilaya", "query.fromWilaya", "query.toWilaya"]

const valueAt = (body: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>(
      (value, key) =>
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      body
    )

export const ValidationLayer = HttpApiMiddleware.layerSchemaErrorTransform(Validation, (error) =>
  Effect.gen(function* () {
    // Failures to encode our own response are bugs: let them become a 500.
    if (error.kind === "Body" || error.kind === "ResponseHeaders") return yield* Effect.fail(error)
    const fields: Record<string, string> = {
      ...FieldIssues.fromIssue(error.cause.issue, error.kind === "Payload" ? {} : { prefix: error.kind.toLowerCase() })
    }
    const wilayaFields = error.kind === "Payload" ? WILAYA_FIELDS.filter((path) => fields[path] !== undefined) : []
    if (wilayaFields.length > 0) {
      const body = yield* Effect.orElseSucceed((yield* HttpServerRequest.HttpServerRequest).json, () => undefined)
      for (const path of wilayaFields) {
        const code = valueAt(body, path)
        const message = typeof code === "number" ? Option.getOrUndefined(Wilayas.shipAsMessage(code)) : undefined
        if (message !== undefined) fields[path] = message
      }
    }
    const root = fields[FieldIssues.rootKey]
    const onlyRoot = root !== undefined && Object.keys(fields).length === 1
    return yield* Effect.fail(
      new InvalidInput({
        error: onlyRoot
          ? { code: "invalid_input", message: root === "Expected a valid JSON body" ? "Body must be valid JSON" : root }
          : { code: "invalid_input", message: "Request validation failed", fields }
      })
    )
  })
)

/** Errors the HTTP layer itself produces, in this envelope. */
export const envelope: Edge.Envelope = {
  codes: {
    400: "invalid_input",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    500: "internal_error",
    503: "unavailable"
  },
  render: (error) => ({ error })
}
