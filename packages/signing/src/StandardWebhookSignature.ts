/**
 * The Standard Webhooks signature (standardwebhooks.com, specification 1.0.0), which every delivery carries beside
 * `X-TW-Signature` so that a receiver can check it with an off-the-shelf verifier in any language, unchanged:
 *
 * ```
 * webhook-id:        <the event id: the same on every attempt of one event>
 * webhook-timestamp: <unix seconds of this attempt>
 * webhook-signature: v1,<base64(HMAC-SHA256(key, "<id>.<timestamp>.<raw body>"))>[ v1,<…>]
 * ```
 *
 * The scheme's secrets are `whsec_` + base64 of the key's bytes, and its verifiers key the HMAC with what follows
 * `whsec_`, read as base64. Ours (`whsec_` + 64 hex characters) are given to such a verifier as they are: hex digits
 * are base64 characters, so the 64 read as base64 are a 48-byte key (decision 0019). One secret, two readings:
 * `X-TW-Signature` keys its HMAC with the secret's text, this scheme with the bytes its base64 reading gives.
 *
 * While a secret is being rotated the header holds one `v1,…` per live secret, the new one first, separated by a
 * space; a verifier accepts the delivery when any of them matches. Entries of other versions (`v1a`) are skipped.
 */
import { Clock, Effect, Redacted, Result } from "effect"
import { type Bytes, hmacSha256, sameDigest } from "./internal/crypto.ts"
import * as SigningError from "./SigningError.ts"

export const ID_HEADER = "webhook-id"
export const TIMESTAMP_HEADER = "webhook-timestamp"
export const SIGNATURE_HEADER = "webhook-signature"

/** How the scheme marks a symmetric secret. */
export const SECRET_PREFIX = "whsec_"

/** How old (or how far ahead) a delivery's timestamp may be when its receiver checks it, in seconds. */
export const TOLERANCE_SECONDS = 300

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * The key bytes of a secret as the scheme reads it: what follows `whsec_` (or the whole text, without it) decoded
 * as standard base64, strictly (canonical padding and trailing bits). Undefined for a text that is not base64;
 * every secret Tawsil makes is (`whsec_` + 64 hex characters: 48 bytes).
 */
export const key = (secret: Redacted.Redacted<string>): Buffer | undefined => {
  const text = Redacted.value(secret)
  const encoded = text.startsWith(SECRET_PREFIX) ? text.slice(SECRET_PREFIX.length) : text
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined
  const bytes = Buffer.from(encoded, "base64")
  return bytes.length > 0 && bytes.toString("base64") === encoded ? bytes : undefined
}

/** The exact text the HMAC is computed over, for a body given as text. */
export const signedContent = (id: string, timestamp: number, body: string): string => `${id}.${timestamp}.${body}`

const mac = (keyBytes: Uint8Array, id: string, timestamp: number, body: Bytes) =>
  hmacSha256(keyBytes, `${id}.${timestamp}.`, body)

/** One signature, base64, under `secret`; undefined when the secret is not in the scheme's form (`key`). */
export const signature = (
  secret: Redacted.Redacted<string>,
  id: string,
  timestamp: number,
  body: Bytes
): string | undefined => {
  const bytes = key(secret)
  return bytes === undefined ? undefined : mac(bytes, id, timestamp, body).toString("base64")
}

/** The `webhook-signature` value: `v1,<signature>` per secret in the scheme's form (the current one first). */
export const signatureHeader = (
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
  id: string,
  timestamp: number,
  body: Bytes
): string =>
  secrets
    .flatMap((secret) => {
      const signed = signature(secret, id, timestamp, body)
      return signed === undefined ? [] : [`v1,${signed}`]
    })
    .join(" ")

/**
 * The three headers of a delivery: `id` is the event's id (the same on every attempt), `timestamp` this attempt's
 * time. Empty when no secret is in the scheme's form (never with a secret Tawsil made).
 */
export const headers = (input: {
  readonly id: string
  readonly timestamp: number
  readonly body: Bytes
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
}): Record<string, string> => {
  const signed = signatureHeader(input.secrets, input.id, input.timestamp, input.body)
  return signed === ""
    ? {}
    : { [ID_HEADER]: input.id, [TIMESTAMP_HEADER]: String(input.timestamp), [SIGNATURE_HEADER]: signed }
}

/** The headers of a request as Node gives them (`IncomingHttpHeaders`) or as a plain record, names in any case. */
export type HeaderRecord = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** The three headers read: the id, the timestamp and every `v1` signature's bytes. */
export interface Parsed {
  readonly id: string
  readonly timestamp: number
  readonly signatures: ReadonlyArray<Buffer>
}

const headerOf = (record: HeaderRecord, name: string): string | undefined => {
  for (const [header, value] of Object.entries(record)) {
    if (header.toLowerCase() !== name) continue
    return typeof value === "string" ? value : value?.[0]
  }
  return undefined
}

const missing = (name: string) =>
  Result.fail(new SigningError.MissingHeader({ header: name, message: `The ${name} header is missing` }))

const malformed = (message: string) => Result.fail(new SigningError.MalformedSignature({ message }))

/**
 * Reads the three headers: the id (not empty, no `.`), the timestamp (unix seconds), and `webhook-signature`, a
 * space-separated list of `<version>,<base64>` whose `v1` entries must each be a 32-byte signature; entries of
 * other versions are skipped, and at least one `v1` must remain.
 */
export const parse = (record: HeaderRecord): Result.Result<Parsed, SigningError.SigningErrorReason> => {
  const id = headerOf(record, ID_HEADER)?.trim()
  const stamp = headerOf(record, TIMESTAMP_HEADER)?.trim()
  const list = headerOf(record, SIGNATURE_HEADER)?.trim()
  if (id === undefined || id === "") return missing(ID_HEADER)
  if (stamp === undefined || stamp === "") return missing(TIMESTAMP_HEADER)
  if (list === undefined || list === "") return missing(SIGNATURE_HEADER)
  if (id.includes(".")) return malformed(`${ID_HEADER} must not contain a full stop`)
  if (!/^[0-9]{1,12}$/.test(stamp)) {
    return Result.fail(
      new SigningError.MalformedTimestamp({ message: `${TIMESTAMP_HEADER} must be whole unix seconds` })
    )
  }
  const signatures: Array<Buffer> = []
  for (const entry of list.split(" ")) {
    if (entry === "") continue
    const comma = entry.indexOf(",")
    if (comma === -1 || entry.slice(0, comma) !== "v1") continue
    const encoded = entry.slice(comma + 1)
    const bytes = BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined
    if (bytes === undefined || bytes.length !== 32 || bytes.toString("base64") !== encoded) {
      return malformed("each v1 signature must be the base64 of 32 bytes")
    }
    signatures.push(bytes)
  }
  if (signatures.length === 0) return malformed(`${SIGNATURE_HEADER} has no v1 signature`)
  return Result.succeed({ id, timestamp: Number(stamp), signatures })
}

/** A verified delivery: its id (the event's: dedupe on it) and the attempt's timestamp. */
export interface Verified {
  readonly id: string
  readonly timestamp: number
}

/**
 * Checks a delivery as its receiver should: `headers` the request's headers, `body` the raw body bytes as received
 * (never re-serialised JSON), `secrets` the `whsec_…` secret(s) the receiver holds, `nowSeconds` its clock. Pure;
 * succeeds with the delivery's id (dedupe on it) and timestamp.
 */
export const verify = (input: {
  readonly headers: HeaderRecord
  readonly body: Bytes
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  readonly nowSeconds: number
  readonly toleranceSeconds?: number | undefined
}): Result.Result<Verified, SigningError.SigningErrorReason> =>
  Result.flatMap(
    parse(input.headers),
    ({ id, timestamp, signatures }): Result.Result<Verified, SigningError.SigningErrorReason> => {
      const tolerance = input.toleranceSeconds ?? TOLERANCE_SECONDS
      if (Math.abs(input.nowSeconds - timestamp) > tolerance) {
        return Result.fail(
          new SigningError.TimestampOutOfWindow({
            serverTime: input.nowSeconds,
            message: `The delivery's timestamp is more than ${tolerance} seconds from this clock`
          })
        )
      }
      // Every pair is compared, so the time taken does not tell which secret or entry matched.
      let matched = false
      for (const secret of input.secrets) {
        const bytes = key(secret)
        if (bytes === undefined) continue
        const expected = mac(bytes, id, timestamp, input.body)
        for (const presented of signatures) {
          if (sameDigest(expected, presented)) matched = true
        }
      }
      return matched
        ? Result.succeed({ id, timestamp })
        : Result.fail(new SigningError.SignatureMismatch({ message: "No v1 signature matches the secret" }))
    }
  )

/** `verify` as an effect failing with `SigningError`, reading the time from `Clock`. */
export const verifyEffect = (input: {
  readonly headers: HeaderRecord
  readonly body: Bytes
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  readonly toleranceSeconds?: number | undefined
}) =>
  Effect.flatMap(Clock.currentTimeMillis, (millis) =>
    Effect.fromResult(verify({ ...input, nowSeconds: Math.floor(millis / 1000) })).pipe(
      Effect.mapError(SigningError.fail)
    )
  )
