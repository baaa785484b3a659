/**
 * Why the store API refused a caller, or why a key, usage or quota operation failed: `AccessError`, whose `reason`
 * says which rule spoke and carries the spec's message. Transport-agnostic: an API decides which status each reason
 * gets (docs/api lists them).
 */
import { Schema } from "effect"

/** No `Authorization` header. */
export class MissingKey extends Schema.TaggedError<MissingKey>()("MissingKey", { message: Schema.String }) {}

/** An `Authorization` header that is not `Bearer <key_id>.<secret>`, an app token, or `TW-Public <key_id>`. */
export class MalformedKey extends Schema.TaggedError<MalformedKey>()("MalformedKey", { message: Schema.String }) {}

/** Unknown, revoked, suspended or not yet activated key, or wrong secret: one reason, so a caller learns nothing. */
export class InvalidKey extends Schema.TaggedError<InvalidKey>()("InvalidKey", { message: Schema.String }) {}

/** A public key (`TW-Public`) on an endpoint that takes platform keys and app tokens only. */
export class PublicKeyNotAccepted extends Schema.TaggedError<PublicKeyNotAccepted>()("PublicKeyNotAccepted", {
  message: Schema.String
}) {}

/** A signed route (`/v1/signups`, `/v1/events`) called without a `TW-Public` key, or with a malformed key id. */
export class PublicKeyRequired extends Schema.TaggedError<PublicKeyRequired>()("PublicKeyRequired", {
  message: Schema.String
}) {}

/** The store is not on an active Enterprise plan. */
export class NotEnterprise extends Schema.TaggedError<NotEnterprise>()("NotEnterprise", { message: Schema.String }) {}

/** The key is valid but not enrolled in the pilot. */
export class NotPilotEnrolled extends Schema.TaggedError<NotPilotEnrolled>()("NotPilotEnrolled", {
  message: Schema.String
}) {}

/** The key lacks the endpoint's scope. */
export class MissingScope extends Schema.TaggedError<MissingScope>()("MissingScope", {
  scope: Schema.String,
  message: Schema.String
}) {}

/** Key management with anything but a platform key. */
export class PlatformKeyRequired extends Schema.TaggedError<PlatformKeyRequired>()("PlatformKeyRequired", {
  message: Schema.String
}) {}

/** An installed-app token on an endpoint apps may not use (the change history). */
export class AppTokenRefused extends Schema.TaggedError<AppTokenRefused>()("AppTokenRefused", {
  message: Schema.String
}) {}

/** The store's per-minute budget is spent; `retryAfterSeconds` until its next window. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  limit: Schema.Int,
  retryAfterSeconds: Schema.Int,
  message: Schema.String
}) {}

/** The store's monthly request quota is used up until the 1st of next month. */
export class QuotaExhausted extends Schema.TaggedError<QuotaExhausted>()("QuotaExhausted", {
  message: Schema.String
}) {}

/** The `POST /v1/keys` body breaks a rule. */
export class InvalidKeyRequest extends Schema.TaggedError<InvalidKeyRequest>()("InvalidKeyRequest", {
  message: Schema.String
}) {}

/** The store already holds as many active keys as it may. */
export class TooManyKeys extends Schema.TaggedError<TooManyKeys>()("TooManyKeys", { message: Schema.String }) {}

/** No such key in the store (or one already revoked). */
export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", { message: Schema.String }) {}

/** A usage history range that is not two dates in order, or spans more than 90 days. */
export class InvalidHistoryRange extends Schema.TaggedError<InvalidHistoryRange>()("InvalidHistoryRange", {
  message: Schema.String
}) {}

export const AccessErrorReason = Schema.Union([
  MissingKey,
  MalformedKey,
  InvalidKey,
  PublicKeyNotAccepted,
  PublicKeyRequired,
  NotEnterprise,
  NotPilotEnrolled,
  MissingScope,
  PlatformKeyRequired,
  AppTokenRefused,
  RateLimited,
  QuotaExhausted,
  InvalidKeyRequest,
  TooManyKeys,
  KeyNotFound,
  InvalidHistoryRange
])
export type AccessErrorReason = typeof AccessErrorReason.Type

export class AccessError extends Schema.TaggedError<AccessError>()("AccessError", { reason: AccessErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: AccessErrorReason) => new AccessError({ reason })
