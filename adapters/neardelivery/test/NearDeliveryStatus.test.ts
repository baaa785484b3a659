import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Schema } from "effect"
import { adapter } from "../src/NearDelivery.ts"
import * as Status from "../src/NearDeliveryStatus.ts"

/** couriers.md §1.8: "Numeric status 0–16". */
const documented = Array.from({ length: 17 }, (_, status) => String(status))

/** couriers.md §3.3, the Near Delivery table, row by row. */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["pending_pickup", ["0", "1"]],
  ["picked_up", ["2", "16"]],
  ["in_transit", ["3", "5"]],
  ["at_stopdesk", ["6"]],
  ["delivered", ["7"]],
  ["returning", ["10", "11", "12", "13", "15"]],
  ["returned", ["14"]]
]

/** The statuses §3.3 leaves out, with the conservative mapping this adapter gives them (README "Unverified"). */
const unnamed: ReadonlyArray<readonly [string, CanonicalStatus.CanonicalStatus]> = [
  ["4", "in_transit"],
  ["8", "on_hold"],
  ["9", "on_hold"]
]

describe("NearDeliveryStatus", () => {
  it("maps every documented status, 0 to 16, and nothing else", () => {
    assert.sameMembers(Object.keys(Status.statuses), documented)
    assert.lengthOf(Object.keys(Status.statuses), 17)
  })

  it("maps §3.3's rows exactly as the research says", () => {
    for (const [canonical, raws] of researchTable) {
      for (const raw of raws) assert.strictEqual(Status.statuses[raw], canonical, raw)
    }
  })

  it("gives the statuses §3.3 leaves out a conservative mapping: never delivered, returned or cancelled", () => {
    const covered = researchTable.flatMap(([, raws]) => raws)
    assert.sameMembers(
      documented.filter((raw) => !covered.includes(raw)),
      [...Status.unnamed]
    )
    for (const [raw, canonical] of unnamed) {
      assert.strictEqual(Status.statuses[raw], canonical, raw)
      assert.notInclude(["delivered", "returned", "cancelled", "exception"], canonical, raw)
    }
  })

  it("maps only to canonical statuses, never to unknown; no cash status is documented", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
    assert.isUndefined(adapter.codStatuses)
  })

  it("maps the status a new parcel is given", () => {
    assert.strictEqual(Status.statuses[Status.created], "pending_pickup")
  })

  it("through the core: a name Near Delivery may send instead is unknown and keeps its raw status", () => {
    const { result } = Tracking.timeline("NRD1", Status.statuses, [
      { rawStatus: "6", timestamp: "2026-04-20T10:00:00+01:00" },
      { rawStatus: "DELIVERED", timestamp: "2026-04-21T10:00:00+01:00" }
    ])
    assert.strictEqual(result.status, "unknown")
    assert.deepStrictEqual(
      result.events.map(({ rawStatus, status }) => [rawStatus, status]),
      [
        ["6", "at_stopdesk"],
        ["DELIVERED", "unknown"]
      ]
    )
  })
})
