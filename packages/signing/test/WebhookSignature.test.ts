import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result } from "effect"
import { TestClock } from "effect/testing"
import * as WebhookSignature from "../src/WebhookSignature.ts"

const current = Redacted.make("whsec_current")
const previous = Redacted.make("whsec_previous")
const body = '{"id":"evt_1","event":"order.created","created_at":"2026-01-01T01:00:00+01:00","store_id":1,"data":{}}'
const t = 1_767_225_600

const reasonOf = (result: Result.Result<unknown, { readonly _tag: string }>) =>
  Result.isFailure(result) ? result.failure._tag : "accepted"

describe("WebhookSignature", () => {
  it("signs t.body with each live secret, the current one first", () => {
    const header = WebhookSignature.header([current, previous], t, body)
    const [stamp, first, second] = header.split(",")
    assert.strictEqual(stamp, `t=${t}`)
    assert.strictEqual(first, `v1=${WebhookSignature.signature(current, t, body)}`)
    assert.strictEqual(second, `v1=${WebhookSignature.signature(previous, t, body)}`)
    assert.strictEqual(WebhookSignature.signedPayload(t, body), `${t}.${body}`)
  })

  it("verifies with any one live secret during a rotation, and with bytes as well as text", () => {
    const header = WebhookSignature.header([current, previous], t, body)
    for (const secrets of [[current], [previous], [Redacted.make("whsec_other"), previous]]) {
      assert.strictEqual(
        reasonOf(WebhookSignature.verify({ header, body, secrets, nowSeconds: t })),
        "accepted",
        secrets.map(Redacted.value).join()
      )
    }
    const bytes = new TextEncoder().encode(body)
    assert.strictEqual(
      reasonOf(WebhookSignature.verify({ header, body: bytes, secrets: [current], nowSeconds: t })),
      "accepted"
    )
  })

  it("refuses a wrong secret, a changed body, a stale or future timestamp", () => {
    const header = WebhookSignature.header([current], t, body)
    const verify = (input: Partial<Parameters<typeof WebhookSignature.verify>[0]>) =>
      reasonOf(WebhookSignature.verify({ header, body, secrets: [current], nowSeconds: t, ...input }))
    assert.strictEqual(verify({ secrets: [previous] }), "SignatureMismatch")
    assert.strictEqual(verify({ body: body.replace("evt_1", "evt_2") }), "SignatureMismatch")
    assert.strictEqual(verify({ nowSeconds: t + 300 }), "accepted")
    assert.strictEqual(verify({ nowSeconds: t + 301 }), "TimestampOutOfWindow")
    assert.strictEqual(verify({ nowSeconds: t - 301 }), "TimestampOutOfWindow")
    assert.strictEqual(verify({ nowSeconds: t + 3600, toleranceSeconds: 3600 }), "accepted")
    const resigned = WebhookSignature.header([current], t + 10, body).replace(`t=${t + 10}`, `t=${t}`)
    assert.strictEqual(verify({ header: resigned }), "SignatureMismatch", "t is part of what is signed")
  })

  it("reads the header strictly: one t, at least one well-formed v1, unknown entries skipped", () => {
    const v1 = WebhookSignature.signature(current, t, body)
    const verify = (header: string | undefined) =>
      reasonOf(WebhookSignature.verify({ header, body, secrets: [current], nowSeconds: t }))
    assert.strictEqual(verify(`t=${t}, v0=abc, v1=${v1}, v2=zzz`), "accepted")
    assert.strictEqual(verify(`v1=${v1},t=${t}`), "accepted")
    assert.strictEqual(verify(undefined), "MissingHeader")
    assert.strictEqual(verify(""), "MissingHeader")
    assert.strictEqual(verify(`v1=${v1}`), "MalformedSignature")
    assert.strictEqual(verify(`t=${t}`), "MalformedSignature")
    assert.strictEqual(verify(`t=${t},t=${t},v1=${v1}`), "MalformedSignature")
    assert.strictEqual(verify(`t=${t},v1=${v1.slice(1)}`), "MalformedSignature")
    assert.strictEqual(verify(`t=1.5,v1=${v1}`), "MalformedSignature")
    assert.strictEqual(verify(v1), "MalformedSignature")
  })

  it.effect("verifyEffect reads the receiver's clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(t * 1000)
      const header = WebhookSignature.header([current], t, body)
      assert.strictEqual(yield* WebhookSignature.verifyEffect({ header, body, secrets: [current] }), t)
      yield* TestClock.adjust("301 seconds")
      const late = yield* Effect.flip(WebhookSignature.verifyEffect({ header, body, secrets: [current] }))
      assert.strictEqual(late.reason._tag, "TimestampOutOfWindow")
    })
  )
})
