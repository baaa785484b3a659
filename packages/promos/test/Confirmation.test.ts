import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Confirmation from "../src/Confirmation.ts"

const secret = Redacted.make("a".repeat(64))
const subject = { storeId: 4, action: Confirmation.CREATE_ACTION, code: "FREE100" }
const t0 = 1_790_000_000_000

describe("Confirmation", () => {
  it.effect("issues a token valid 600 seconds for what was approved, and nothing else", () =>
    Effect.gen(function* () {
      const issued = yield* Confirmation.issue(secret, subject, t0)
      assert.strictEqual(issued.expiresIn, 600)
      assert.match(issued.token, /^[0-9a-f]{32}\.[0-9]+\.[0-9a-f]{64}$/)
      const valid = Confirmation.verify(secret, issued.token, subject, t0 + 599_000)
      assert.isDefined(valid)
      assert.strictEqual(valid!.expiresAtSeconds, t0 / 1000 + 600)
      assert.isUndefined(Confirmation.verify(secret, issued.token, subject, t0 + 600_000), "expired")
      assert.isUndefined(Confirmation.verify(secret, issued.token, { ...subject, code: "FREE200" }, t0))
      assert.isUndefined(Confirmation.verify(secret, issued.token, { ...subject, storeId: 5 }, t0))
      assert.isUndefined(
        Confirmation.verify(secret, issued.token, { ...subject, action: Confirmation.updateAction(3) }, t0)
      )
      assert.isUndefined(Confirmation.verify(Redacted.make("b".repeat(64)), issued.token, subject, t0))
      const [nonce, expiry, mac] = issued.token.split(".")
      assert.isUndefined(Confirmation.verify(secret, `${nonce}.${Number(expiry) + 600}.${mac}`, subject, t0), "forged")
      assert.isUndefined(Confirmation.verify(secret, "garbage", subject, t0))
      const other = yield* Confirmation.issue(secret, subject, t0)
      assert.notStrictEqual(other.token, issued.token)
    })
  )
})
