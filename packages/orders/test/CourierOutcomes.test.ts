import { describe, expect, it } from "@effect/vitest"
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { DateTime } from "effect"
import * as fc from "fast-check"
import * as CourierOutcomes from "../src/CourierOutcomes.ts"

const START = Date.UTC(2026, 10, 1)
const DAY = 86_400_000

const shipment = (
  courier: string,
  wilaya_id: number,
  status: CanonicalStatus,
  days = 0
): CourierOutcomes.ShipmentOutcome => ({
  courier,
  wilaya_id,
  status,
  first_at: DateTime.makeUnsafe(START),
  status_at: DateTime.makeUnsafe(START + days * DAY)
})

describe("CourierOutcomes", () => {
  it("counts each courier and wilaya, rates over settled shipments, the median days of the delivered", () => {
    const report = CourierOutcomes.summarize([
      shipment("yalidine", 16, "delivered", 2),
      shipment("yalidine", 16, "delivered", 3),
      shipment("yalidine", 16, "returned", 6),
      shipment("yalidine", 16, "in_transit", 1),
      shipment("yalidine", 31, "delivered", 1.5),
      shipment("yalidine", 31, "returning", 4),
      shipment("dhd", 16, "cancelled"),
      shipment("dhd", 16, "delivered", 4),
      shipment("dhd", 16, "delivered", 1),
      shipment("dhd", 16, "delivered", 2),
      shipment("dhd", 16, "delivered", 10)
    ])
    expect(report.items).toEqual([
      {
        courier: "dhd",
        wilaya_id: 16,
        shipments: 5,
        delivered: 4,
        returned: 0,
        cancelled: 1,
        in_progress: 0,
        delivery_rate: 1,
        return_rate: 0,
        median_days_to_deliver: 3
      },
      {
        courier: "yalidine",
        wilaya_id: 16,
        shipments: 4,
        delivered: 2,
        returned: 1,
        cancelled: 0,
        in_progress: 1,
        delivery_rate: 0.6667,
        return_rate: 0.3333,
        median_days_to_deliver: 2.5
      },
      {
        courier: "yalidine",
        wilaya_id: 31,
        shipments: 2,
        delivered: 1,
        returned: 1,
        cancelled: 0,
        in_progress: 0,
        delivery_rate: 0.5,
        return_rate: 0.5,
        median_days_to_deliver: 1.5
      }
    ])
    expect(
      report.couriers.map((c) => [c.courier, c.shipments, c.delivered, c.returned, c.median_days_to_deliver])
    ).toEqual([
      ["dhd", 5, 4, 0, 3],
      ["yalidine", 6, 3, 2, 2]
    ])
  })

  it("has no rate and no median where nothing is settled", () => {
    const report = CourierOutcomes.summarize([shipment("noest", 5, "created"), shipment("noest", 5, "cancelled")])
    expect(report.items[0]).toMatchObject({ delivery_rate: null, return_rate: null, median_days_to_deliver: null })
    expect(CourierOutcomes.summarize([])).toEqual({ items: [], couriers: [] })
  })

  it("keeps the totals of the items in each courier's line, whatever the shipments", () => {
    const statuses: ReadonlyArray<CanonicalStatus> = ["delivered", "returned", "returning", "cancelled", "in_transit"]
    const arbitrary = fc.array(
      fc.record({
        courier: fc.constantFrom("a", "b", "c"),
        wilaya: fc.integer({ min: 1, max: 4 }),
        status: fc.constantFrom(...statuses),
        days: fc.integer({ min: 0, max: 20 })
      }),
      { maxLength: 60 }
    )
    fc.assert(
      fc.property(arbitrary, (rows) => {
        const report = CourierOutcomes.summarize(rows.map((r) => shipment(r.courier, r.wilaya, r.status, r.days)))
        for (const courier of report.couriers) {
          const items = report.items.filter((item) => item.courier === courier.courier)
          for (const field of ["shipments", "delivered", "returned", "cancelled", "in_progress"] as const) {
            expect(items.reduce((sum, item) => sum + item[field], 0)).toBe(courier[field])
          }
          if (courier.delivery_rate !== null) {
            expect(courier.delivery_rate + courier.return_rate!).toBeCloseTo(1, 3)
          }
        }
        expect(report.items.reduce((sum, item) => sum + item.shipments, 0)).toBe(rows.length)
      })
    )
  })

  it("ranks by expected delivery rate, then price, then median days, then key; a small sample is pulled to the prior", () => {
    const report = CourierOutcomes.summarize([
      // alpha: 8 of 10 delivered in 16.
      ...Array.from({ length: 8 }, () => shipment("alpha", 16, "delivered", 2)),
      shipment("alpha", 16, "returned"),
      shipment("alpha", 16, "returned"),
      // beta: 1 of 1 in 16 (lucky), 2 of 10 elsewhere.
      shipment("beta", 16, "delivered", 1),
      ...Array.from({ length: 2 }, () => shipment("beta", 31, "delivered", 1)),
      ...Array.from({ length: 8 }, () => shipment("beta", 31, "returned"))
    ])
    const ranked = CourierOutcomes.recommend(report, 16, [
      { courier: "beta", price: 400 },
      { courier: "alpha", price: 600 },
      { courier: "gamma", price: 300 },
      { courier: "alpha", price: 600 }
    ])
    expect(ranked.map((r) => r.courier)).toEqual(["alpha", "gamma", "beta"])
    expect(ranked.map((r) => r.rank)).toEqual([1, 2, 3])
    // The store: 11 delivered of 21 settled. alpha overall (8 + 5 × 11/21) / 15, then in 16 (8 + 5 × that) / 15.
    const store = 11 / 21
    const alpha = (8 + 5 * ((8 + 5 * store) / 15)) / 15
    expect(ranked[0]!.expected_delivery_rate).toBe(Math.round(alpha * 10000) / 10000)
    // gamma has no shipment: the store's rate, twice pulled to itself.
    expect(ranked[1]!.expected_delivery_rate).toBe(Math.round(store * 10000) / 10000)
    expect(ranked[0]).toMatchObject({
      price: 600,
      wilaya: { settled: 10, delivery_rate: 0.8, median_days_to_deliver: 2 }
    })
    expect(ranked[1]).toMatchObject({ wilaya: { settled: 0, delivery_rate: null }, overall: { settled: 0 } })
  })

  it("breaks an equal rate by price (unknown last), then days, then key", () => {
    const none = CourierOutcomes.summarize([])
    const ranked = CourierOutcomes.recommend(none, 16, [
      { courier: "d", price: undefined },
      { courier: "c", price: 500 },
      { courier: "b", price: 300 },
      { courier: "a", price: 500 }
    ])
    expect(ranked.map((r) => [r.courier, r.price, r.expected_delivery_rate])).toEqual([
      ["b", 300, 0.5],
      ["a", 500, 0.5],
      ["c", 500, 0.5],
      ["d", null, 0.5]
    ])
  })

  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(CourierOutcomes.median([])).toBeUndefined()
    expect(CourierOutcomes.median([5, 1, 3])).toBe(3)
    expect(CourierOutcomes.median([4, 1, 3, 2])).toBe(2.5)
  })
})
