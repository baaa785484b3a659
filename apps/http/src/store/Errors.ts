/**
 * The store API's wire errors (defined in `@tawsil/api`, with the one table of codes) and how a failure is sent:
 * its status, its body, and `Retry-After` where it says when.
 */
import { codes, Failure, metaOf } from "@tawsil/api/store/Errors"
import { Idempotency } from "@tawsil/idempotency"
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type * as Edge from "../Edge.ts"

export * from "@tawsil/api/store/Errors"

// --- sending ------------------------------------------------------------------------------------------------------

const encodeFailure = Schema.encodeSync(Failure)

/** The status and body a failure is sent with (what the idempotency record keeps of it). */
export const rendered = (failure: Failure): { readonly status: number; readonly body: string } => ({
  status: codes[failure.error.code][0],
  body: JSON.stringify(encodeFailure(failure))
})

/**
 * Whether a write's failure is the answer its `Idempotency-Key` keeps (`Idempotency.isStored`: a 4xx but 429) — not
 * when it says when to retry (`retry_after`): that answer holds for a while, not for good. A 409
 * `idempotency_in_flight` of the shipping gateway's own key (a courier's create still unsettled) would otherwise be
 * replayed to every retry long after the courier's create was settled.
 */
export const kept = (failure: Failure): boolean =>
  Idempotency.isStored(codes[failure.error.code][0]) && failure.error.retry_after === undefined

/** A failure as its response, with `Retry-After` (and the rate-limit headers of a 429) where it says when. */
export const respond = (failure: Failure, headers: Readonly<Record<string, string>>) => {
  const { status, body } = rendered(failure)
  const retryAfter = failure.error.retry_after
  return HttpServerResponse.text(body, {
    status,
    contentType: "application/json",
    headers: {
      ...headers,
      ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
      ...(status === 429 ? { "ratelimit-remaining": "0", "ratelimit-reset": String(retryAfter) } : {})
    }
  })
}

/** Errors the HTTP layer itself produces (unknown route, body too large…), in this envelope. */
export const envelope: Edge.Envelope = {
  codes: {
    400: "bad_request",
    401: "unauthorized",
    402: "quota_exceeded",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "idempotency_key_reuse",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable"
  },
  render: ({ code, message, retryAfter }, requestId) => ({
    error: retryAfter === undefined ? { code, message } : { code, message, retry_after: retryAfter },
    meta: metaOf(requestId)
  })
}
