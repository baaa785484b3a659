import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { DateTime } from "effect"
import * as fc from "fast-check"
import * as OrderShipment from "../src/OrderShipment.ts"
import * as OrderStatus from "../src/OrderStatus.ts"

const at = (minute: number) => DateTime.makeUnsafe(Date.UTC(2025, 4, 1, 9, minute))

const start: OrderShipment.State = {
  status: "pending_pickup",
  raw_status: "ready_for_pickup",
  reason: null,
  status_at: at(10),
  cod_status: null,
  cod_at: null
}

const movement = (
  status: CanonicalStatus,
  minute: number,
  extra: Partial<OrderShipment.ShipmentEvent> = {}
): OrderShipment.ShipmentEvent => ({
  kind: "movement",
  status,
  rawStatus: `raw ${status}`,
  occurredAt: at(minute),
  source: "poll",
  ...extra
})

const cash = (status: "collected" | "remitted", minute: number): OrderShipment.ShipmentEvent => ({
  kind: "cod",
  status,
  rawStatus: `cash ${status}`,
  occurredAt: at(minute),
  source: "push"
})

/** The moves of docs/cod-loop.md's table, written out independently of the module: `order status/shipment status`. */
const moves: Readonly<Record<string, OrderStatus.OrderStatus>> = {
  "shipped/delivered": "delivered",
  "shipped/returned": "returned",
  "delivered/returned": "returned",
  "shipped/cancelled": "cancelled",
  "processing/cancelled": "cancelled",
  // An undispatched parcel the courier reports past its pickup: the order is shipped (and then follows further on).
  "processing/picked_up": "shipped",
  "processing/in_transit": "shipped",
  "processing/out_for_delivery": "shipped",
  "processing/at_stopdesk": "shipped",
  "processing/failed_attempt": "shipped",
  "processing/on_hold": "shipped",
  "processing/returning": "shipped",
  "processing/delivered": "shipped",
  "processing/returned": "shipped"
}

describe("OrderShipment", () => {
  describe("latest", () => {
    it("takes a newer movement: status, raw status, reason and time", () => {
      const next = OrderShipment.latest(start, [movement("failed_attempt", 20, { reason: "Client absent" })])
      assert.deepStrictEqual(next, {
        ...start,
        status: "failed_attempt",
        raw_status: "raw failed_attempt",
        reason: "Client absent",
        status_at: at(20)
      })
      // A later movement without a reason clears the previous one.
      assert.strictEqual(OrderShipment.latest(next, [movement("out_for_delivery", 30)]).reason, null)
    })

    it("keeps the shipment where it is for an older movement (a late push, an old page)", () => {
      assert.deepStrictEqual(OrderShipment.latest(start, [movement("created", 9)]), start)
      assert.deepStrictEqual(OrderShipment.latest(start, [movement("delivered", 0)]), start)
    })

    it("takes a movement of the same time as the shipment's (the courier's own correction)", () => {
      const next = OrderShipment.latest(start, [movement("on_hold", 10)])
      assert.strictEqual(next.status, "on_hold")
      assert.deepStrictEqual(next.status_at, at(10))
    })

    it("applies a batch oldest first, whatever order it came in", () => {
      const next = OrderShipment.latest(start, [
        movement("delivered", 50),
        movement("in_transit", 20),
        movement("out_for_delivery", 40),
        movement("created", 1)
      ])
      assert.strictEqual(next.status, "delivered")
      assert.deepStrictEqual(next.status_at, at(50))
    })

    it("sets the cash status from cash events only, never the movement", () => {
      const collected = OrderShipment.latest(start, [cash("collected", 60)])
      assert.deepStrictEqual(collected, { ...start, cod_status: "collected", cod_at: at(60) })
      // Cash is not movement: a cash event newer than the status does not touch it, and an older one is still cash.
      assert.deepStrictEqual(OrderShipment.latest(start, [cash("collected", 1)]), {
        ...start,
        cod_status: "collected",
        cod_at: at(1)
      })
      const remitted = OrderShipment.latest(collected, [cash("remitted", 120)])
      assert.deepStrictEqual([remitted.cod_status, remitted.status], ["remitted", "pending_pickup"])
      // An older cash event does not take the cash status back.
      assert.deepStrictEqual(OrderShipment.latest(remitted, [cash("collected", 61)]), remitted)
      // Nor does a movement touch the cash.
      const moved = OrderShipment.latest(remitted, [movement("returned", 200)])
      assert.deepStrictEqual([moved.status, moved.cod_status], ["returned", "remitted"])
    })

    it("never moves a shipment backwards: events in any batches and order end at the newest of each kind", () => {
      const events = fc.uniqueArray(
        fc.record({
          minute: fc.integer({ min: 0, max: 59 }),
          kind: fc.constantFrom("movement" as const, "cod" as const),
          status: fc.constantFrom(...CanonicalStatus.literals)
        }),
        { selector: (event) => `${event.kind}:${event.minute}`, minLength: 1, maxLength: 12 }
      )
      fc.assert(
        fc.property(events, fc.integer({ min: 1, max: 4 }), (drawn, batches) => {
          const all = drawn.map(
            (event): OrderShipment.ShipmentEvent =>
              event.kind === "movement"
                ? movement(event.status, event.minute)
                : cash(event.minute % 2 === 0 ? "collected" : "remitted", event.minute)
          )
          const origin: OrderShipment.State = { ...start, status_at: at(0) }
          // One batch, or several batches in the order they arrived.
          let split = origin
          for (let batch = 0; batch < batches; batch++) {
            split = OrderShipment.latest(
              split,
              all.filter((_, index) => index % batches === batch)
            )
          }
          const whole = OrderShipment.latest(origin, all)
          const newest = (kind: "movement" | "cod") =>
            all
              .filter((event) => event.kind === kind)
              .reduce<OrderShipment.ShipmentEvent | undefined>(
                (best, event) =>
                  best === undefined ||
                  DateTime.toEpochMillis(event.occurredAt) > DateTime.toEpochMillis(best.occurredAt)
                    ? event
                    : best,
                undefined
              )
          const expected = {
            ...origin,
            ...(newest("movement") === undefined
              ? {}
              : {
                  status: newest("movement")!.status as CanonicalStatus,
                  raw_status: newest("movement")!.rawStatus,
                  status_at: newest("movement")!.occurredAt
                }),
            ...(newest("cod") === undefined
              ? {}
              : { cod_status: newest("cod")!.status as "collected", cod_at: newest("cod")!.occurredAt })
          }
          assert.deepStrictEqual(whole, expected)
          assert.deepStrictEqual(split, expected)
        })
      )
    })
  })

  describe("orderMove", () => {
    it("moves the order as docs/cod-loop.md's table says, for every order status and shipment status", () => {
      for (const order of OrderStatus.statuses) {
        for (const shipment of CanonicalStatus.literals) {
          assert.strictEqual(
            OrderShipment.orderMove(order, shipment),
            moves[`${order}/${shipment}`],
            `${order}/${shipment}`
          )
        }
      }
    })

    it("asks only for moves a courier may make", () => {
      for (const order of OrderStatus.statuses) {
        for (const shipment of CanonicalStatus.literals) {
          const to = OrderShipment.orderMove(order, shipment)
          if (to !== undefined) assert.isTrue(OrderStatus.canMove(order, to, "courier"), `${order} -> ${to}`)
        }
      }
    })
  })

  describe("storable", () => {
    it("keeps an event's text storable and short enough to index, the same way each time", () => {
      const sent = movement("in_transit", 20, {
        rawStatus: `A\u0000${"b".repeat(300)}`,
        reason: "\ud800".repeat(600),
        eventId: "x".repeat(201)
      })
      const kept = OrderShipment.storable(sent)
      assert.strictEqual(kept.rawStatus, `A\ufffd${"b".repeat(OrderShipment.RAW_STATUS_MAX - 2)}`)
      assert.strictEqual(kept.reason, "\ufffd".repeat(OrderShipment.REASON_MAX))
      assert.match(kept.eventId!, /^sha256:[0-9a-f]{64}$/)
      assert.deepStrictEqual(OrderShipment.storable(sent), kept)
      assert.notStrictEqual(OrderShipment.storable({ ...sent, eventId: "y".repeat(201) }).eventId, kept.eventId)
      // What is storable and short is kept as it is.
      const plain = movement("delivered", 45, { eventId: "evt-1", reason: "Remis" })
      assert.deepStrictEqual(OrderShipment.storable(plain), plain)
    })
  })

  describe("dedupeKey", () => {
    it("is the courier's event id when there is one, per kind", () => {
      const withId = movement("delivered", 45, { eventId: "evt-1" })
      assert.strictEqual(OrderShipment.dedupeKey(withId), "id:movement:evt-1")
      assert.strictEqual(OrderShipment.dedupeKey({ ...withId, kind: "cod", status: "collected" }), "id:cod:evt-1")
      // Another time or raw status under the same id is still the same event.
      assert.strictEqual(
        OrderShipment.dedupeKey({ ...withId, occurredAt: at(46), rawStatus: "other" }),
        OrderShipment.dedupeKey(withId)
      )
    })

    it("is kind, raw status and time otherwise (an empty id is no id), whatever the source", () => {
      const event = movement("delivered", 45)
      const key = OrderShipment.dedupeKey(event)
      assert.strictEqual(key, OrderShipment.sameAs(event))
      assert.strictEqual(OrderShipment.dedupeKey({ ...event, eventId: "" }), key)
      assert.strictEqual(OrderShipment.dedupeKey({ ...event, source: "push", reason: "x" }), key)
      assert.notStrictEqual(OrderShipment.dedupeKey({ ...event, rawStatus: "livré" }), key)
      assert.notStrictEqual(OrderShipment.dedupeKey({ ...event, occurredAt: at(46) }), key)
      assert.notStrictEqual(OrderShipment.dedupeKey({ ...event, kind: "cod" }), key)
      // The same event with an id is the same as without one (`sameAs`), so a push and a poll of it are kept once.
      assert.strictEqual(OrderShipment.sameAs({ ...event, eventId: "evt-9" }), key)
    })
  })
})
