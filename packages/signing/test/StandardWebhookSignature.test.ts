import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import { Webhook } from "standardwebhooks"
import * as StandardWebhookSignature from "../src/StandardWebhookSignature.ts"
import * as WebhookSignature from "../src/WebhookSignature.ts"

// Secrets as Tawsil makes them: `whsec_` and 64 hex characters.
const current = Redacted.make("whsec_8d1f0c3b5a7e9d2c4b6a8f0e1d3c5b7a9f2e4d6c8b0a1f3e5d7c9b2a4f6e8d0c")
const previous = Redacted.make("whsec_0a2c4e6f8b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a")
const id = "evt_3f9a1c7e5b2d8f4a6c0e9b1d"
const body = `{"id":"${id}","event":"order.created","created_at":"2026-01-01T01:00:00+01:00","store_id":1,"data":{}}`
const t = 1_767_225_600

const reasonOf = (result: Result.Result<unknown, { readonly _tag: string }>) =>
  Result.isFailure(result) ? result.failure._tag : "accepted"

const signed = (secrets: ReadonlyArray<Redacted.Redacted<string>>, at = t) =>
  StandardWebhookSignature.headers({ id, timestamp: at, body, secrets })

describe("StandardWebhookSignature", () => {
  it("reads a secret as the scheme does: what follows whsec_, as base64 (our 64 hex characters: 48 bytes)", () => {
    const hex = Redacted.value(current).slice("whsec_".length)
    const key = StandardWebhookSignature.key(current)
    assert.strictEqual(key?.length, 48)
    assert.deepStrictEqual(key, Buffer.from(hex, "base64"))
    assert.deepStrictEqual(StandardWebhookSignature.key(Redacted.make(hex)), key, "the prefix is optional")
    for (const text of ["whsec_", "whsec_test_secret", "whsec_abc", "whsec_YQ=", "whsec_YR==", "whsec_a b=", "x"]) {
      assert.isUndefined(StandardWebhookSignature.key(Redacted.make(text)), text)
    }
    assert.deepStrictEqual(
      StandardWebhookSignature.headers({ id, timestamp: t, body, secrets: [Redacted.make("whsec_test_secret")] }),
      {},
      "a secret not in the scheme's form signs nothing"
    )
  })

  it("matches the scheme's reference vector (the Standard Webhooks libraries' own test)", () => {
    const secret = Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    const [vectorId, vectorT, vectorBody] = ["msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, '{"test": 2432232314}']
    assert.strictEqual(
      StandardWebhookSignature.signatureHeader([secret], vectorId, vectorT, vectorBody),
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
  })

  it("signs id.timestamp.body as the standardwebhooks library does, for our secrets", () => {
    for (const secret of [current, previous]) {
      const library = new Webhook(Redacted.value(secret)).sign(id, new Date(t * 1000), body)
      assert.strictEqual(StandardWebhookSignature.signatureHeader([secret], id, t, body), library)
    }
    assert.strictEqual(StandardWebhookSignature.signedContent(id, t, body), `${id}.${t}.${body}`)
  })

  it("puts one v1 per live secret in the header, the current one first, separated by a space", () => {
    const headers = signed([current, previous])
    assert.deepStrictEqual(Object.keys(headers), ["webhook-id", "webhook-timestamp", "webhook-signature"])
    assert.strictEqual(headers["webhook-id"], id)
    assert.strictEqual(headers["webhook-timestamp"], String(t))
    assert.deepStrictEqual(headers["webhook-signature"]!.split(" "), [
      `v1,${StandardWebhookSignature.signature(current, id, t, body)}`,
      `v1,${StandardWebhookSignature.signature(previous, id, t, body)}`
    ])
  })

  it("is checked by the standardwebhooks library with either secret during a rotation", () => {
    const now = Math.floor(Date.now() / 1000)
    const headers = signed([current, previous], now)
    for (const secret of [current, previous]) {
      assert.deepStrictEqual(new Webhook(Redacted.value(secret)).verify(body, headers), JSON.parse(body))
    }
    const other = Redacted.make(`whsec_${"ab".repeat(32)}`)
    assert.throws(() => new Webhook(Redacted.value(other)).verify(body, headers), /No matching signature/)
  })

  it("verifies what the library signs, and with any one live secret", () => {
    const now = Math.floor(Date.now() / 1000)
    const library = new Webhook(Redacted.value(previous))
    const headers = { "webhook-id": id, "webhook-timestamp": String(now), "webhook-signature": "" }
    headers["webhook-signature"] = library.sign(id, new Date(now * 1000), body)
    const verified = StandardWebhookSignature.verify({ headers, body, secrets: [current, previous], nowSeconds: now })
    assert.deepStrictEqual(Result.getOrThrow(verified), { id, timestamp: now })
    const bytes = new TextEncoder().encode(body)
    assert.strictEqual(
      reasonOf(StandardWebhookSignature.verify({ headers, body: bytes, secrets: [previous], nowSeconds: now })),
      "accepted",
      "bytes as well as text"
    )
  })

  it("refuses a wrong secret, a changed body, id or timestamp, a stale or future timestamp", () => {
    const headers = signed([current])
    const verify = (input: Partial<Parameters<typeof StandardWebhookSignature.verify>[0]>) =>
      reasonOf(StandardWebhookSignature.verify({ headers, body, secrets: [current], nowSeconds: t, ...input }))
    assert.strictEqual(verify({}), "accepted")
    assert.strictEqual(verify({ secrets: [previous] }), "SignatureMismatch")
    assert.strictEqual(verify({ secrets: [Redacted.make("whsec_not base64")] }), "SignatureMismatch")
    assert.strictEqual(verify({ body: body.replace('"store_id":1', '"store_id":2') }), "SignatureMismatch")
    assert.strictEqual(verify({ headers: { ...headers, "webhook-id": "evt_other" } }), "SignatureMismatch")
    assert.strictEqual(verify({ headers: { ...headers, "webhook-timestamp": String(t + 1) } }), "SignatureMismatch")
    assert.strictEqual(verify({ nowSeconds: t + 300 }), "accepted")
    assert.strictEqual(verify({ nowSeconds: t + 301 }), "TimestampOutOfWindow")
    assert.strictEqual(verify({ nowSeconds: t - 301 }), "TimestampOutOfWindow")
    assert.strictEqual(verify({ nowSeconds: t + 3600, toleranceSeconds: 3600 }), "accepted")
  })

  it("is a different signature from X-TW-Signature's, made from the same secret", () => {
    const tw = WebhookSignature.signature(current, t, body)
    const standard = StandardWebhookSignature.signature(current, id, t, body)!
    assert.notStrictEqual(Buffer.from(standard, "base64").toString("hex"), tw)
  })

  it("reads the headers strictly: each present, whole seconds, v1 entries of 32 bytes, other versions skipped", () => {
    const headers = signed([current])
    const v1 = headers["webhook-signature"]!
    const verify = (changes: Record<string, string | undefined>) =>
      reasonOf(
        StandardWebhookSignature.verify({
          headers: { ...headers, ...changes },
          body,
          secrets: [current],
          nowSeconds: t
        })
      )
    assert.strictEqual(verify({ "webhook-signature": `v1a,${"A".repeat(86)}== ${v1}  v2,zzz` }), "accepted")
    assert.strictEqual(
      reasonOf(
        StandardWebhookSignature.verify({
          headers: { "Webhook-Id": id, "WEBHOOK-TIMESTAMP": String(t), "webhook-signature": [v1] },
          body,
          secrets: [current],
          nowSeconds: t
        })
      ),
      "accepted",
      "header names in any case, a value given as a list"
    )
    assert.strictEqual(verify({ "webhook-id": undefined }), "MissingHeader")
    assert.strictEqual(verify({ "webhook-timestamp": "" }), "MissingHeader")
    assert.strictEqual(verify({ "webhook-signature": undefined }), "MissingHeader")
    assert.strictEqual(verify({ "webhook-id": "evt.1" }), "MalformedSignature")
    assert.strictEqual(verify({ "webhook-timestamp": "1.5" }), "MalformedTimestamp")
    assert.strictEqual(verify({ "webhook-timestamp": "-1" }), "MalformedTimestamp")
    assert.strictEqual(verify({ "webhook-signature": "v1a,abc" }), "MalformedSignature")
    assert.strictEqual(verify({ "webhook-signature": v1.slice(0, -4) }), "MalformedSignature")
    assert.strictEqual(verify({ "webhook-signature": v1.slice(3) }), "MalformedSignature")
  })

  it.effect("verifyEffect reads the receiver's clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t * 1000)
      const headers = signed([current])
      const verified = yield* StandardWebhookSignature.verifyEffect({ headers, body, secrets: [current] })
      assert.deepStrictEqual(verified, { id, timestamp: t })
      yield* TestClock.adjust("301 seconds")
      const late = yield* Effect.flip(StandardWebhookSignature.verifyEffect({ headers, body, secrets: [current] }))
      assert.strictEqual(late.reason._tag, "TimestampOutOfWindow")
    })
  )
})
