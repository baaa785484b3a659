/**
 * The failures of the store API's domain, each with the spec's wire code and the message the caller reads. Domain
 * packages (orders, catalogue, access) fail with these; the HTTP layer renders them in the store envelope
 * `{ error: { code, message, retry_after? } }` with `status`. Messages are the spec's own words where it gives them.
 */
import { Schema } from "effect"

/** 400: invalid JSON, validation failure, illegal transition, concurrent change, monthly order cap. */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { message: Schema.String }) {
  readonly status = 400
  readonly code = "bad_request"
}

/** 401: missing, malformed, unknown, revoked or not yet activated key. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {
  readonly status = 401
  readonly code = "unauthorized"
}

/** 402: the store's monthly request quota is used up until the 1st of next month. */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  message: Schema.String
}) {
  readonly status = 402
  readonly code = "quota_exceeded"
}

/** 403: plan not Enterprise, key not pilot-enrolled, missing scope, public key on key management. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {
  readonly status = 403
  readonly code = "forbidden"
}

/** 404: unknown id, or another store's. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  readonly status = 404
  readonly code = "not_found"
}

/** 429: the store's per-minute budget is spent; `retryAfterSeconds` until the next window. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int
}) {
  readonly status = 429
  readonly code = "rate_limited"
}

export type StoreError = BadRequest | Unauthorized | QuotaExceeded | Forbidden | NotFound | RateLimited

export const isStoreError = (u: unknown): u is StoreError =>
  u instanceof BadRequest ||
  u instanceof Unauthorized ||
  u instanceof QuotaExceeded ||
  u instanceof Forbidden ||
  u instanceof NotFound ||
  u instanceof RateLimited
