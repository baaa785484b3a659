import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Orders } from "../src/Orders.ts"
import * as Fixture from "./Fixture.ts"
import { OrderShipmentsSuite } from "./OrderShipmentsSuite.ts"
import { OrdersSuite } from "./OrdersSuite.ts"

const databaseNow = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly now: Date }>`SELECT now() AS now`.pipe(Effect.orDie)
  return DateTime.fromDateUnsafe(row!.now)
})

for (const backend of TestDatabase.backends) {
  layer(Fixture.sql(backend).pipe(Layer.provideMerge(Fixture.heard)), {
    excludeTestServices: true,
    timeout: "120 seconds"
  })(`Orders (sql, ${backend.name})`, (it) => {
    OrdersSuite(it, { now: databaseNow })
    OrderShipmentsSuite(it)

    it.effect("keeps notes, never shows them, and stores amounts exactly as sent", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const fixture = yield* Fixture.Fixture
        const orders = yield* Orders
        const store = yield* fixture.store()
        const product = yield* fixture.product(store.id, { price: "1999.999" })
        const order = yield* orders.create(store, {
          customer: { name: "Lina", phone: "0770123456", wilaya_id: 9, commune: "Blida" },
          items: [{ product_id: product, quantity: 3 }],
          shipping_cost: 350.125,
          notes: "Sonner deux fois"
        })
        assert.notProperty(order, "notes")
        const [row] = yield* sql<{
          readonly notes: string
          readonly subtotal: string
          readonly shipping_cost: string
        }>`
            SELECT notes, subtotal::text, shipping_cost::text FROM orders WHERE id = ${order.id}`
        assert.deepStrictEqual(
          { ...row! },
          { notes: "Sonner deux fois", subtotal: "5999.997", shipping_cost: "350.125" }
        )
        assert.deepStrictEqual(order.amounts, {
          subtotal: 5999.997,
          shipping_cost: 350.125,
          discount: 0,
          payment_fee: 0,
          total: 6350.122
        })
        assert.deepStrictEqual(yield* orders.get(store.id, order.id), order)
      }).pipe(Effect.orDie)
    )

    it.effect("creates inside the caller's transaction: rolling it back leaves no order and no customer", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const fixture = yield* Fixture.Fixture
        const orders = yield* Orders
        const store = yield* fixture.store("free")
        const product = yield* fixture.product(store.id, { price: "10" })
        const body = {
          customer: { name: "Lina", phone: "0770123456", wilaya_id: 9, commune: "Blida" },
          items: [{ product_id: product, quantity: 1 }]
        }
        const exit = yield* Effect.exit(
          sql.withTransaction(Effect.andThen(orders.create(store, body), Effect.fail("the caller failed")))
        )
        assert.strictEqual(exit._tag, "Failure")
        assert.deepStrictEqual((yield* orders.list(store.id, {})).items, [])
        assert.deepStrictEqual((yield* orders.listCustomers(store.id, {})).items, [])
        const committed = yield* sql.withTransaction(orders.create(store, body))
        assert.deepStrictEqual(
          (yield* orders.list(store.id, {})).items.map((o) => o.id),
          [committed.id]
        )
      }).pipe(Effect.orDie)
    )
  })
}
