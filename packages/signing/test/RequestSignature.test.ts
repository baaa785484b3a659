import { assert, describe, it } from "@effect/vitest"
import { Redacted, Result } from "effect"
import * as Nonce from "../src/Nonce.ts"
import * as RequestSignature from "../src/RequestSignature.ts"

const keyId = "twpub_live_abcdefghijklm"
const secret = Redacted.make("9".repeat(64))
const now = 1_767_225_600
const body = '{"event":"page_view","properties":{"path":"/"}}'

const signed = (
  overrides: Partial<{ body: string; timestamp: number; nonce: string; secret: Redacted.Redacted<string> }> = {}
) => {
  const headers = RequestSignature.headers({
    keyId,
    secret: overrides.secret ?? secret,
    body: overrides.body ?? body,
    timestamp: overrides.timestamp ?? now,
    nonce: overrides.nonce ?? "00112233445566778899aabbccddeeff"
  })
  return {
    keyId,
    timestamp: headers["x-tw-timestamp"],
    nonce: headers["x-tw-nonce"],
    signature: headers["x-tw-signature"],
    body
  }
}

const reasonOf = (result: Result.Result<unknown, { readonly _tag: string }>) =>
  Result.isFailure(result) ? result.failure._tag : "accepted"

describe("RequestSignature", () => {
  it("signs key id, nonce, timestamp and the body's SHA-256, joined by line feeds", () => {
    const text = RequestSignature.stringToSign({
      keyId,
      nonce: "00112233445566778899aabbccddeeff",
      timestamp: "1767225600",
      bodySha256: RequestSignature.bodyDigest("")
    })
    assert.strictEqual(
      text,
      `${keyId}\n00112233445566778899aabbccddeeff\n1767225600\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`
    )
    const headers = RequestSignature.headers({ keyId, secret, body, timestamp: now, nonce: Nonce.make() })
    assert.strictEqual(headers.authorization, `TW-Public ${keyId}`)
    assert.match(headers["x-tw-signature"]!, /^[0-9a-f]{64}$/)
    assert.match(headers["x-tw-nonce"]!, /^[0-9a-f]{32}$/)
  })

  it("accepts its own signature, in either letter case, and gives back the nonce to consume", () => {
    const request = signed()
    const verified = RequestSignature.verify(request, secret, now)
    assert.deepStrictEqual(Result.getOrUndefined(verified), {
      keyId,
      nonce: "00112233445566778899aabbccddeeff",
      timestamp: now
    })
    const upper = RequestSignature.verify({ ...request, signature: request.signature!.toUpperCase() }, secret, now)
    assert.isTrue(Result.isSuccess(upper))
    const upperNonce = signed({ nonce: "00112233445566778899AABBCCDDEEFF" })
    assert.strictEqual(
      Result.getOrUndefined(RequestSignature.verify(upperNonce, secret, now))?.nonce,
      "00112233445566778899aabbccddeeff",
      "nonces are kept lowercased"
    )
  })

  it("refuses a wrong secret, a body changed by one byte, another key id or nonce", () => {
    const request = signed()
    assert.strictEqual(
      reasonOf(RequestSignature.verify(request, Redacted.make("8".repeat(64)), now)),
      "SignatureMismatch"
    )
    assert.strictEqual(
      reasonOf(RequestSignature.verify({ ...request, body: body.replace("/", "?") }, secret, now)),
      "SignatureMismatch"
    )
    assert.strictEqual(
      reasonOf(RequestSignature.verify({ ...request, body: `${body} ` }, secret, now)),
      "SignatureMismatch"
    )
    assert.strictEqual(
      reasonOf(RequestSignature.verify({ ...request, keyId: "twpub_live_abcdefghijkln" }, secret, now)),
      "SignatureMismatch"
    )
    assert.strictEqual(
      reasonOf(RequestSignature.verify({ ...request, nonce: "10112233445566778899aabbccddeeff" }, secret, now)),
      "SignatureMismatch"
    )
  })

  it("takes timestamps up to 300 s either way of the clock, not 301, and says the server's time", () => {
    for (const skew of [-300, -1, 0, 1, 300]) {
      assert.strictEqual(reasonOf(RequestSignature.verify(signed({ timestamp: now + skew }), secret, now)), "accepted")
    }
    for (const skew of [-301, 301, -86_400]) {
      const result = RequestSignature.verify(signed({ timestamp: now + skew }), secret, now)
      assert.strictEqual(reasonOf(result), "TimestampOutOfWindow", String(skew))
      if (Result.isFailure(result)) assert.include(result.failure.message, `server time ${now}`)
    }
  })

  it("names a missing or malformed header before looking at the signature", () => {
    const request = signed()
    const cases: ReadonlyArray<readonly [Partial<RequestSignature.SignedRequest>, string]> = [
      [{ timestamp: undefined }, "MissingHeader"],
      [{ nonce: " " }, "MissingHeader"],
      [{ signature: undefined }, "MissingHeader"],
      [{ timestamp: "1767225600.5" }, "MalformedTimestamp"],
      [{ timestamp: "-1767225600" }, "MalformedTimestamp"],
      [{ timestamp: "2026-01-01T00:00:00Z" }, "MalformedTimestamp"],
      [{ nonce: "0011223344556677" }, "MalformedNonce"],
      [{ nonce: "g0112233445566778899aabbccddeeff" }, "MalformedNonce"],
      [{ nonce: "b1946ac9-2e1b-4f1a-9f3e-0c6d3b9f1a77" }, "MalformedNonce"],
      [{ signature: "abc" }, "MalformedSignature"],
      [{ signature: `${request.signature}00` }, "MalformedSignature"]
    ]
    for (const [change, reason] of cases) {
      assert.strictEqual(
        reasonOf(RequestSignature.verify({ ...request, ...change }, secret, now)),
        reason,
        JSON.stringify(change)
      )
    }
    const missing = RequestSignature.verify({ ...request, timestamp: undefined }, secret, now)
    if (Result.isFailure(missing)) assert.include(missing.failure.message, "X-TW-Timestamp")
  })

  it("never echoes the secret or the expected signature in a refusal", () => {
    const request = signed({ secret: Redacted.make("7".repeat(64)) })
    const result = RequestSignature.verify(request, secret, now)
    const expected = RequestSignature.sign(secret, {
      keyId,
      nonce: request.nonce!,
      timestamp: request.timestamp!,
      bodySha256: RequestSignature.bodyDigest(body)
    })
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) {
      const text = JSON.stringify(result.failure) + result.failure.message
      assert.notInclude(text, "9".repeat(64))
      assert.notInclude(text, expected)
    }
  })
})
