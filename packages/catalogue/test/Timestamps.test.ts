import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { IsoTimestamp, SqlTimestamp } from "../src/internal/timestamps.ts"

describe("internal/timestamps", () => {
  it.each([
    ["2026-11-21T23:30:00Z", "2026-11-22 00:30:00", "2026-11-22T00:30:00+01:00"],
    ["2026-06-30T11:59:59.999Z", "2026-06-30 12:59:59", "2026-06-30T12:59:59+01:00"],
    ["1970-01-01T00:00:00Z", "1970-01-01 00:00:00", "1970-01-01T00:00:00+00:00"]
  ])("%s prints as %j and %j", (instant, sql, iso) => {
    const utc = DateTime.makeUnsafe(instant)
    assert.strictEqual(Schema.encodeSync(SqlTimestamp)(utc), sql)
    assert.strictEqual(Schema.encodeSync(IsoTimestamp)(utc), iso)
  })

  it("reads its own text back to the same instant, to the second", () => {
    for (const instant of ["2026-11-21T23:30:00Z", "1975-05-01T12:00:00Z", "1970-01-01T00:00:00Z"]) {
      const utc = DateTime.makeUnsafe(instant)
      for (const schema of [SqlTimestamp, IsoTimestamp]) {
        const text = Schema.encodeSync(schema)(utc)
        assert.strictEqual(DateTime.toEpochMillis(Schema.decodeSync(schema)(text)), DateTime.toEpochMillis(utc), text)
      }
    }
  })

  it("refuses text that is not a time", () => {
    assert.throws(() => Schema.decodeUnknownSync(SqlTimestamp)("2026-11-21T00:30:00"))
    assert.throws(() => Schema.decodeUnknownSync(SqlTimestamp)("2026-13-45 99:00:00"))
    assert.throws(() => Schema.decodeUnknownSync(IsoTimestamp)("yesterday"))
  })
})
