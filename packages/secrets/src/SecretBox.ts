/**
 * Sealing a secret that must be kept (a courier account's credentials), as plain functions over a `KeyRing`:
 * AES-256-GCM through `node:crypto`, a fresh random 96-bit nonce per value, and a self-describing text that says
 * which key sealed it:
 *
 *     tws1.<key id>.<nonce>.<ciphertext and tag>        (nonce and ciphertext in unpadded base64url)
 *
 * The associated data binds a value to where it is stored (`courier_accounts:<store id>:credentials`): the same
 * bytes copied to another row or column do not open. The header (version and key id) is authenticated with it.
 * `open` never throws and its failures never hold the plaintext or a key.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { Redacted, Result } from "effect"
import * as KeyRing from "./KeyRing.ts"
import { Malformed, type OpenFailure, Tampered, UnknownKey } from "./SecretsError.ts"

export const VERSION = "tws1"

/** 96 bits: GCM's own nonce size. Random nonces stay safe far beyond the number of values a store keeps. */
const NONCE_BYTES = 12
const TAG_BYTES = 16
const BASE64URL = /^[A-Za-z0-9_-]*$/
const KEY_ID = /^[0-9a-f]{8}$/

/** What every value sealed under `key` starts with: a store can find the values a rotation has still to re-seal. */
export const prefix = (key: KeyRing.Key): string => `${VERSION}.${key.id}.`

const additionalData = (header: string, associatedData: string) =>
  Buffer.concat([Buffer.from(header, "latin1"), Buffer.from(associatedData, "utf8")])

/** Seals `plaintext` under the ring's current key, bound to `associatedData`. Each call draws a new nonce. */
export const seal = (ring: KeyRing.KeyRing, plaintext: Redacted.Redacted<string>, associatedData: string): string => {
  const key = ring.current
  const header = prefix(key)
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv("aes-256-gcm", Redacted.value(key.bytes), nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(additionalData(header, associatedData))
  const sealed = Buffer.concat([cipher.update(Redacted.value(plaintext), "utf8"), cipher.final(), cipher.getAuthTag()])
  return `${header}${nonce.toString("base64url")}.${sealed.toString("base64url")}`
}

interface Parsed {
  readonly keyId: string
  readonly header: string
  readonly nonce: Buffer
  readonly ciphertext: Buffer
  readonly tag: Buffer
}

/** Unpadded base64url, in its one canonical spelling (a second spelling of the same bytes is not the value). */
const decode = (text: string): Buffer | undefined => {
  if (!BASE64URL.test(text)) return undefined
  const bytes = Buffer.from(text, "base64url")
  return bytes.toString("base64url") === text ? bytes : undefined
}

const parse = (sealed: string): Result.Result<Parsed, Malformed> => {
  const parts = sealed.split(".")
  if (parts.length !== 4) return Result.fail(new Malformed({ detail: "expected 4 parts separated by dots" }))
  const [version, keyId, nonceText, sealedText] = parts as [string, string, string, string]
  if (version !== VERSION) return Result.fail(new Malformed({ detail: `unknown version (this reads ${VERSION})` }))
  if (!KEY_ID.test(keyId)) return Result.fail(new Malformed({ detail: "the key id is not 8 hexadecimal characters" }))
  const nonce = decode(nonceText)
  if (nonce === undefined || nonce.length !== NONCE_BYTES) {
    return Result.fail(new Malformed({ detail: `the nonce is not ${NONCE_BYTES} bytes of base64url` }))
  }
  const body = decode(sealedText)
  if (body === undefined || body.length < TAG_BYTES) {
    return Result.fail(new Malformed({ detail: "the ciphertext is not base64url holding at least the tag" }))
  }
  return Result.succeed({
    keyId,
    header: `${version}.${keyId}.`,
    nonce,
    ciphertext: body.subarray(0, body.length - TAG_BYTES),
    tag: body.subarray(body.length - TAG_BYTES)
  })
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The plaintext of a value sealed under a key of `ring` with the same `associatedData`, or why not. Never throws. */
export const open = (
  ring: KeyRing.KeyRing,
  sealed: string,
  associatedData: string
): Result.Result<Redacted.Redacted<string>, OpenFailure> => {
  const parsed = parse(sealed)
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
  const { keyId, header, nonce, ciphertext, tag } = parsed.success
  const key = KeyRing.find(ring, keyId)
  if (key === undefined) return Result.fail(new UnknownKey({ keyId }))
  let plaintext: Uint8Array
  try {
    const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key.bytes), nonce, { authTagLength: TAG_BYTES })
    decipher.setAAD(additionalData(header, associatedData))
    decipher.setAuthTag(tag)
    plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()])
  } catch {
    // GCM's check failed: the only thing `final` refuses once the key, nonce and tag sizes are right.
    return Result.fail(new Tampered({ keyId }))
  }
  try {
    return Result.succeed(Redacted.make(utf8.decode(plaintext)))
  } catch {
    // Only a value sealed by something else than `seal` (which seals text) can authenticate and not be UTF-8.
    return Result.fail(new Malformed({ detail: "the plaintext is not UTF-8 text" }))
  }
}

/** The id of the key a value says it was sealed under; undefined when it is not a sealed value. */
export const keyIdOf = (sealed: string): string | undefined => {
  const parsed = parse(sealed)
  return Result.isSuccess(parsed) ? parsed.success.keyId : undefined
}

/** Whether a sealed value names a key other than the ring's current one (a rotation has to re-seal it). */
export const needsReseal = (ring: KeyRing.KeyRing, sealed: string): boolean => {
  const keyId = keyIdOf(sealed)
  return keyId !== undefined && keyId !== ring.current.id
}

/**
 * The value sealed again under the ring's current key, with the same associated data (a rotation's step: `open`
 * then `seal`); the value itself when it already is. A value that does not open is left as it is, with why.
 */
export const reseal = (
  ring: KeyRing.KeyRing,
  sealed: string,
  associatedData: string
): Result.Result<string, OpenFailure> => {
  if (!needsReseal(ring, sealed)) {
    const parsed = parse(sealed)
    return Result.isFailure(parsed) ? Result.fail(parsed.failure) : Result.succeed(sealed)
  }
  return Result.map(open(ring, sealed, associatedData), (plaintext) => seal(ring, plaintext, associatedData))
}

/**
 * A short fingerprint of a secret, to tell stored secrets apart without showing them: the first 12 hex characters of
 * an HMAC-SHA256 keyed by the ring's current key (through a label, so the key itself is never used twice), prefixed
 * by that key's id (`<key id>:<12 hex>`). Keyed, so a fingerprint read from a dump cannot be checked against guessed
 * passwords without the key, which is never in the database; two equal secrets fingerprinted under one key match.
 */
export const fingerprint = (ring: KeyRing.KeyRing, secret: Redacted.Redacted<string>): string => {
  const key = createHmac("sha256", Redacted.value(ring.current.bytes)).update("tawsil/secrets fingerprint").digest()
  const mac = createHmac("sha256", key).update(Redacted.value(secret), "utf8").digest("hex")
  return `${ring.current.id}:${mac.slice(0, 12)}`
}
