import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/MaystroMapping.ts"
import * as Status from "../src/MaystroStatus.ts"
import { historyPairs } from "./fixtures/responses.ts"

/** couriers.md §1.5, the status vocabulary, copied as written. */
const documentedCodes = [4, 5, 6, 8, 9, 10, 11, 12, 15, 22, 31, 32, 41, 42, 50, 51, 52, 53]

/** couriers.md §3.3, the Maystro table, row by row. */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<number>]> = [
  ["created", [4]],
  ["pending_pickup", [5, 6]],
  ["picked_up", [8, 15]],
  ["in_transit", [9]],
  ["out_for_delivery", [22, 31]],
  ["failed_attempt", [32]],
  ["on_hold", [11, 42]],
  ["exception", [12, 53]],
  ["delivered", [41]],
  ["returning", [10, 51]],
  ["returned", [52]],
  ["cancelled", [50]]
]

describe("MaystroStatus", () => {
  it("maps every documented code", () => {
    for (const code of documentedCodes) assert.isTrue(Object.hasOwn(Status.statuses, String(code)), String(code))
    assert.strictEqual(Object.keys(Status.statuses).length, documentedCodes.length)
  })

  it("maps exactly as the research table says, and nothing else", () => {
    const expected = Object.fromEntries(
      researchTable.flatMap(([status, codes]) => codes.map((code) => [String(code), status]))
    )
    assert.deepStrictEqual(Status.statuses, expected)
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [code, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), code)
      assert.notStrictEqual(status, "unknown", code)
    }
  })

  it("maps the status create answers", () => {
    assert.strictEqual(Status.statuses[Status.created], "created")
  })

  it("covers every raw status in the fixtures but the undocumented one they keep", () => {
    const raw = historyPairs.flatMap(([, response]) =>
      Result.getOrThrow(Mapping.fromHistory(response)).map((event) => event.rawStatus)
    )
    assert.isAbove(raw.length, 15)
    assert.deepStrictEqual(
      raw.filter((status) => !Object.hasOwn(Status.statuses, status)),
      ["77"]
    )
  })
})
