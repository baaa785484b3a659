/**
 * The shipping API's error envelope: `{ error: { code, message, fields? } }` (spec "Error body"). `fields` maps
 * dotted request paths to messages. The codes are stable; docs/api/shipping.md lists them.
 */
import type * as Edge from "../Edge.ts"

const codes: Record<number, string> = {
  400: "validation_error",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  500: "internal_error",
  502: "courier_unavailable",
  503: "unavailable"
}

export const envelope: Edge.Envelope = {
  code: (status) => codes[status] ?? (status >= 500 ? "internal_error" : "bad_request"),
  render: (error) => ({ error })
}
