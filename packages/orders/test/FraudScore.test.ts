import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as FraudScore from "../src/FraudScore.ts"

const counts = fc.integer({ min: 0, max: 60 })
const inputs = fc.record({
  delivered: counts,
  returned: counts,
  fakeConfirmations: counts,
  cancelledConfirmations: counts,
  otherPhonesAtAddress: counts,
  ordersLast24h: counts
})

type Input = keyof FraudScore.Inputs

/** The inputs that raise the score (and the factor each feeds), and the one that lowers it. */
const raising: ReadonlyArray<readonly [Input, FraudScore.FactorName]> = [
  ["returned", "returns"],
  ["fakeConfirmations", "fake_confirmations"],
  ["cancelledConfirmations", "cancelled_confirmations"],
  ["otherPhonesAtAddress", "shared_address"],
  ["ordersLast24h", "velocity"]
]

const factorOf = (score: FraudScore.Score, name: FraudScore.FactorName) =>
  score.factors.find((factor) => factor.factor === name)!

describe("FraudScore", () => {
  it("lists every factor, within its maximum, and sums them into a score from 0 to 100 with its level", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const result = FraudScore.score(input)
        expect(result.factors.map((f) => f.factor)).toEqual(FraudScore.FactorName.literals)
        for (const factor of result.factors) {
          expect(factor.points).toBeGreaterThanOrEqual(0)
          expect(factor.points).toBeLessThanOrEqual(factor.max_points)
        }
        const sum = result.factors.reduce((total, factor) => total + factor.points, 0)
        expect(Number.isInteger(result.score)).toBe(true)
        // Points are shown to 2 decimals; the score rounds their exact sum.
        expect(Math.abs(result.score - Math.min(100, sum))).toBeLessThanOrEqual(0.5 + 0.05)
        expect(result.level).toBe(FraudScore.levelOf(result.score))
      })
    )
  })

  for (const [input, name] of raising) {
    it(`${input} never lowers the score, and raises its factor until the factor's maximum`, () => {
      fc.assert(
        fc.property(inputs, fc.integer({ min: 1, max: 5 }), (base, more) => {
          const before = FraudScore.score(base)
          const after = FraudScore.score({ ...base, [input]: base[input] + more })
          expect(after.score).toBeGreaterThanOrEqual(before.score)
          const was = factorOf(before, name)
          const now = factorOf(after, name)
          expect(now.value).toBeGreaterThanOrEqual(was.value)
          if (was.points < was.max_points && (input !== "ordersLast24h" || base[input] + more > 1)) {
            expect(now.points).toBeGreaterThan(was.points)
          } else expect(now.points).toBe(was.points)
        })
      )
    })
  }

  it("delivered parcels never raise the score, and lower the returns factor when there are returns", () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 5 }), (base, more) => {
        const before = FraudScore.score(base)
        const after = FraudScore.score({ ...base, delivered: base.delivered + more })
        expect(after.score).toBeLessThanOrEqual(before.score)
        const was = factorOf(before, "returns").points
        const now = factorOf(after, "returns").points
        if (base.returned > 0) expect(now).toBeLessThan(was)
        else expect(now).toBe(0)
      })
    )
  })

  it("reads the documented weights", () => {
    const none = FraudScore.score({
      delivered: 0,
      returned: 0,
      fakeConfirmations: 0,
      cancelledConfirmations: 0,
      otherPhonesAtAddress: 0,
      ordersLast24h: 1
    })
    expect([none.score, none.level]).toEqual([0, "safe"])
    expect(FraudScore.none.score).toBe(0)
    // One return out of one parcel: 50 × 1 / 2 = 25; two fake confirmations: 30; one other phone: 10; three orders
    // in 24 h: 20. 85: critical.
    const risky = FraudScore.score({
      delivered: 0,
      returned: 1,
      fakeConfirmations: 2,
      cancelledConfirmations: 0,
      otherPhonesAtAddress: 1,
      ordersLast24h: 3
    })
    expect(risky.factors.map((f) => [f.factor, f.value, f.points])).toEqual([
      ["returns", 1, 25],
      ["fake_confirmations", 2, 30],
      ["cancelled_confirmations", 0, 0],
      ["shared_address", 1, 10],
      ["velocity", 3, 20]
    ])
    expect([risky.score, risky.level]).toEqual([85, "critical"])
    // Two delivered beside three returned: 50 × 3 / 6 = 25; four cancelled: 20 (the cap). 45: medium.
    const mixed = FraudScore.score({
      delivered: 2,
      returned: 3,
      fakeConfirmations: 0,
      cancelledConfirmations: 9,
      otherPhonesAtAddress: 0,
      ordersLast24h: 0
    })
    expect([mixed.score, mixed.level]).toEqual([45, "medium"])
  })

  it("reads garbage counts as none", () => {
    const odd = FraudScore.score({
      delivered: Number.NaN,
      returned: -3,
      fakeConfirmations: Number.POSITIVE_INFINITY,
      cancelledConfirmations: 0.5,
      otherPhonesAtAddress: -1,
      ordersLast24h: Number.NaN
    })
    expect(odd.score).toBe(0)
  })
})
