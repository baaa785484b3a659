/**
 * An order create under its Idempotency-Key as the store API runs it (`Idempotency.transact` with `claimCarried`,
 * decision 0027): the claim carried by the products read (uncapped plans) or taken on its own before the store row's
 * lock (capped plans). Either way the first create commits with its answer, a retry replays it without a second
 * order, and a refused body is recorded and replayed. On each database (embedded always, the real server with
 * DATABASE_URL).
 */
import { assert, layer } from "@effect/vitest"
import { Idempotency, IdempotencyStoreSql } from "@tawsil/idempotency"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type * as OrderError from "../src/OrderError.ts"
import { Orders } from "../src/Orders.ts"
import type { OrderDetail } from "../src/OrderViews.ts"
import * as Fixture from "./Fixture.ts"

const secret = Redacted.make("order-create-claim-secret")

const request = (key: string, body: unknown): Idempotency.Request => ({
  scope: Idempotency.scopeWith(secret, ["orders-test"]),
  key: Idempotency.IdempotencyKey.make(key),
  fingerprint: Idempotency.fingerprintWith(secret, { method: "POST", path: "/v1/orders", body })
})

/** The answers as the store API keeps them: the order's JSON, and a refusal's reason. */
const answers = {
  stored: (order: OrderDetail) =>
    new Idempotency.StoredResponse({ status: 200, headers: {}, body: JSON.stringify({ data: order }) }),
  refused: (error: OrderError.OrderError) =>
    new Idempotency.StoredResponse({ status: 400, headers: {}, body: JSON.stringify({ error: error.reason._tag }) })
}

const ordersOf = (storeId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM orders WHERE store_id = ${storeId}`
    return row!.n
  })

for (const backend of TestDatabase.backends) {
  const idempotency = Idempotency.layer().pipe(Layer.provideMerge(IdempotencyStoreSql.layer))
  layer(idempotency.pipe(Layer.provideMerge(Fixture.sql(backend))), {
    excludeTestServices: true,
    timeout: "120 seconds"
  })(`an order create under its Idempotency-Key (sql, ${backend.name})`, (it) => {
    for (const plan of ["enterprise", "free"]) {
      it.effect(`${plan}: commits with its answer, replays it without a second order, records a refusal`, () =>
        Effect.gen(function* () {
          const fixture = yield* Fixture.Fixture
          const orders = yield* Orders
          const keys = yield* Idempotency.Idempotency
          const store = yield* fixture.store(plan)
          const product = yield* fixture.product(store.id, { price: "1500" })
          const body = {
            customer: { name: "Lina", phone: "0770123456", wilaya_id: 9, commune: "Blida" },
            items: [{ product_id: product, quantity: 2 }]
          }
          const create = (key: string, sent: unknown) =>
            keys.transact(request(key, sent), orders.create(store, sent), answers, { claimCarried: true })
          const first = yield* create(`${plan}-1`, body)
          if (first._tag !== "Fresh") return assert.fail(`the first create answered ${first._tag}`)
          const replay = yield* create(`${plan}-1`, body)
          assert.deepStrictEqual(replay, new Idempotency.Replay({ response: answers.stored(first.value) }))
          assert.strictEqual(yield* ordersOf(store.id), 1)
          const invalid = { ...body, items: [] }
          const refused = yield* create(`${plan}-2`, invalid)
          assert.strictEqual(refused._tag, "Refused")
          const refusedAgain = yield* create(`${plan}-2`, invalid)
          assert.strictEqual(refusedAgain._tag, "Replay")
          const reused = yield* Effect.flip(create(`${plan}-1`, invalid))
          assert.instanceOf(reused, Idempotency.KeyReused)
          assert.strictEqual(yield* ordersOf(store.id), 1)
        })
      )
    }
  })
}
