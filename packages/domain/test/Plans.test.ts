import { assert, describe, it } from "@effect/vitest"
import { Plans } from "@tawsil/domain"
import { DateTime, Schema } from "effect"

describe("Plans", () => {
  const now = DateTime.makeUnsafe("2026-11-21T10:00:00Z")

  it("names the four plans, exactly as written", () => {
    assert.deepStrictEqual(Plans.PLANS, ["free", "pro", "unlimited", "enterprise"])
    assert.isTrue(Plans.isPlan("unlimited"))
    assert.isFalse(Plans.isPlan("Pro"))
    assert.isFalse(Plans.isPlan("gold"))
    assert.isTrue(Schema.is(Plans.Plan)("enterprise"))
    assert.isFalse(Schema.is(Plans.Plan)("ENTERPRISE"))
  })

  it("ranks free < pro < unlimited < enterprise, a plan opening everything below it", () => {
    assert.deepStrictEqual(Plans.PLANS.map(Plans.rank), [0, 1, 2, 3])
    assert.isTrue(Plans.reaches("unlimited", "pro"))
    assert.isTrue(Plans.reaches("pro", "pro"))
    assert.isFalse(Plans.reaches("pro", "unlimited"))
    assert.isTrue(Plans.reaches("enterprise", "enterprise"))
    assert.isTrue(Plans.reaches("free", "free"))
    assert.isFalse(Plans.reaches("free", "pro"))
  })

  it("calls every plan but free paid", () => {
    assert.deepStrictEqual(Plans.PLANS.filter(Plans.isPaid), ["pro", "unlimited", "enterprise"])
  })

  it("counts an expired paid plan or an unknown name as free", () => {
    assert.strictEqual(Plans.effective("pro", null, now), "pro")
    assert.strictEqual(Plans.effective("pro", DateTime.makeUnsafe("2026-11-21T10:00:01Z"), now), "pro")
    assert.strictEqual(Plans.effective("pro", DateTime.makeUnsafe("2026-11-21T10:00:00Z"), now), "free")
    assert.strictEqual(Plans.effective("enterprise", DateTime.makeUnsafe("2025-01-01T00:00:00Z"), now), "free")
    assert.strictEqual(Plans.effective("free", DateTime.makeUnsafe("2025-01-01T00:00:00Z"), now), "free")
    assert.strictEqual(Plans.effective("gold", null, now), "free")
  })
})
