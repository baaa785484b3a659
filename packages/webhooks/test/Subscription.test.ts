import { assert, describe, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import * as Subscription from "../src/Subscription.ts"

const secret = Subscription.newSecret()

const created: Subscription.WebhookWithSecret = {
  id: 7,
  url: "https://hooks.example.com/tawsil",
  events: ["order.created"],
  active: true,
  description: null,
  previous_secret_expires_at: null,
  created_at: "2026-11-21 10:30:00",
  updated_at: "2026-11-21 10:30:00",
  secret
}

describe("Subscription", () => {
  it("keeps no secret of a created or rotated subscription for its replay", () => {
    const safe = Subscription.replaySafe(created)
    assert.deepStrictEqual(safe, { ...created, secret: null })
    assert.notInclude(JSON.stringify(Schema.encodeSync(Subscription.WebhookWithSecret)(safe)), Redacted.value(secret))
    assert.strictEqual(created.secret, secret, "the first answer is untouched")
  })

  it("does the same on the answer as encoded for the wire", () => {
    const encoded = Schema.encodeSync(Subscription.WebhookWithSecret)(created)
    assert.strictEqual(encoded.secret, Redacted.value(secret))
    const safe = Subscription.replaySafe(encoded)
    assert.strictEqual(safe.secret, null)
    assert.deepStrictEqual(safe, { ...encoded, secret: null })
    assert.notInclude(JSON.stringify(safe), Redacted.value(secret))
  })
})
