import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Result, Schema } from "effect"
import { adapter } from "../src/Colivraison.ts"
import * as Mapping from "../src/ColivraisonMapping.ts"
import * as Status from "../src/ColivraisonStatus.ts"
import { historyPairs } from "./fixtures/responses.ts"

/**
 * The one public list of Colivraison's statuses, every key as written with its label (WooBordereauGenerator,
 * `Admin/Shipping/ColivraisonExpressSettings.php`, `status()`), in the list's order.
 */
const documented: ReadonlyArray<readonly [key: string, label: string]> = [
  ["PLACED", "Placed"],
  ["PENDING_RECEPTION", "Pending reception"],
  ["AWAITING_TRANSIT", "Awaiting transit"],
  ["IN_TRANSIT", "In transit"],
  ["OUT_FOR_DELIVERY", "Out for delivery"],
  ["READY_FOR_DELIVERY", "Ready for delivery"],
  ["RETURNED", "Returned"],
  ["IN_RETURN", "In return"],
  ["DELIVERED", "Delivered"],
  ["RETURN_COLLECTED", "Return collected"]
]

/** The reading of each label (README "Statuses"), canonical status by canonical status. */
const table: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["PLACED"]],
  ["pending_pickup", ["PENDING_RECEPTION"]],
  ["picked_up", ["AWAITING_TRANSIT"]],
  ["in_transit", ["IN_TRANSIT", "READY_FOR_DELIVERY"]],
  ["out_for_delivery", ["OUT_FOR_DELIVERY"]],
  ["delivered", ["DELIVERED"]],
  ["returning", ["RETURNED", "IN_RETURN"]],
  ["returned", ["RETURN_COLLECTED"]]
]

describe("ColivraisonStatus", () => {
  it("maps exactly the ten documented keys, as written", () => {
    assert.deepStrictEqual(Object.keys(Status.statuses).sort(), documented.map(([key]) => key).sort())
  })

  it.each(table)("%s ← %j", (canonical, keys) => {
    for (const key of keys) assert.strictEqual(Status.statuses[key], canonical, key)
  })

  it("covers the table and nothing else; every value is canonical", () => {
    assert.strictEqual(
      table.reduce((count, [, keys]) => count + keys.length, 0),
      Object.keys(Status.statuses).length
    )
    for (const value of Object.values(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(value), value)
    }
  })

  it("declares no cash statuses: none is documented", () => {
    assert.isUndefined(adapter.codStatuses)
  })

  it("a created parcel is PLACED, which the table knows", () => {
    assert.strictEqual(Status.statuses[Status.placed], "created")
  })

  it("through the core's timeline: a delivered parcel, ordered by time whatever order the courier sent", () => {
    const [, tracking, answer] = historyPairs[0]!
    const events = Result.getOrThrow(Mapping.fromHistory(tracking, answer))
    const { result, unmapped } = Tracking.timeline(tracking, Status.statuses, events, adapter.codStatuses)
    assert.strictEqual(result.status, "delivered")
    assert.isUndefined(result.cod)
    assert.deepStrictEqual(
      result.events.map(({ rawStatus, status }) => [rawStatus, status]),
      [
        ["PLACED", "created"],
        ["IN_TRANSIT", "in_transit"],
        ["OUT_FOR_DELIVERY", "out_for_delivery"],
        ["DELIVERED", "delivered"]
      ]
    )
    assert.deepStrictEqual(unmapped, [])
  })

  it("through the core's timeline: a return ends returned only once the merchant collected it", () => {
    const at = (minute: number) => `2026-05-02T10:${String(minute).padStart(2, "0")}:00+01:00`
    const walk = ["PLACED", "PENDING_RECEPTION", "AWAITING_TRANSIT", "IN_TRANSIT", "RETURNED", "IN_RETURN"]
    const events = walk.map((rawStatus, minute) => ({ rawStatus, timestamp: at(minute) }))
    assert.strictEqual(Tracking.timeline("CLX1", Status.statuses, events).result.status, "returning")
    const back = [...events, { rawStatus: "RETURN_COLLECTED", timestamp: at(walk.length) }]
    assert.strictEqual(Tracking.timeline("CLX1", Status.statuses, back).result.status, "returned")
  })

  it("an undocumented status is unknown, keeps its raw text and is reported once", () => {
    const [, tracking, answer] = historyPairs[1]!
    const events = Result.getOrThrow(Mapping.fromHistory(tracking, answer))
    const { result, unmapped } = Tracking.timeline(tracking, Status.statuses, events)
    assert.strictEqual(result.status, "unknown")
    assert.deepStrictEqual(result.events.at(-1), {
      status: "unknown",
      rawStatus: "LOST_IN_SPACE",
      timestamp: "2026-04-19T09:00:00+01:00"
    })
    assert.deepStrictEqual(unmapped, ["LOST_IN_SPACE"])
  })
})
