import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Schema } from "effect"
import { adapter } from "../src/Mdm.ts"
import * as Status from "../src/MdmStatus.ts"

/** couriers.md §1.8, the MDM row's status vocabulary, copied as written. */
const documented = ["pending", "confirmed", "shipped", "delivered", "cancelled", "returned", "expired", "archived"]

/** couriers.md §3.3, the MDM table, row by row. */
const researchTable: ReadonlyArray<readonly [string, CanonicalStatus.CanonicalStatus]> = [
  ["pending", "created"],
  ["confirmed", "pending_pickup"],
  ["shipped", "in_transit"],
  ["delivered", "delivered"],
  ["returned", "returned"],
  ["cancelled", "cancelled"],
  ["expired", "exception"],
  ["archived", "exception"]
]

describe("MdmStatus", () => {
  it("maps every documented status, and only those", () => {
    assert.sameMembers(Object.keys(Status.statuses), documented)
  })

  it("maps exactly as the research table says", () => {
    assert.deepStrictEqual(Status.statuses, Object.fromEntries(researchTable))
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
  })

  it("maps the status create answers when MDM says none, and has no cash table", () => {
    assert.strictEqual(Status.statuses[Status.created], "created")
    assert.isUndefined(adapter.codStatuses)
  })
})
