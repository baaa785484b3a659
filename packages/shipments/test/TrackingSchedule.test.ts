import { assert, describe, it } from "@effect/vitest"
import { adapter as yalidine } from "@tawsil/adapter-yalidine"
import { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { Duration } from "effect"
import * as fc from "fast-check"
import * as TrackingSchedule from "../src/TrackingSchedule.ts"

/** docs/cod-loop.md's table, in minutes; undefined: never checked again. */
const table: Readonly<Record<CanonicalStatus, number | undefined>> = {
  out_for_delivery: 30,
  failed_attempt: 30,
  in_transit: 120,
  at_stopdesk: 120,
  picked_up: 120,
  on_hold: 120,
  returning: 120,
  exception: 120,
  unknown: 120,
  created: 240,
  pending_pickup: 240,
  delivered: undefined,
  returned: undefined,
  cancelled: undefined
}

const minutes = (duration: Duration.Duration | undefined) =>
  duration === undefined ? undefined : Duration.toMinutes(duration)

describe("TrackingSchedule", () => {
  describe("nextCheck", () => {
    it("checks parcels out for delivery most often, waiting ones least, terminal ones never", () => {
      for (const status of CanonicalStatus.literals) {
        assert.strictEqual(minutes(TrackingSchedule.nextCheck(status, false)), table[status], status)
      }
    })

    it("polls a courier that pushes as a safety net only: every 12 hours, never at terminal statuses", () => {
      for (const status of CanonicalStatus.literals) {
        assert.strictEqual(
          minutes(TrackingSchedule.nextCheck(status, true)),
          table[status] === undefined ? undefined : 12 * 60,
          status
        )
      }
    })
  })

  describe("callsPerCycle", () => {
    it("plans at most 80 % of Yalidine's declared limits: the daily one binds a 30-second cycle", () => {
      assert.deepStrictEqual(
        yalidine.rateLimits.map((limit) => [limit.limit, Duration.toMillis(limit.window)]),
        [
          [5, 1000],
          [50, 60_000],
          [1000, 3_600_000],
          [10_000, 86_400_000]
        ]
      )
      // 10 000 a day × 0.8 × 30 s / 24 h
      assert.closeTo(TrackingSchedule.callsPerCycle(yalidine.rateLimits, Duration.seconds(30)), 2.7778, 1e-4)
      // An hour's cycle: the daily limit still binds (8 000 a day is 333.3 an hour; the hourly one allows 800).
      assert.closeTo(TrackingSchedule.callsPerCycle(yalidine.rateLimits, Duration.hours(1)), 333.33, 1e-2)
      // A day at 100 parcels a batch read is 800 000 parcel checks: the safety net of a pushing courier fits.
      assert.strictEqual(TrackingSchedule.callsPerCycle(yalidine.rateLimits, Duration.days(1)), 8000)
    })

    it("never plans more than 80 % of any limit, whatever the cycle and the limits", () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({ limit: fc.integer({ min: 1, max: 100_000 }), window: fc.integer({ min: 1, max: 86_400_000 }) }),
            { minLength: 1, maxLength: 5 }
          ),
          fc.integer({ min: 1, max: 86_400_000 }),
          (drawn, every) => {
            const limits = drawn.map(({ limit, window }) => ({ limit, window: Duration.millis(window) }))
            const calls = TrackingSchedule.callsPerCycle(limits, Duration.millis(every))
            for (const { limit, window } of drawn) {
              // Cycles back to back over one window make at most 80 % of its limit.
              assert.isAtMost((calls * window) / every, limit * TrackingSchedule.HEADROOM * (1 + 1e-9))
            }
            assert.isAbove(calls, 0)
          }
        )
      )
    })

    it("is unbounded for a courier that declares no limit", () => {
      assert.strictEqual(TrackingSchedule.callsPerCycle([], Duration.seconds(30)), Number.POSITIVE_INFINITY)
    })
  })
})
