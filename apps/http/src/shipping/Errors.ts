/**
 * The shipping API's wire errors (defined in `@tawsil/api`, with the one table of codes) and how the gateway's
 * failures reach them: its union mapped through the overrides of `@tawsil/api/shipping/Reasons` (`gateway`); a test
 * walks the union. Decoding failures become `invalid_input` (`ValidationLayer`).
 */

import { wilayaPaths } from "@tawsil/api/shipping/Api"
import * as Errors from "@tawsil/api/shipping/Errors"
import { InvalidInput, Validation } from "@tawsil/api/shipping/Errors"
import * as Reasons from "@tawsil/api/shipping/Reasons"
import { FieldIssues } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { type CommuneCheck, Gateway, type RateComparison } from "@tawsil/shipping"
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import type * as Edge from "../Edge.ts"

export * from "@tawsil/api/shipping/Errors"

/** Every failure of the gateway, as the wire answers it. */
export const gateway = Reasons.of(Gateway.GatewayError, Reasons.gateway)

/** A gateway failure as its wire error. */
export const fromGateway = <E extends Gateway.GatewayError>(error: E) =>
  gateway.answer(error) as Reasons.GatewayFailureOf<E>

/** 422 `unknown_commune`, with its suggestions, naming the field that held the name. */
export const unknownCommune = (error: CommuneCheck.UnknownCommune, field: string) => gateway.answer(error, { field })

/**
 * One item's failure inside a batch or comparison answer: the code and message the same single call would answer
 * (`courier_timeout` for a courier the comparison's deadline passed).
 */
export const itemError = (
  error: Gateway.GatewayError | RateComparison.TimedOut
): { readonly code: string; readonly message: string } =>
  error._tag === "TimedOut"
    ? { code: Errors.COURIER_TIMEOUT, message: error.message }
    : Errors.itemOf(gateway.answer(error))

/** One order's failure inside a batch create: what the single create would answer, with its status. */
export const createItemError = (error: Gateway.CreateError) => Errors.createItemOf(gateway.answer(error))

/** A cancel's failure as its wire error: also 409 `not_cancellable`, which only a cancel meets. */
export const fromCancel = <E extends Gateway.CancelError>(error: E) =>
  error._tag === "InFlight"
    ? Reasons.cancelInFlight(error.retryAfterSeconds)
    : (gateway.answer(error) as Exclude<Reasons.GatewayFailureOf<E>, Errors.InFlight> | Errors.Conflict)

export const ValidationLayer = HttpApiMiddleware.layerSchemaErrorTransform(Validation, (error) =>
  Effect.gen(function* () {
    // Failures to encode our own response are bugs: let them become a 500.
    if (error.kind === "Body" || error.kind === "ResponseHeaders") return yield* Effect.fail(error)
    const fields: Record<string, string> = {
      ...FieldIssues.fromIssue(error.cause.issue, error.kind === "Payload" ? {} : { prefix: error.kind.toLowerCase() })
    }
    const wilayaFields = error.kind === "Payload" ? wilayaPaths.filter((path) => fields[path] !== undefined) : []
    if (wilayaFields.length > 0) {
      const body = yield* Effect.orElseSucceed((yield* HttpServerRequest.HttpServerRequest).json, () => undefined)
      Object.assign(fields, Wilayas.shipAsMessagesIn(body, wilayaFields))
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
