/**
 * Signups and events for embedding platforms, signed with a public key (`Authorization: TW-Public <key_id>`,
 * docs/signing.md); answered 202 at once and written behind the answer. Absent on the origin listener.
 */
import { SigningError } from "@tawsil/signing"
import { TrackerBodies, TrackerError } from "@tawsil/tracker"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Every way a signature fails is the caller's credentials failing: 401, each with its own message. */
export const signingReasons = Reasons.of(SigningError.SigningErrorReason, {
  MissingHeader: "unauthorized",
  MalformedTimestamp: "unauthorized",
  TimestampOutOfWindow: "unauthorized",
  MalformedNonce: "unauthorized",
  NonceReused: "unauthorized",
  MalformedSignature: "unauthorized",
  SignatureMismatch: "unauthorized"
})

export const reasons = Reasons.of(TrackerError.TrackerErrorReason, {
  InvalidSignup: "bad_request",
  InvalidEvent: "bad_request"
})

const signedHeaders = {
  /** Unix seconds, within ±300 s of the server's clock. */
  "x-tw-timestamp": Schema.optionalKey(Schema.String),
  /** 32 hexadecimal characters, used once per key per hour. */
  "x-tw-nonce": Schema.optionalKey(Schema.String),
  /** hex HMAC-SHA256 of key_id, nonce, timestamp and the body's SHA-256, joined by \n (docs/signing.md). */
  "x-tw-signature": Schema.optionalKey(Schema.String)
}

const accepted = Endpoint.Data(TrackerBodies.Accepted).pipe(HttpApiSchema.status(202))
const error = [Errors.Unauthorized, Errors.Forbidden, Errors.RateLimited, Errors.BadRequest, Errors.NotFound] as const

export class TrackerGroup extends HttpApiGroup.make("tracker")
  .add(
    /** A user of the platform signed up; a repeat of one `user.id` counts in `total`, not `billable`. */
    HttpApiEndpoint.post("trackSignup", "/v1/signups", {
      headers: signedHeaders,
      payload: TrackerBodies.SignupBody,
      success: accepted,
      error
    }).annotate(Endpoint.RequiredScope, "signups:write"),
    /** Something a user did; a second call of one store with one nonce is dropped and counted nowhere. */
    HttpApiEndpoint.post("trackEvent", "/v1/events", {
      headers: signedHeaders,
      payload: TrackerBodies.EventBody,
      success: accepted,
      error
    }).annotate(Endpoint.RequiredScope, "events:write")
  )
  .middleware(Endpoint.Signed)
  .annotateMerge(
    OpenApi.annotations({
      title: "signups and events",
      description:
        "Signed with a public key (Authorization: TW-Public <key_id>, docs/signing.md); answered 202 at once and " +
        "written behind the answer. They count against the store's per-minute budget. Absent on the origin listener."
    })
  ) {}
