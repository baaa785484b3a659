/**
 * `Orders` tells its listener (`OrderEvents`) what happened, inside the unit of work of the change: a create, a
 * status move, nothing for a refused call or a PATCH to the current status; on SQL, a listener writing to the
 * database commits with the change and rolls back with it.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { type OrderEvent, OrderEvents } from "../src/OrderEvents.ts"
import { Orders } from "../src/Orders.ts"
import * as Fixture from "./Fixture.ts"

const body = (productId: number) => ({
  customer: { name: "Yacine", phone: "0661 00 11 22", wilaya_id: 31, commune: "Oran" },
  items: [{ product_id: productId, quantity: 2 }]
})

const heard: Array<OrderEvent> = []
const recorder = Layer.succeed(OrderEvents, { record: (event) => Effect.sync(() => void heard.push(event)) })

describe("OrderEvents", () => {
  layer(Fixture.memory().pipe(Layer.provide(recorder)))("memory", (it) => {
    it.effect(
      "tells a create and each status move, with the order as answered; nothing for a refused or idle call",
      () =>
        Effect.gen(function* () {
          heard.length = 0
          const orders = yield* Orders
          const fixture = yield* Fixture.Fixture
          const store = yield* fixture.store()
          const product = yield* fixture.product(store.id, { price: "900" })
          const created = yield* orders.create(store, body(product))
          yield* Effect.flip(orders.create(store, { customer: {} }))
          const confirmed = yield* orders.setStatus(store.id, created.id, { status: "confirmed" })
          yield* orders.setStatus(store.id, created.id, { status: "confirmed" })
          yield* Effect.flip(orders.setStatus(store.id, created.id, { status: "pending" }))
          const cancelled = yield* orders.cancel(store.id, created.id)
          assert.deepStrictEqual(
            heard.map((event) => [event._tag, event.storeId, event.order]),
            [
              ["OrderCreated", store.id, created],
              ["OrderStatusChanged", store.id, confirmed],
              ["OrderStatusChanged", store.id, cancelled]
            ]
          )
          assert.deepStrictEqual(
            heard.flatMap((event) =>
              event._tag === "OrderStatusChanged" ? [`${event.from}->${event.order.status}`] : []
            ),
            ["pending->confirmed", "confirmed->cancelled"]
          )
        })
    )
  })

  /** A listener that writes what it hears to a table, in the change's own transaction. */
  const tableRecorder = Layer.effect(
    OrderEvents,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      record: (event: OrderEvent) =>
        sql`INSERT INTO heard_events (kind, order_id) VALUES (${event._tag}, ${event.order.id})`.pipe(
          Effect.orDie,
          Effect.asVoid
        )
    }))
  )

  for (const backend of TestDatabase.backends) {
    layer(Fixture.sql(backend, tableRecorder), { excludeTestServices: true, timeout: "120 seconds" })(
      `sql (${backend.name})`,
      (it) => {
        it.effect("commits what it heard with the change, and rolls it back with the change", () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`CREATE TABLE heard_events (kind text NOT NULL, order_id integer NOT NULL)`.pipe(Effect.orDie)
            const orders = yield* Orders
            const fixture = yield* Fixture.Fixture
            const store = yield* fixture.store()
            const product = yield* fixture.product(store.id, { price: "900" })
            const kept = yield* orders.create(store, body(product))
            yield* orders.setStatus(store.id, kept.id, { status: "shipped" }).pipe(Effect.flip)
            yield* orders.setStatus(store.id, kept.id, { status: "confirmed" })

            // The caller's transaction fails after the create: the order and what was heard are both gone.
            const undone = yield* sql
              .withTransaction(
                Effect.gen(function* () {
                  const order = yield* orders.create(store, body(product))
                  return yield* Effect.fail(order.id)
                })
              )
              .pipe(Effect.flip)
            const rows = yield* sql<{ readonly kind: string; readonly order_id: number }>`
            SELECT kind, order_id FROM heard_events ORDER BY kind DESC, order_id`.pipe(Effect.orDie)
            assert.deepStrictEqual(rows, [
              { kind: "OrderStatusChanged", order_id: kept.id },
              { kind: "OrderCreated", order_id: kept.id }
            ])
            const [orphans] = yield* sql<{ readonly n: number }>`
            SELECT count(*)::int AS n FROM orders WHERE id = ${undone as number}`.pipe(Effect.orDie)
            assert.strictEqual(orphans!.n, 0)
          })
        )
      }
    )
  }
})
