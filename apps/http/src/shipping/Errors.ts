/**
 * The shipping API's error envelope: `{ error: { code, message, fields? } }` (spec "Error body"). `fields` maps
 * dotted request paths to messages. The codes are stable; docs/api/README.md lists them.
 */
import type * as Edge from "../Edge.ts"

export const envelope: Edge.Envelope = {
  codes: {
    400: "validation_error",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    500: "internal_error"
  },
  render: (error) => ({ error })
}
