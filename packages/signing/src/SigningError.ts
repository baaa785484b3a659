/**
 * Why a signed call or a signed webhook was not accepted: `SigningError`, whose `reason` names the rule that spoke.
 * Every reason is the caller's credentials failing, so an API answers them all alike (the store API: 401); the
 * messages differ so an integrator can tell a clock off by minutes from a wrong secret. No message ever repeats a
 * secret or the signature that was expected.
 */
import { Schema } from "effect"

/** A header the scheme needs is absent or empty. */
export class MissingHeader extends Schema.TaggedError<MissingHeader>()("MissingHeader", {
  header: Schema.String,
  message: Schema.String
}) {}

/** The timestamp is not whole unix seconds. */
export class MalformedTimestamp extends Schema.TaggedError<MalformedTimestamp>()("MalformedTimestamp", {
  message: Schema.String
}) {}

/** The timestamp is more than the tolerance away from the verifier's clock; `serverTime` is that clock, in seconds. */
export class TimestampOutOfWindow extends Schema.TaggedError<TimestampOutOfWindow>()("TimestampOutOfWindow", {
  serverTime: Schema.Number,
  message: Schema.String
}) {}

/** The nonce is not 32 hexadecimal characters. */
export class MalformedNonce extends Schema.TaggedError<MalformedNonce>()("MalformedNonce", {
  message: Schema.String
}) {}

/** The nonce was already used by this key within its lifetime (a replay). */
export class NonceReused extends Schema.TaggedError<NonceReused>()("NonceReused", { message: Schema.String }) {}

/** The signature (or a webhook's signature header) does not have the scheme's shape. */
export class MalformedSignature extends Schema.TaggedError<MalformedSignature>()("MalformedSignature", {
  message: Schema.String
}) {}

/** Well formed, but not the signature of this request under the key's secret. */
export class SignatureMismatch extends Schema.TaggedError<SignatureMismatch>()("SignatureMismatch", {
  message: Schema.String
}) {}

export const SigningErrorReason = Schema.Union([
  MissingHeader,
  MalformedTimestamp,
  TimestampOutOfWindow,
  MalformedNonce,
  NonceReused,
  MalformedSignature,
  SignatureMismatch
])
export type SigningErrorReason = typeof SigningErrorReason.Type

export class SigningError extends Schema.TaggedError<SigningError>()("SigningError", { reason: SigningErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: SigningErrorReason) => new SigningError({ reason })
