import { assert, describe, it } from "@effect/vitest"
import { Plans } from "@tawsil/domain"
import * as MonthlyOrderCap from "../src/MonthlyOrderCap.ts"

describe("MonthlyOrderCap", () => {
  it("caps free at 30 orders a month and leaves every paid plan uncapped", () => {
    assert.deepStrictEqual(
      Plans.PLANS.map((plan) => [plan, MonthlyOrderCap.of(plan)]),
      [
        ["free", 30],
        ["pro", undefined],
        ["unlimited", undefined],
        ["enterprise", undefined]
      ]
    )
  })

  it("reads the plan name in any letter case, and caps a name it does not know", () => {
    assert.strictEqual(MonthlyOrderCap.of("PRO"), undefined)
    assert.strictEqual(MonthlyOrderCap.of("Enterprise"), undefined)
    assert.strictEqual(MonthlyOrderCap.of("FREE"), MonthlyOrderCap.FREE_ORDERS_PER_MONTH)
    assert.strictEqual(MonthlyOrderCap.of("gold"), 30)
    assert.strictEqual(MonthlyOrderCap.of(""), 30)
  })
})
