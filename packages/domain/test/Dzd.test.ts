import { assert, describe, it } from "@effect/vitest"
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

const isDzd = Schema.is(Dzd.Dzd)

describe("Dzd", () => {
  it("accepts whole non-negative amounts", () => {
    for (const amount of [0, 1, 1500, 250_000, Number.MAX_SAFE_INTEGER]) {
      assert.isTrue(isDzd(amount), String(amount))
    }
  })

  it("refuses negative, fractional, unsafe and non-number amounts", () => {
    for (const amount of [-1, 0.5, 1500.25, 2 ** 53, Number.NaN, "1500", null]) {
      assert.isFalse(isDzd(amount), String(amount))
    }
  })

  it("says what it expected", () => {
    assert.throws(() => Schema.decodeUnknownSync(Dzd.Dzd)(-5), "Expected an amount in DZD, a non-negative integer")
  })
})
