import { assert, describe, it } from "@effect/vitest"
import { timeline } from "../src/Tracking.ts"

const statuses = { picked: "picked_up", shipped: "in_transit", done: "delivered" } as const

describe("Tracking", () => {
  describe("timeline", () => {
    it("orders events oldest first, drops exact repeats and takes the status of the newest", () => {
      const { result, unmapped } = timeline("T1", statuses, [
        { rawStatus: "done", timestamp: "2026-11-21T12:00:00+01:00" },
        { rawStatus: "picked", timestamp: "2026-11-21T09:00:00+01:00" },
        { rawStatus: "shipped", timestamp: "2026-11-21T10:00:00+01:00" },
        { rawStatus: "picked", timestamp: "2026-11-21T09:00:00+01:00" }
      ])
      assert.deepStrictEqual(
        result.events.map((event) => event.rawStatus),
        ["picked", "shipped", "done"]
      )
      assert.strictEqual(result.status, "delivered")
      assert.deepStrictEqual(unmapped, [])
    })

    it("keeps an unmapped raw status as unknown, never a guess, and reports it", () => {
      const { result, unmapped } = timeline("T2", statuses, [
        { rawStatus: "picked", timestamp: "2026-11-21T09:00:00Z" },
        { rawStatus: "colis_perdu_peut_etre", timestamp: "2026-11-21T10:00:00Z" }
      ])
      assert.strictEqual(result.status, "unknown")
      assert.strictEqual(result.events[1]!.status, "unknown")
      assert.strictEqual(result.events[1]!.rawStatus, "colis_perdu_peut_etre")
      assert.deepStrictEqual(unmapped, ["colis_perdu_peut_etre"])
    })

    it("carries what a cash event says of the money (the SDK's payment part), dropping the unusable parts", () => {
      const { result } = timeline(
        "T5",
        statuses,
        [
          { rawStatus: "done", timestamp: "2026-11-21T09:00:00Z" },
          {
            rawStatus: "paid",
            timestamp: "2026-11-22T09:00:00Z",
            payment: { amount: 4500, fee: 300, statement: "P-1" }
          },
          {
            rawStatus: "paid",
            timestamp: "2026-11-23T09:00:00Z",
            payment: { amount: 12.5, fee: -1, statement: "P-2" }
          },
          { rawStatus: "paid", timestamp: "2026-11-24T09:00:00Z", payment: { amount: Number.NaN, statement: "" } }
        ],
        { paid: "remitted" }
      )
      assert.deepStrictEqual(
        result.events.map((event): unknown => event.payment),
        [undefined, { amount: 4500, fee: 300, statement: "P-1" }, { statement: "P-2" }, undefined]
      )
      assert.strictEqual(result.cod, "remitted")
    })

    it("does not map through inherited object keys", () => {
      const { result } = timeline("T3", statuses, [{ rawStatus: "toString", timestamp: "2026-11-21T09:00:00Z" }])
      assert.strictEqual(result.status, "unknown")
    })

    it("answers unknown with no events", () => {
      const { result } = timeline("T4", statuses, [])
      assert.strictEqual(result.status, "unknown")
      assert.deepStrictEqual(result.events, [])
    })

    it("keeps undated events in reported order, after dated ones", () => {
      const { result } = timeline("T5", statuses, [
        { rawStatus: "done", timestamp: "yesterday" },
        { rawStatus: "picked", timestamp: "2026-11-21T09:00:00Z" }
      ])
      assert.deepStrictEqual(
        result.events.map((event) => event.rawStatus),
        ["picked", "done"]
      )
    })

    it("reads the cash on delivery apart from movement, when the courier reports it", () => {
      const money = { cashed: "collected", paid: "remitted" } as const
      const moves = { ...statuses, cashed: "delivered", paid: "delivered" } as const
      const before = timeline("T6", moves, [{ rawStatus: "done", timestamp: "2026-11-21T12:00:00Z" }], money)
      assert.strictEqual(before.result.cod, "not_collected")
      const after = timeline(
        "T6",
        moves,
        [
          { rawStatus: "done", timestamp: "2026-11-21T12:00:00Z" },
          { rawStatus: "cashed", timestamp: "2026-11-21T13:00:00Z" },
          { rawStatus: "paid", timestamp: "2026-11-22T09:00:00Z" }
        ],
        money
      )
      assert.deepStrictEqual([after.result.status, after.result.cod], ["delivered", "remitted"])
      assert.isUndefined(timeline("T7", statuses, []).result.cod, "absent for couriers that report no cash")
    })

    it("moves nothing on a raw status listed only as cash: the parcel keeps its newest movement", () => {
      const money = { paid: "remitted" } as const
      const { result, unmapped } = timeline(
        "T8",
        { ...statuses, back: "returned" },
        [
          { rawStatus: "picked", timestamp: "2026-11-21T10:00:00Z" },
          { rawStatus: "back", timestamp: "2026-11-21T12:00:00Z" },
          { rawStatus: "paid", timestamp: "2026-11-22T09:00:00Z" }
        ],
        money
      )
      assert.deepStrictEqual([result.status, result.cod], ["returned", "remitted"])
      assert.deepStrictEqual(
        result.events.map((event) => [event.rawStatus, event.status]),
        [
          ["picked", "picked_up"],
          ["back", "returned"],
          ["paid", "returned"]
        ]
      )
      assert.deepStrictEqual(unmapped, [], "a cash status is known, not unmapped")
    })
  })
})
