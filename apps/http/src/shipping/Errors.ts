/**
 * The shipping API's wire errors (defined in `@tawsil/api`) and how each failure reaches one. Every failure of the
 * gateway (`Gateway.GatewayError`) and every reason of a courier's failure (`CourierError.CourierErrorReason`) is
 * mapped here explicitly, one row each (`gatewayFailures`, `courierFailures`); a test walks both unions and fails on
 * one without a row. Decoding failures become `invalid_input` (`ValidationLayer`).
 */
import {
  Conflict,
  CourierFailed,
  InFlight,
  InvalidInput,
  RateLimited,
  ServiceUnavailable,
  Unprocessable,
  Validation
} from "@tawsil/api/shipping/Errors"
import type { CourierError } from "@tawsil/courier"
import { FieldIssues } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import type { CommuneCheck, Gateway, RateComparison } from "@tawsil/shipping"
import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import type * as Edge from "../Edge.ts"

export * from "@tawsil/api/shipping/Errors"

type Wire = InvalidInput | Unprocessable | Conflict | CourierFailed | RateLimited | ServiceUnavailable | InFlight

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
  Unsupported: (_, error) => invalidInput("unsupported", error.message),
  NotCancellable: (_, error) => new Conflict({ error: { code: "not_cancellable", message: error.message } })
}

/** 422 `unknown_commune`, with its suggestions, naming the field that held the name. */
export const unknownCommune = (error: CommuneCheck.UnknownCommune, field: string) =>
  new Unprocessable({
    error: {
      code: "unknown_commune",
      message: error.message,
      fields: { [field]: error.message },
      suggestions: error.suggestions
    }
  })

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
  UnknownCommune: (error) => unknownCommune(error, "order.recipient.communeName"),
  CommuneNotServed: (error) =>
    new Unprocessable({
      error: {
        code: "commune_not_served",
        message: error.message,
        fields: { "order.recipient.communeName": error.message }
      }
    }),
  CourierError: (error) =>
    (
      courierFailures[error.reason._tag] as (
        reason: CourierError.CourierErrorReason,
        error: CourierError.CourierError
      ) => Wire
    )(error.reason, error),
  ClientRateLimited: (error) => new RateLimited({ retryAfterSeconds: error.retryAfterSeconds, message: error.message }),
  Overloaded: (error) =>
    new ServiceUnavailable({ code: "overloaded", retryAfterSeconds: error.retryAfterSeconds, message: error.message }),
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

/**
 * One item's failure inside a batch or comparison answer: the code and message the same single call would answer
 * (`courier_timeout` for a courier the comparison's deadline passed).
 */
export const itemError = (
  error: Gateway.GatewayError | RateComparison.TimedOut
): { readonly code: string; readonly message: string } => {
  if (error._tag === "TimedOut") return { code: "courier_timeout", message: error.message }
  const wire = (gatewayFailures[error._tag] as (error: Gateway.GatewayError) => Wire)(error)
  if (wire instanceof RateLimited) return { code: "rate_limited", message: wire.message }
  if (wire instanceof ServiceUnavailable) return { code: wire.code, message: wire.message }
  if (wire instanceof InFlight) return { code: "idempotency_in_flight", message: wire.message }
  return { code: wire.error.code, message: wire.error.message }
}

/** A cancel's failure as its wire error: also 409 `not_cancellable`, which only a cancel meets. */
export const fromCancel = <E extends Gateway.CancelError>(error: E) =>
  error._tag === "InFlight"
    ? new Conflict({
        error: {
          code: "idempotency_in_flight",
          message: `a cancel with this Idempotency-Key is still in flight; retry in ${error.retryAfterSeconds} s`
        }
      })
    : ((gatewayFailures[error._tag] as (error: Gateway.GatewayError) => Wire)(error) as
        | Exclude<WireOf<E>, InFlight>
        | Conflict)

/** The wire errors a gateway failure can become (by the rows above): what each endpoint declares. */
type WireOf<E> = E extends { readonly _tag: "ClientRateLimited" }
  ? RateLimited
  : E extends { readonly _tag: "Overloaded" }
    ? ServiceUnavailable
    : E extends { readonly _tag: "InFlight" }
      ? InFlight
      : E extends { readonly _tag: "NotAMobile" | "KeyReused" | "UnknownCommune" | "CommuneNotServed" }
        ? Unprocessable
        : E extends { readonly _tag: "CourierError" }
          ? InvalidInput | Unprocessable | RateLimited | CourierFailed
          : InvalidInput

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
  // When to retry is said by the `Retry-After` header alone, as the 429 and the capacity guard's 503 say it.
  render: ({ code, message }) => ({ error: { code, message } })
}
