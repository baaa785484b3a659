/**
 * Why a secret could not be sealed or opened: `SecretsError`, whose `reason` says which rule spoke. No message ever
 * holds a secret, a key or a sealed value's ciphertext: only key ids, which are public.
 */
import { Schema } from "effect"

/** The variable that configures the key ring of a Tawsil app: what an operator sets when no key is configured. */
export const KEY_VARIABLE = "TAWSIL_SECRET_KEY"

/** No key is configured: nothing can be sealed or opened (values already sealed stay as they are). */
export class KeyMissing extends Schema.TaggedError<KeyMissing>()("KeyMissing", {
  /** The setting that would provide one. */
  variable: Schema.String
}) {
  override get message() {
    return `no secret key is configured: set ${this.variable} (64 hexadecimal characters) to store secrets`
  }
}

/** The value was sealed under a key the ring does not hold (removed too early from the previous keys, or another install's). */
export class UnknownKey extends Schema.TaggedError<UnknownKey>()("UnknownKey", { keyId: Schema.String }) {
  override get message() {
    return `the value was sealed under key ${this.keyId}, which is neither the current key nor a previous one`
  }
}

/**
 * The value does not authenticate: its ciphertext, nonce or header was altered, or it was stored under another
 * associated data (moved to another row or column), or a key with its id is not the key that sealed it.
 */
export class Tampered extends Schema.TaggedError<Tampered>()("Tampered", { keyId: Schema.String }) {
  override get message() {
    return `the value sealed under key ${this.keyId} does not authenticate here: altered, or moved from where it was stored`
  }
}

/** Not a sealed value of a version this package reads. */
export class Malformed extends Schema.TaggedError<Malformed>()("Malformed", { detail: Schema.String }) {
  override get message() {
    return `not a sealed value: ${this.detail}`
  }
}

export const SecretsErrorReason = Schema.Union([KeyMissing, UnknownKey, Tampered, Malformed])
export type SecretsErrorReason = typeof SecretsErrorReason.Type

/** The reasons `SecretBox.open` answers (a ring is at hand: a key cannot be missing). */
export type OpenFailure = UnknownKey | Tampered | Malformed

export class SecretsError extends Schema.TaggedError<SecretsError>()("SecretsError", { reason: SecretsErrorReason }) {
  override get message() {
    return this.reason.message
  }
}
