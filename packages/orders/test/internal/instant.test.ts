import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { parseInstant } from "../../src/internal/instant.ts"

const iso = (text: string) => {
  const instant = parseInstant(text)
  return instant === undefined ? undefined : DateTime.formatIso(instant)
}

describe("parseInstant", () => {
  it("reads ISO 8601 instants with an offset", () => {
    assert.strictEqual(iso("2026-06-01T10:00:00Z"), "2026-06-01T10:00:00.000Z")
    assert.strictEqual(iso("2026-06-01T10:00:00+01:00"), "2026-06-01T09:00:00.000Z")
    assert.strictEqual(iso("2026-06-01T10:00:00-0230"), "2026-06-01T12:30:00.000Z")
    assert.strictEqual(iso("2026-06-01T10:00:00.250+01"), "2026-06-01T09:00:00.250Z")
    assert.strictEqual(iso("2026-06-01t10:00z"), "2026-06-01T10:00:00.000Z")
  })

  it("reads a + that form decoding turned into a space", () => {
    assert.strictEqual(iso("2026-06-01T10:00:00 01:00"), "2026-06-01T09:00:00.000Z")
  })

  it("reads a value without an offset as Algiers wall time, a date as its midnight", () => {
    assert.strictEqual(iso("2026-06-01T10:00:00"), "2026-06-01T09:00:00.000Z")
    assert.strictEqual(iso("2026-06-01 10:00"), "2026-06-01T09:00:00.000Z")
    assert.strictEqual(iso("2026-06-01"), "2026-05-31T23:00:00.000Z")
  })

  it("refuses what is not an instant", () => {
    for (const text of [
      "",
      "yesterday",
      "2026-02-30",
      "2026-13-01",
      "2026-06-01T24:00:00Z",
      "2026-06-01T10:60:00Z",
      "2026-06-01T10:00:00+19:00",
      "1717236000",
      "2026/06/01",
      "2026-6-1"
    ]) {
      assert.isUndefined(parseInstant(text), text)
    }
  })
})
