/**
 * The store API's error envelope: `{ error: { code, message, retry_after? }, meta: { request_id, api_version } }`
 * (spec "Response envelope"), with the spec's codes.
 */
import type * as Edge from "../Edge.ts"

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
    500: "internal_error"
  },
  render: (error, requestId) => ({ error, meta: { request_id: requestId, api_version: "v1" } })
}
