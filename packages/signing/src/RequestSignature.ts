/**
 * The `TW-Public` request signature: how a platform's backend signs a call to the store API with a public key, and
 * the pure half of checking one (docs/signing.md has the exact strings and test vectors).
 *
 * ```
 * Authorization:   TW-Public <key_id>
 * X-TW-Timestamp:  <unix seconds>                       within ±5 minutes of the verifier's clock
 * X-TW-Nonce:      <32 hex characters>                  single use per key for one hour (see `Nonce`)
 * X-TW-Signature:  hex(HMAC-SHA256(secret, key_id "\n" nonce "\n" timestamp "\n" hex(SHA-256(raw body))))
 * ```
 *
 * Every part is taken as sent (the timestamp's digits, the nonce's letters), joined by a line feed with no trailing
 * one; the body digest is the lowercase hex SHA-256 of the raw body bytes — for an empty body, of the empty string
 * (`e3b0c442…b855`). The secret keys the HMAC as the UTF-8 bytes of its 64 hex characters, as written. The
 * signature is 64 hex characters (either case) and is compared in constant time.
 */
import { Effect, Redacted, Result } from "effect"
import { type Bytes, digestBytes, hmacSha256, sameDigest, sha256Hex } from "./internal/crypto.ts"
import * as Nonce from "./Nonce.ts"
import * as SigningError from "./SigningError.ts"

/** The `Authorization` scheme of public keys. */
export const SCHEME = "TW-Public"
export const TIMESTAMP_HEADER = "x-tw-timestamp"
export const NONCE_HEADER = "x-tw-nonce"
export const SIGNATURE_HEADER = "x-tw-signature"

/** How far a request's timestamp may be from the verifier's clock, either way, in seconds. */
export const TOLERANCE_SECONDS = 300

/** What the signature covers. */
export interface Parts {
  readonly keyId: string
  readonly nonce: string
  readonly timestamp: string
  /** Lowercase hex SHA-256 of the raw body (`bodyDigest`). */
  readonly bodySha256: string
}

/** Lowercase hex SHA-256 of a raw body (a string is hashed as its UTF-8 bytes). */
export const bodyDigest = (body: Bytes): string => sha256Hex(body)

/** The exact text the HMAC is computed over: the four parts joined by `\n`, no trailing newline. */
export const stringToSign = (parts: Parts): string =>
  `${parts.keyId}\n${parts.nonce}\n${parts.timestamp}\n${parts.bodySha256}`

/** The signature of `parts` under `secret`: 64 lowercase hex characters. */
export const sign = (secret: Redacted.Redacted<string>, parts: Parts): string =>
  hmacSha256(Redacted.value(secret), stringToSign(parts)).toString("hex")

/**
 * The four headers of a signed call, for a caller (a platform's backend, a test): `timestamp` in unix seconds and
 * a fresh `nonce` (`Nonce.make()`) of its choosing.
 */
export const headers = (input: {
  readonly keyId: string
  readonly secret: Redacted.Redacted<string>
  readonly body: Bytes
  readonly timestamp: number
  readonly nonce: string
}): Record<string, string> => {
  const timestamp = String(input.timestamp)
  const signature = sign(input.secret, {
    keyId: input.keyId,
    nonce: input.nonce,
    timestamp,
    bodySha256: bodyDigest(input.body)
  })
  return {
    authorization: `${SCHEME} ${input.keyId}`,
    [TIMESTAMP_HEADER]: timestamp,
    [NONCE_HEADER]: input.nonce,
    [SIGNATURE_HEADER]: signature
  }
}

/** A call as received: the key id from `Authorization`, the three headers as sent (absent: undefined), the raw body. */
export interface SignedRequest {
  readonly keyId: string
  readonly timestamp: string | undefined
  readonly nonce: string | undefined
  readonly signature: string | undefined
  readonly body: Bytes
}

/** A checked request: its nonce (lowercased, as `NonceStore` keeps it) is still to be consumed. */
export interface Verified {
  readonly keyId: string
  readonly nonce: string
  readonly timestamp: number
}

const TIMESTAMP = /^[0-9]{1,12}$/

const present = (value: string | undefined, header: string): Result.Result<string, SigningError.SigningErrorReason> =>
  value === undefined || value.trim() === ""
    ? Result.fail(new SigningError.MissingHeader({ header, message: `Signed calls need the ${header} header` }))
    : Result.succeed(value.trim())

/**
 * Checks a request against `secret` at `nowSeconds`, in this order: the three headers present and well formed, the
 * timestamp within `TOLERANCE_SECONDS`, the signature (constant time). The nonce's single use is the caller's next
 * step (`RequestVerifier` does both). Pure.
 */
export const verify = (
  request: SignedRequest,
  secret: Redacted.Redacted<string>,
  nowSeconds: number
): Result.Result<Verified, SigningError.SigningErrorReason> =>
  Result.gen(function* () {
    const timestamp = yield* present(request.timestamp, "X-TW-Timestamp")
    const nonce = yield* present(request.nonce, "X-TW-Nonce")
    const signature = yield* present(request.signature, "X-TW-Signature")
    if (!TIMESTAMP.test(timestamp)) {
      return yield* Result.fail(
        new SigningError.MalformedTimestamp({ message: "X-TW-Timestamp must be unix seconds (digits only)" })
      )
    }
    if (!Nonce.isNonce(nonce)) {
      return yield* Result.fail(
        new SigningError.MalformedNonce({ message: "X-TW-Nonce must be 32 hexadecimal characters" })
      )
    }
    const presented = digestBytes(signature)
    if (presented === undefined) {
      return yield* Result.fail(
        new SigningError.MalformedSignature({ message: "X-TW-Signature must be 64 hexadecimal characters" })
      )
    }
    const seconds = Number(timestamp)
    if (Math.abs(nowSeconds - seconds) > TOLERANCE_SECONDS) {
      return yield* Result.fail(
        new SigningError.TimestampOutOfWindow({
          serverTime: nowSeconds,
          message: `X-TW-Timestamp is more than ${TOLERANCE_SECONDS} seconds from the server's clock (server time ${nowSeconds})`
        })
      )
    }
    const expected = hmacSha256(
      Redacted.value(secret),
      stringToSign({ keyId: request.keyId, nonce, timestamp, bodySha256: bodyDigest(request.body) })
    )
    if (!sameDigest(expected, presented)) {
      return yield* Result.fail(
        new SigningError.SignatureMismatch({
          message:
            "X-TW-Signature does not match: sign key_id, nonce, timestamp and the body's SHA-256 with the key's signing secret"
        })
      )
    }
    return { keyId: request.keyId, nonce: Nonce.normalize(nonce), timestamp: seconds }
  })

/** `verify` as an effect failing with `SigningError`. */
export const verifyEffect = (request: SignedRequest, secret: Redacted.Redacted<string>, nowSeconds: number) =>
  Effect.fromResult(verify(request, secret, nowSeconds)).pipe(Effect.mapError(SigningError.fail))
