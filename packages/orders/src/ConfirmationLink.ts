/**
 * The token of a signed one-time confirmation link (docs/confirmation.md): what it says, how it is signed and how a
 * presented token is read back. Pure functions over a key; the `Confirmation` service takes its keys from the app's
 * key ring (`@tawsil/secrets`), which is never in the database, and keeps each link's use in its store.
 *
 * ```
 * 1.<key id>.<store id>.<order id>.<link id>.<expires, unix seconds>.<HMAC-SHA256 truncated to 128 bits, base64url>
 * ```
 *
 * The HMAC covers everything before its own dot and is keyed by a key derived from the ring's key through a fixed
 * label, so the ring's key is never used for two purposes. The token stays under 100 characters, short enough for an
 * SMS: the link id is 96 random bits, the tag 128 bits of the HMAC (RFC 2104 allows truncation to half the output). Tokens signed under a previous key of the ring still read
 * while a rotation is under way. A token whose signature does not match says nothing: not which order it named, nor
 * whether the order exists.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Redacted, Result } from "effect"

export const VERSION = "1"

/** Bytes of the HMAC a token carries. */
const TAG_BYTES = 16

/** A key of the ring, as `@tawsil/secrets`' `KeyRing.Key`: its public id and its 32 bytes. */
export interface SigningKey {
  readonly id: string
  readonly bytes: Redacted.Redacted<Uint8Array>
}

/** What a token binds: one link of one order of one store, until it expires. */
export interface Claims {
  readonly storeId: number
  readonly orderId: number
  /** The link's random id (96 bits, 16 base64url characters): its row, whose use is recorded once. */
  readonly linkId: string
  /** Unix seconds. */
  readonly expiresAt: number
}

/** Why a token was not read: not a token's shape, or a signature that no key of the ring made. */
export type Refusal = "malformed" | "signature"

const KEY_LABEL = "tawsil/confirmation link key"
const LINK_ID = /^[A-Za-z0-9_-]{16}$/
const KEY_ID = /^[0-9a-f]{8}$/
const NUMBER = /^[1-9][0-9]{0,15}$/
const MAC = /^[A-Za-z0-9_-]{22}$/

const linkKey = (key: SigningKey) => createHmac("sha256", Redacted.value(key.bytes)).update(KEY_LABEL).digest()

const macOf = (key: SigningKey, payload: string) =>
  createHmac("sha256", linkKey(key)).update(payload).digest().subarray(0, TAG_BYTES)

/** The token of `claims`, signed under `key`. */
export const sign = (key: SigningKey, claims: Claims): string => {
  const payload = [VERSION, key.id, claims.storeId, claims.orderId, claims.linkId, claims.expiresAt].join(".")
  return `${payload}.${macOf(key, payload).toString("base64url")}`
}

/**
 * The claims of a token signed under one of `keys` (found by the id the token names), compared in constant time.
 * Expiry and use are the caller's to check: they need the clock and the link's row.
 */
export const read = (keys: ReadonlyArray<SigningKey>, token: string): Result.Result<Claims, Refusal> => {
  const parts = token.split(".")
  if (parts.length !== 7) return Result.fail("malformed")
  const [version, keyId, storeId, orderId, linkId, expiresAt, mac] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
    string
  ]
  if (
    version !== VERSION ||
    !KEY_ID.test(keyId) ||
    !NUMBER.test(storeId) ||
    !NUMBER.test(orderId) ||
    !LINK_ID.test(linkId) ||
    !NUMBER.test(expiresAt) ||
    !MAC.test(mac)
  ) {
    return Result.fail("malformed")
  }
  const key = keys.find((candidate) => candidate.id === keyId)
  if (key === undefined) return Result.fail("signature")
  const expected = macOf(key, parts.slice(0, 6).join("."))
  const presented = Buffer.from(mac, "base64url")
  // 22 characters carry 132 bits for 128: only the canonical spelling is a token, so no two tokens share a tag.
  if (presented.toString("base64url") !== mac) return Result.fail("malformed")
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return Result.fail("signature")
  return Result.succeed({
    storeId: Number(storeId),
    orderId: Number(orderId),
    linkId,
    expiresAt: Number(expiresAt)
  })
}
