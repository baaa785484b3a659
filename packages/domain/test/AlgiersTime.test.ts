import { assert, describe, it } from "@effect/vitest"
import { AlgiersTime } from "@tawsil/domain"
import { DateTime, Effect } from "effect"
import { TestClock } from "effect/testing"

const at = (iso: string) => DateTime.makeUnsafe(iso)

describe("AlgiersTime", () => {
  it("prints the ISO form with the +01:00 offset, to the second", () => {
    assert.strictEqual(AlgiersTime.formatIso(at("2026-11-21T11:30:00Z")), "2026-11-21T12:30:00+01:00")
    assert.strictEqual(AlgiersTime.formatIso(at("2026-11-21T11:30:00.999Z")), "2026-11-21T12:30:00+01:00")
  })

  it("is already the next day in Algiers at 23:30 UTC", () => {
    const instant = at("2026-12-31T23:30:00Z")
    assert.strictEqual(AlgiersTime.formatIso(instant), "2027-01-01T00:30:00+01:00")
    assert.strictEqual(AlgiersTime.formatSql(instant), "2027-01-01 00:30:00")
    assert.strictEqual(AlgiersTime.month(instant), "2027-01")
    assert.strictEqual(AlgiersTime.day(instant), "20270101")
  })

  it("turns the day at 23:00 UTC exactly, and drops milliseconds without rounding up", () => {
    const before = at("2026-11-21T22:59:59.999Z")
    assert.strictEqual(AlgiersTime.formatSql(before), "2026-11-21 23:59:59")
    assert.strictEqual(AlgiersTime.day(before), "20261121")
    assert.strictEqual(AlgiersTime.day(at("2026-11-21T23:00:00Z")), "20261122")
  })

  it("keeps +01:00 in summer too (no daylight saving time)", () => {
    assert.strictEqual(AlgiersTime.formatIso(at("2026-07-01T12:00:00Z")), "2026-07-01T13:00:00+01:00")
  })

  it("renders a time from another zone in Algiers", () => {
    const paris = DateTime.makeZonedUnsafe("2026-07-01T12:00:00Z", { timeZone: "Europe/Paris" })
    assert.strictEqual(AlgiersTime.formatSql(paris), "2026-07-01 13:00:00")
  })

  it.effect("reads now from the Clock, zoned in Algiers", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(at("2026-02-28T23:15:42.500Z").epochMilliseconds)
      const now = yield* AlgiersTime.now
      assert.strictEqual(DateTime.zoneToString(now.zone), "Africa/Algiers")
      assert.strictEqual(AlgiersTime.formatIso(now), "2026-03-01T00:15:42+01:00")
      assert.strictEqual(AlgiersTime.month(now), "2026-03")
    })
  )
})
