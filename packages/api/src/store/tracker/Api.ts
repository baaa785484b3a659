/**
 * Signups and events for embedding platforms, signed with a public key (`Authorization: TW-Public <key_id>`,
 * docs/signing.md); answered 202 at once and written behind the answer. Absent on the origin listener. Each comes
 * alone (`POST /v1/events`) or in a batch of up to 500 under one signature and one nonce (`POST /v1/events/batch`),
 * answered item by item.
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
  InvalidEvent: "bad_request",
  InvalidBatch: "bad_request"
})

/** A batch's item that was refused: its index in the array, and the error its single call would have answered. */
export const RejectedItem = Schema.Struct({
  index: Schema.Int,
  error: Schema.Struct({ code: Schema.String, message: Schema.String })
}).annotate({ identifier: "RejectedItem" })

/** The 202 answer of a batch: how many items were accepted, and the others by index (in order). */
export const BatchAccepted = Schema.Struct({
  accepted: Schema.Int,
  rejected: Schema.Array(RejectedItem)
}).annotate({ identifier: "BatchAccepted" })
export type BatchAccepted = typeof BatchAccepted.Type

const signedHeaders = {
  /** Unix seconds, within ±300 s of the server's clock. */
  "x-tw-timestamp": Schema.optionalKey(Schema.String),
  /** 32 hexadecimal characters, used once per key per hour. */
  "x-tw-nonce": Schema.optionalKey(Schema.String),
  /** hex HMAC-SHA256 of key_id, nonce, timestamp and the body's SHA-256, joined by \n (docs/signing.md). */
  "x-tw-signature": Schema.optionalKey(Schema.String)
}

const accepted = Endpoint.Data(TrackerBodies.Accepted).pipe(HttpApiSchema.status(202))
const batchAccepted = Endpoint.Data(BatchAccepted).pipe(HttpApiSchema.status(202))
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
    }).annotate(Endpoint.RequiredScope, "events:write"),
    /**
     * 1 to 500 signups under one signature and one nonce, each checked and counted as `POST /v1/signups` would: 202
     * with how many were accepted and the refused ones by index. One call of the store's per-minute budget.
     */
    HttpApiEndpoint.post("trackSignups", "/v1/signups/batch", {
      headers: signedHeaders,
      payload: TrackerBodies.SignupBatchBody,
      success: batchAccepted,
      error
    }).annotate(Endpoint.RequiredScope, "signups:write"),
    /**
     * 1 to 500 events under one signature and one nonce, each checked, deduplicated and counted as `POST /v1/events`
     * would: 202 with how many were accepted and the refused ones by index. One call of the store's per-minute budget.
     */
    HttpApiEndpoint.post("trackEvents", "/v1/events/batch", {
      headers: signedHeaders,
      payload: TrackerBodies.EventBatchBody,
      success: batchAccepted,
      error
    }).annotate(Endpoint.RequiredScope, "events:write")
  )
  .middleware(Endpoint.Signed)
  .annotateMerge(
    OpenApi.annotations({
      title: "signups and events",
      description:
        "Signed with a public key (Authorization: TW-Public <key_id>, docs/signing.md); answered 202 at once and " +
        "written behind the answer, alone or in batches of up to 500 under one signature (answered item by item). " +
        "Each call counts once against the store's per-minute budget. Absent on the origin listener."
    })
  ) {}
