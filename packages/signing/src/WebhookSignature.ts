/**
 * The webhook signature: how Tawsil signs each delivery and how a receiver checks it (docs/signing.md has the exact
 * strings and test vectors). Stripe's scheme:
 *
 * ```
 * X-TW-Signature: t=<unix seconds of this attempt>,v1=<hex(HMAC-SHA256(secret, "<t>.<raw body>"))>
 * ```
 *
 * While a subscription's secret is being rotated the header carries one `v1` per live secret (the new one first),
 * so a receiver holding either keeps verifying. A receiver accepts the delivery when the timestamp is within
 * `TOLERANCE_SECONDS` of its clock and any `v1` matches its secret, compared in constant time; it ignores entries
 * it does not know (a later `v2`). The secret keys the HMAC as the UTF-8 bytes of its text, `whsec_` included.
 */
import { Clock, Effect, Redacted, Result } from "effect"
import { type Bytes, digestBytes, hmacSha256, sameDigest } from "./internal/crypto.ts"
import * as SigningError from "./SigningError.ts"

export const HEADER = "x-tw-signature"

/** How old (or how far ahead) a delivery's timestamp may be when its receiver checks it, in seconds. */
export const TOLERANCE_SECONDS = 300

/** The exact text the HMAC is computed over, for a body given as text. */
export const signedPayload = (timestamp: number, body: string): string => `${timestamp}.${body}`

const mac = (secret: Redacted.Redacted<string>, timestamp: number, body: Bytes) =>
  hmacSha256(Redacted.value(secret), `${timestamp}.`, body)

/** One `v1` value: the hex HMAC of `<t>.<body>` under `secret`. */
export const signature = (secret: Redacted.Redacted<string>, timestamp: number, body: Bytes): string =>
  mac(secret, timestamp, body).toString("hex")

/** The header value for a delivery signed at `timestamp` with each of `secrets` (the current one first). */
export const header = (secrets: ReadonlyArray<Redacted.Redacted<string>>, timestamp: number, body: Bytes): string =>
  [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signature(secret, timestamp, body)}`)].join(",")

/** A header read: its timestamp and every `v1` signature in it. */
export interface Parsed {
  readonly timestamp: number
  readonly signatures: ReadonlyArray<string>
}

const malformed = (message: string) => Result.fail(new SigningError.MalformedSignature({ message }))

/** Reads `t=<digits>,v1=<64 hex>[,v1=…]`; unknown entries are skipped, `t` must appear once and `v1` at least once. */
export const parse = (value: string | undefined): Result.Result<Parsed, SigningError.SigningErrorReason> => {
  if (value === undefined || value.trim() === "") {
    return Result.fail(
      new SigningError.MissingHeader({ header: "X-TW-Signature", message: "The X-TW-Signature header is missing" })
    )
  }
  let timestamp: number | undefined
  const signatures: Array<string> = []
  for (const entry of value.split(",")) {
    const equals = entry.indexOf("=")
    const name = entry.slice(0, Math.max(0, equals)).trim()
    const text = entry.slice(equals + 1).trim()
    if (name === "t") {
      if (timestamp !== undefined || !/^[0-9]{1,12}$/.test(text))
        return malformed("t= must appear once, in unix seconds")
      timestamp = Number(text)
    } else if (name === "v1") {
      if (digestBytes(text) === undefined) return malformed("each v1= must be 64 hexadecimal characters")
      signatures.push(text)
    }
  }
  if (timestamp === undefined) return malformed("X-TW-Signature has no t= entry")
  if (signatures.length === 0) return malformed("X-TW-Signature has no v1= entry")
  return Result.succeed({ timestamp, signatures })
}

/**
 * Checks a delivery as its receiver should: `header` is the `X-TW-Signature` value, `body` the raw body bytes as
 * received (never re-serialised JSON), `secrets` the subscription secret(s) the receiver holds, `nowSeconds` its
 * clock. Pure; succeeds with the signed timestamp.
 */
export const verify = (input: {
  readonly header: string | undefined
  readonly body: Bytes
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  readonly nowSeconds: number
  readonly toleranceSeconds?: number | undefined
}): Result.Result<number, SigningError.SigningErrorReason> =>
  Result.flatMap(
    parse(input.header),
    ({ timestamp, signatures }): Result.Result<number, SigningError.SigningErrorReason> => {
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
        const expected = mac(secret, timestamp, input.body)
        for (const presented of signatures) {
          if (sameDigest(expected, digestBytes(presented)!)) matched = true
        }
      }
      return matched
        ? Result.succeed(timestamp)
        : Result.fail(new SigningError.SignatureMismatch({ message: "No v1 signature matches the secret" }))
    }
  )

/** `verify` as an effect failing with `SigningError`, reading the time from `Clock`. */
export const verifyEffect = (input: {
  readonly header: string | undefined
  readonly body: Bytes
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  readonly toleranceSeconds?: number | undefined
}) =>
  Effect.flatMap(Clock.currentTimeMillis, (millis) =>
    Effect.fromResult(verify({ ...input, nowSeconds: Math.floor(millis / 1000) })).pipe(
      Effect.mapError(SigningError.fail)
    )
  )
