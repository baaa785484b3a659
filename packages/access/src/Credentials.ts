/**
 * The credentials of the store API and what a caller sends in `Authorization`: platform keys (`twpk_live_` id and a
 * 48-hex secret), public keys (`twpub_live_` id and a 64-hex signing secret), installed-app tokens (`twapp_live_`
 * and 48 hex). Secrets come from `crypto` randomness, are kept only as SHA-256 hex (a signing secret stays readable:
 * HMAC verification needs it), live in `Redacted` in memory, and are compared in constant time.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto"
import { Redacted } from "effect"

export const PLATFORM_PREFIX = "twpk_live_"
export const PUBLIC_PREFIX = "twpub_live_"
export const APP_TOKEN_PREFIX = "twapp_live_"
/** Key ids are 24 characters, prefix included. */
export const KEY_ID_LENGTH = 24

export type KeyType = "platform" | "public"

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

const platformKeyId = /^twpk_live_[a-z0-9]{14}$/
const publicKeyId = /^twpub_live_[a-z0-9]{13}$/
const platformSecret = /^[0-9a-f]{48}$/
const appToken = /^twapp_live_[0-9a-f]{48}$/

const randomAlphanumerics = (length: number) => {
  let text = ""
  // randomInt draws without modulo bias.
  for (let i = 0; i < length; i++) text += ALPHABET[randomInt(ALPHABET.length)]
  return text
}

const randomHex = (bytes: number) => randomBytes(bytes).toString("hex")

/** A new key id of this type: 24 characters, lowercase alphanumerics after the prefix. */
export const newKeyId = (type: KeyType): string => {
  const prefix = type === "platform" ? PLATFORM_PREFIX : PUBLIC_PREFIX
  return prefix + randomAlphanumerics(KEY_ID_LENGTH - prefix.length)
}

/** A platform key's secret: 48 hex characters. */
export const newPlatformSecret = (): Redacted.Redacted<string> => Redacted.make(randomHex(24))

/** A public key's signing secret: 64 hex characters. */
export const newSigningSecret = (): Redacted.Redacted<string> => Redacted.make(randomHex(32))

/** An installed-app token: `twapp_live_` and 48 hex characters. */
export const newAppToken = (): Redacted.Redacted<string> => Redacted.make(APP_TOKEN_PREFIX + randomHex(24))

/** The bearer token of a platform key: `<key_id>.<secret>`. */
export const bearerToken = (keyId: string, secret: Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.make(`${keyId}.${Redacted.value(secret)}`)

/** The SHA-256 hex of a secret, the only form in which platform secrets and app tokens are stored. */
export const sha256 = (secret: Redacted.Redacted<string>): string =>
  createHash("sha256").update(Redacted.value(secret), "utf8").digest("hex")

// Compared against when there is no stored hash (unknown key), so an unknown key costs what a wrong secret costs.
const DECOY = createHash("sha256").update("tawsil: no such key", "utf8").digest()

/**
 * Whether `secret` hashes to `storedSha256` (hex), compared with `crypto.timingSafeEqual`. Without a stored hash the
 * secret is compared against a decoy and never matches.
 */
export const matches = (secret: Redacted.Redacted<string>, storedSha256: string | null | undefined): boolean => {
  const presented = createHash("sha256").update(Redacted.value(secret), "utf8").digest()
  const stored = storedSha256 !== null && storedSha256 !== undefined && /^[0-9a-f]{64}$/.test(storedSha256)
  const equal = timingSafeEqual(presented, stored ? Buffer.from(storedSha256, "hex") : DECOY)
  return stored && equal
}

/** What an `Authorization` header holds, once its shape is checked. */
export type Presented =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  /** `TW-Public <key_id>`: a public key, which only signs `/v1/signups` and `/v1/events`; `keyId` as sent. */
  | { readonly _tag: "PublicKey"; readonly keyId: string }
  | { readonly _tag: "PlatformKey"; readonly keyId: string; readonly secret: Redacted.Redacted<string> }
  | { readonly _tag: "AppToken"; readonly token: Redacted.Redacted<string> }

/**
 * Reads `Authorization`: `Bearer <key_id>.<secret>` (both halves), `Bearer twapp_live_…`, or `TW-Public <key_id>`.
 * Schemes are case-insensitive (RFC 9110); the credentials are not.
 */
export const parseAuthorization = (header: string | undefined): Presented => {
  if (header === undefined || header.trim() === "") return { _tag: "Missing" }
  const match = /^\s*([A-Za-z][A-Za-z0-9-]*)\s+(\S+)\s*$/.exec(header)
  if (match === null) return { _tag: "Malformed" }
  const scheme = match[1]!.toLowerCase()
  const credentials = match[2]!
  if (scheme === "tw-public") return { _tag: "PublicKey", keyId: credentials }
  if (scheme !== "bearer") return { _tag: "Malformed" }
  if (appToken.test(credentials)) return { _tag: "AppToken", token: Redacted.make(credentials) }
  const dot = credentials.indexOf(".")
  if (dot < 0) return { _tag: "Malformed" }
  const keyId = credentials.slice(0, dot)
  const secret = credentials.slice(dot + 1)
  if (!platformKeyId.test(keyId) || !platformSecret.test(secret)) return { _tag: "Malformed" }
  return { _tag: "PlatformKey", keyId, secret: Redacted.make(secret) }
}

/** Whether `keyId` has the shape of a public key's id (`twpub_live_` + 13). */
export const isPublicKeyId = (keyId: string): boolean => publicKeyId.test(keyId)

/** Whether `keyId` has the shape of a key id of either type. */
export const isKeyId = (keyId: string): boolean => platformKeyId.test(keyId) || publicKeyId.test(keyId)
