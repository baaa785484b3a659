import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { adapter } from "../src/Zimou.ts"
import * as Status from "../src/ZimouStatus.ts"
import { names, researchTable } from "./fake/statuses.ts"

/** §3.3's one open row ("created / pending_pickup"), as the adapter reads it: preparing is created, ready is not. */
const preparing = [1, 26, 34, 43]

describe("ZimouStatus", () => {
  it("maps exactly the ids the sources list: 1–46, 83, 112–116 and 118 (53), and nothing else", () => {
    const listed = Object.keys(names).map(Number)
    assert.deepStrictEqual(
      listed,
      [...Array.from({ length: 46 }, (_, i) => i + 1), 83, 112, 113, 114, 115, 116, 118],
      "the fixture is courier-dz's list"
    )
    assert.deepStrictEqual(
      Object.keys(Status.statuses)
        .map(Number)
        .sort((a, b) => a - b),
      listed
    )
    assert.lengthOf(Object.keys(Status.statuses), 53)
    assert.deepStrictEqual(
      researchTable.flatMap(([, ids]) => ids).sort((a, b) => a - b),
      listed,
      "§3.3 lists every id exactly once"
    )
  })

  it.each(researchTable)("§3.3: %s ← %s", (canonical, ids) => {
    for (const id of ids) {
      const expected = canonical.length === 1 ? canonical[0] : preparing.includes(id) ? "created" : "pending_pickup"
      assert.include(canonical, Status.statuses[String(id)], `id ${id}`)
      assert.strictEqual(Status.statuses[String(id)], expected, `id ${id} (${names[id]})`)
    }
  })

  it("keys are decimal ids as Zimou's status_id is printed, and every value is canonical", () => {
    for (const [raw, canonical] of Object.entries(Status.statuses)) {
      assert.match(raw, /^[1-9]\d*$/)
      assert.include(CanonicalStatus.CanonicalStatus.literals, canonical)
    }
  })

  it("declares no cash statuses: Zimou documents none", () => {
    assert.isUndefined(adapter.codStatuses)
  })

  it("leaves 117 (named by no source) and any other id to the core's unknown, keeping the raw id", () => {
    const { result, unmapped } = Tracking.timeline("ZM-000001", Status.statuses, [
      { rawStatus: "1", timestamp: "2026-04-18T19:45:06+01:00" },
      { rawStatus: "117", timestamp: "2026-04-19T10:00:00+01:00" }
    ])
    assert.deepStrictEqual(unmapped, ["117"])
    assert.strictEqual(result.status, "unknown")
    assert.deepStrictEqual(
      result.events.map(({ rawStatus, status }) => [rawStatus, status]),
      [
        ["1", "created"],
        ["117", "unknown"]
      ]
    )
  })
})
