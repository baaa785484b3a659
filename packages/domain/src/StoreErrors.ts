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

/** 405: a method the route reserves (`PATCH /v1/store` until the settings write lands). */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String
}) {
  readonly status = 405
  readonly code = "method_not_allowed"
}

/** 409: a write with this `Idempotency-Key` is still being processed; retry after `retryAfterSeconds`. */
export class IdempotencyInFlight extends Schema.TaggedError<IdempotencyInFlight>()("IdempotencyInFlight", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int
}) {
  readonly status = 409
  readonly code = "idempotency_in_flight"
}

/** 422: the `Idempotency-Key` was first used with another method, path or body. */
export class IdempotencyKeyReuse extends Schema.TaggedError<IdempotencyKeyReuse>()("IdempotencyKeyReuse", {
  message: Schema.String
}) {
  readonly status = 422
  readonly code = "idempotency_key_reuse"
}

export type StoreError =
  | BadRequest
  | Unauthorized
  | QuotaExceeded
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | IdempotencyInFlight
  | IdempotencyKeyReuse
  | RateLimited

const classes = [
  BadRequest,
  Unauthorized,
  QuotaExceeded,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  IdempotencyInFlight,
  IdempotencyKeyReuse,
  RateLimited
]

export const isStoreError = (u: unknown): u is StoreError => classes.some((error) => u instanceof error)
