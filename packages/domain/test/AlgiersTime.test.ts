import { assert, describe, it } from "@effect/vitest"
import { AlgiersTime } from "@tawsil/domain"
import { DateTime, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

const at = (iso: string) => DateTime.makeUnsafe(iso)

describe("AlgiersTime", () => {
  it("reads a courier's time: offsets and Z converted, a bare local time taken as Algiers, nonsense refused", () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ["2026-04-18T19:45:06+01:00", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T18:45:06Z", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T20:45:06+0200", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18 19:45:06", "2026-04-18T19:45:06+01:00"],
      [" 2026-04-18 19:45 ", "2026-04-18T19:45:00+01:00"],
      ["2026-02-29 10:00:00", undefined],
      ["2024-02-29 10:00:00", "2024-02-29T10:00:00+01:00"],
      ["18/04/2026 19:45", undefined]
    ]
    for (const [text, expected] of cases) assert.strictEqual(AlgiersTime.fromCourierText(text), expected, text)
  })

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

describe("AlgiersTime (cached offsets)", () => {
  const reference = (millis: number) =>
    DateTime.formatIsoOffset(DateTime.setZone(DateTime.makeUnsafe(millis), AlgiersTime.zone))

  it("prints what the time-zone database prints, across the zone's history and its changes of offset", () => {
    // 1890 to 2100: Paris mean time, the summer times of 1916-1981 (changes at odd hours), and today's UTC+01:00.
    const from = Date.UTC(1890, 0, 1)
    const to = Date.UTC(2100, 0, 1)
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), (millis) => {
        const expected = reference(millis)
        assert.strictEqual(
          AlgiersTime.formatSql(DateTime.makeUnsafe(millis)),
          `${expected.slice(0, 10)} ${expected.slice(11, 19)}`
        )
        assert.strictEqual(
          AlgiersTime.formatIso(DateTime.makeUnsafe(millis)),
          `${expected.slice(0, 19)}${expected.slice(23)}`
        )
      }),
      { numRuns: 20_000 }
    )
  })

  it("is exact on both sides of every change of offset (minute by minute around each)", () => {
    const offsetOf = (millis: number) => reference(millis).slice(23)
    let changes = 0
    // Day by day (no two changes of Algiers' offset fall on one day), then hour by hour within a day that changes.
    for (let day = Date.UTC(1890, 0, 1) / 86_400_000; day < Date.UTC(1990, 0, 1) / 86_400_000; day += 1) {
      if (offsetOf(day * 86_400_000) === offsetOf((day + 1) * 86_400_000)) continue
      for (let hour = day * 24; hour < day * 24 + 24; hour++) {
        if (offsetOf(hour * 3_600_000) === offsetOf((hour + 1) * 3_600_000)) continue
        changes++
        for (let minute = -30; minute <= 90; minute++) {
          const millis = hour * 3_600_000 + minute * 60_000 + 59_999
          assert.strictEqual(
            AlgiersTime.formatIso(DateTime.makeUnsafe(millis)),
            reference(millis).replace(/\.\d{3}/, "")
          )
        }
      }
    }
    assert.isAbove(changes, 10)
  })
})

describe("AlgiersTime timestamps", () => {
  it.each([
    ["2026-11-21T23:30:00Z", "2026-11-22 00:30:00", "2026-11-22T00:30:00+01:00"],
    ["2026-06-30T11:59:59.999Z", "2026-06-30 12:59:59", "2026-06-30T12:59:59+01:00"],
    ["1970-01-01T00:00:00Z", "1970-01-01 00:00:00", "1970-01-01T00:00:00+00:00"]
  ])("%s prints as %j and %j", (instant, sql, iso) => {
    const utc = DateTime.makeUnsafe(instant)
    assert.strictEqual(Schema.encodeSync(AlgiersTime.SqlTimestamp)(utc), sql)
    assert.strictEqual(Schema.encodeSync(AlgiersTime.IsoTimestamp)(utc), iso)
  })

  it("reads its own text back to the same instant, to the second", () => {
    for (const instant of ["2026-11-21T23:30:00Z", "1975-05-01T12:00:00Z", "1970-01-01T00:00:00Z"]) {
      const utc = DateTime.makeUnsafe(instant)
      for (const schema of [AlgiersTime.SqlTimestamp, AlgiersTime.IsoTimestamp]) {
        const text = Schema.encodeSync(schema)(utc)
        assert.strictEqual(DateTime.toEpochMillis(Schema.decodeSync(schema)(text)), DateTime.toEpochMillis(utc), text)
      }
    }
  })

  it("refuses text that is not a time", () => {
    assert.throws(() => Schema.decodeUnknownSync(AlgiersTime.SqlTimestamp)("2026-11-21T00:30:00"))
    assert.throws(() => Schema.decodeUnknownSync(AlgiersTime.SqlTimestamp)("2026-13-45 99:00:00"))
    assert.throws(() => Schema.decodeUnknownSync(AlgiersTime.IsoTimestamp)("yesterday"))
  })
})
