import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import * as fc from "fast-check"
import type { RateLimit } from "../src/CourierAdapter.ts"
import * as Pace from "../src/Pace.ts"

const limit = (count: number, window: Duration.Input): RateLimit => ({
  limit: count,
  window: Duration.fromInputUnsafe(window)
})

/** Schedules calls arriving at `arrivals` (milliseconds, in order) the way a host does: each at its slot. */
const schedule = (limits: ReadonlyArray<RateLimit>, arrivals: ReadonlyArray<number>) => {
  const paces = limits.map(Pace.paceOf)
  const due = new Map<string, number>()
  return arrivals.map((now) => {
    const at = Pace.slotOf(paces, (id) => due.get(id), now)
    for (const [id, next] of Pace.taken(paces, (id) => due.get(id), at)) due.set(id, next)
    return at
  })
}

/** The most calls in any span of `windowMillis` (half-open, starting anywhere: at a call is the worst). */
const busiest = (slots: ReadonlyArray<number>, windowMillis: number) =>
  Math.max(0, ...slots.map((start) => slots.filter((at) => at >= start && at < start + windowMillis).length))

describe("Pace", () => {
  it("paces the couriers' documented ceilings at 80 %, with a burst of half the rest", () => {
    const rows = [
      ["Yalidine, 5 a second", limit(5, "1 second"), { budget: 4, burst: 1, intervalMillis: 250 }],
      ["Yalidine, 50 a minute", limit(50, "1 minute"), { budget: 40, burst: 5, intervalMillis: 1500 }],
      ["Yalidine, 10 000 a day", limit(10_000, "1 day"), { budget: 8000, burst: 1000, intervalMillis: 10_800 }],
      ["Ecotrack, 50 a minute", limit(50, "1 minute"), { budget: 40, burst: 5, intervalMillis: 1500 }],
      ["NOEST, 60 a minute", limit(60, "1 minute"), { budget: 48, burst: 6, intervalMillis: 1250 }],
      ["one a minute", limit(1, "1 minute"), { budget: 1, burst: 1, intervalMillis: 60_000 }]
    ] as const
    for (const [name, declared, expected] of rows) {
      const { budget, burst, intervalMillis } = Pace.paceOf(declared)
      assert.deepStrictEqual({ budget, burst, intervalMillis }, expected, name)
    }
    assert.strictEqual(Pace.HEADROOM, 0.8)
  })

  it("lets a burst go at once, then one call every interval, in the order they came", () => {
    assert.deepStrictEqual(schedule([limit(50, "1 minute")], Array(8).fill(0)), [0, 0, 0, 0, 0, 1500, 3000, 4500])
    assert.deepStrictEqual(schedule([limit(5, "1 second")], [0, 0, 0, 600]), [0, 250, 500, 750])
  })

  it("takes every limit of the account in one step: a call held back by one is counted by all when it goes", () => {
    const yalidine = [limit(5, "1 second"), limit(50, "1 minute"), limit(1000, "1 hour"), limit(10_000, "1 day")]
    const slots = schedule(yalidine, Array(12).fill(0))
    assert.deepStrictEqual(slots, [0, 250, 500, 750, 1000, 1500, 3000, 4500, 6000, 7500, 9000, 10_500])
    assert.isAtMost(busiest(slots, 1000), 4)
    assert.isAtMost(busiest(slots, 60_000), 44)
  })

  it("never puts more than 90 % of a ceiling in any span of its window, wherever it starts, and never runs a call early", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            limit: fc.integer({ min: 1, max: 200 }),
            windowMillis: fc.constantFrom(1000, 60_000, 3_600_000)
          }),
          { minLength: 1, maxLength: 3 }
        ),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 150 }),
        (declared, gaps) => {
          const limits = declared.map((one) => limit(one.limit, one.windowMillis))
          let clock = 0
          const arrivals = gaps.map((gap) => (clock += gap))
          const slots = schedule(limits, arrivals)
          slots.forEach((at, index) => {
            assert.isAtLeast(at, arrivals[index]!)
            if (index > 0) assert.isAtLeast(at, slots[index - 1]!)
          })
          for (const one of declared) {
            assert.isAtMost(busiest(slots, one.windowMillis), Math.max(1, Math.floor(one.limit * 0.9)))
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("tells a scheduler the pace it can keep indefinitely: the longest interval of the account's limits", () => {
    const yalidine = [limit(5, "1 second"), limit(50, "1 minute"), limit(1000, "1 hour"), limit(10_000, "1 day")]
    assert.strictEqual(Duration.toMillis(Pace.sustainedInterval(yalidine)!), 10_800)
    assert.strictEqual(Duration.toMillis(Pace.sustainedInterval([limit(50, "1 minute")])!), 1500)
    assert.isUndefined(Pace.sustainedInterval([]))
  })
})
