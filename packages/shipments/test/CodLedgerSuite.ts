/**
 * The COD ledger over each implementation of its port (`CodLedgerStore`: memory over the orders' port, SQL), through
 * the service: shipments attached and followed through `Orders` as the poller and the push applier do, a statement
 * imported, the report as JSON and CSV. The same answers from both: the memory twin is what the store API's memory
 * harness runs on.
 */
import { assert, type Vitest } from "@effect/vitest"
import type { Ids } from "@tawsil/domain"
import { type OrderShipment, Orders } from "@tawsil/orders"
import { Clock, DateTime, Effect, Stream } from "effect"
import * as CodLedger from "../src/CodLedger.ts"
import * as Backends from "./Backends.ts"

const DAY = 86_400_000
const dayOf = (millis: number) => new Date(millis + 3_600_000).toISOString().slice(0, 10)

type Services = CodLedger.CodLedger | Orders.Orders | Backends.Fixture

/** An order shipped through `courier` (its COD: 2 × 2500.5 + 400 = 5401), then what `events` report of it. */
const shipped = (
  storeId: Ids.StoreId,
  courier: string,
  tracking: string,
  events: (at: number) => ReadonlyArray<OrderShipment.ShipmentEvent>
) =>
  Effect.gen(function* () {
    const fixture = yield* Backends.Fixture
    const orders = yield* Orders.Orders
    const order = yield* fixture.order(storeId)
    const now = yield* Clock.currentTimeMillis
    yield* orders
      .attachShipment(storeId, order.id, {
        accountId: 1,
        courier,
        trackingNumber: tracking,
        status: "pending_pickup",
        rawStatus: "ready",
        dispatched: true,
        at: DateTime.makeUnsafe(now)
      })
      .pipe(Effect.orDie)
    yield* orders.trackShipment(storeId, order.id, events(now)).pipe(Effect.orDie)
    return order.id
  })

const movement = (status: "delivered" | "returned", at: number): OrderShipment.ShipmentEvent => ({
  kind: "movement",
  status,
  rawStatus: status,
  occurredAt: DateTime.makeUnsafe(at),
  source: "poll"
})

const cash = (
  status: "collected" | "remitted",
  at: number,
  payment?: OrderShipment.Payment
): OrderShipment.ShipmentEvent => ({
  kind: "cod",
  status,
  rawStatus: `cash_${status}`,
  occurredAt: DateTime.makeUnsafe(at),
  source: "push",
  ...(payment === undefined ? {} : { payment })
})

export const CodLedgerSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("imports a statement, remits what it pays, and reports the same figures as JSON and CSV", () =>
    Effect.gen(function* () {
      const fixture = yield* Backends.Fixture
      const ledger = yield* CodLedger.CodLedger
      const storeId = yield* fixture.store
      const suffix = `${storeId}`
      yield* shipped(storeId, "yalidine", `Y1-${suffix}`, (at) => [
        movement("delivered", at + 1000),
        cash("collected", at + 2000, { amount: 5401, fee: 250 })
      ])
      yield* shipped(storeId, "yalidine", `Y2-${suffix}`, (at) => [
        movement("delivered", at + 1000),
        cash("remitted", at + 2000, { statement: "PAY-9" })
      ])
      const short = yield* shipped(storeId, "dhd", `D1-${suffix}`, (at) => [movement("delivered", at + 1000)])
      yield* shipped(storeId, "dhd", `D2-${suffix}`, (at) => [movement("returned", at + 1000)])

      const now = yield* Clock.currentTimeMillis
      const today = dayOf(now + DAY)
      const imported = yield* ledger.importStatement(
        storeId,
        `tracking_number,amount,date\nY1-${suffix},5151,${today}\nD1-${suffix},5000,${today}\nNOPE-${suffix},99,${today}\n`,
        {}
      )
      assert.deepInclude(imported, { courier: null, lines: 3, matched: 1, remitted: 2, total: 5151 + 5000 + 99 })
      assert.deepStrictEqual(
        imported.flagged.map((line) => [line.line, line.outcome, line.order_id, line.expected]),
        [
          [3, "amount_differs", short, 5401],
          [4, "unmatched", null, null]
        ]
      )

      const request = { from: dayOf(now - DAY), to: dayOf(now + DAY), staleAfterDays: "14" }
      const report = yield* ledger.report(storeId, request)
      assert.deepStrictEqual(
        report.couriers.map((one) => [one.courier, one.shipments, one.remitted.amount, one.fees.amount]),
        [
          ["dhd", 2, 5000, 0],
          ["unattributed", 0, 0, 0],
          ["yalidine", 2, 5151 + 5401, 250]
        ]
      )
      assert.deepInclude(report.total, {
        shipments: 4,
        expected: { count: 4, amount: 4 * 5401 },
        collected_not_remitted: { count: 0, amount: 0 },
        remitted: { count: 3, amount: 5151 + 5401 + 5000 },
        fees: { count: 1, amount: 250 },
        returned: { count: 1, amount: 5401 }
      })
      assert.deepStrictEqual(report.total.discrepancies, {
        not_remitted: { count: 0, amount: 0 },
        amount_differs: { count: 1, amount: 5000 },
        unmatched_lines: { count: 1, amount: 99 }
      })
      assert.deepStrictEqual(
        report.discrepancies.map((one) => [one.kind, one.order_id, one.statement]),
        [
          ["amount_differs", short, `stmt_${imported.id}`],
          ["unmatched_line", null, `stmt_${imported.id}`]
        ]
      )

      const csv = (yield* Stream.runCollect(yield* ledger.reportCsv(storeId, request))).join("")
      const rows = csv.trim().split("\r\n")
      assert.deepStrictEqual(
        rows.slice(1).map((row) => row.split(",").slice(0, 2).join(",")),
        [
          "shipment,dhd",
          "shipment,dhd",
          "shipment,yalidine",
          "shipment,yalidine",
          "statement_line,unattributed",
          "courier_total,dhd",
          "courier_total,unattributed",
          "courier_total,yalidine",
          "total,all"
        ]
      )
      assert.strictEqual(rows.at(-1), `total,all,,,,,,,${4 * 5401},0,${5151 + 5401 + 5000},250,5401,99,,2`)
      // Another store sees none of it.
      const other = yield* ledger.report(yield* fixture.store, request)
      assert.strictEqual(other.total.shipments, 0)
      assert.deepStrictEqual(other.discrepancies, [])
    })
  )
}
