/**
 * `POST /v1/orders` under its Idempotency-Key over a socket, on each database (embedded always, the real server with
 * DATABASE_URL), now that the create's products read carries the key's claim (decision 0027): a replay answers the
 * first answer byte for byte, the key with another body is 422 `idempotency_key_reuse`, and a refused body (not JSON,
 * or an invalid order) is recorded and replayed. 200 concurrent creates under one key are `StoreApi.db.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

let keys = 0
const key = () => `order-create-${Date.now()}-${++keys}`

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `POST /v1/orders under its Idempotency-Key (${backend.name})`,
    (it) => {
      it.effect("replays the first answer byte for byte, refuses the key for another body, replays refusals", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: { name: "Gandoura", price: 3000 }
          })).body.data
          const body = { customer, items: [{ product_id: product.id, quantity: 1 }] }
          const k = key()
          const first = yield* call(base, "POST", "/v1/orders", { token: store.token, key: k, body })
          assert.strictEqual(first.status, 200, first.text)
          const replay = yield* call(base, "POST", "/v1/orders", { token: store.token, key: k, body })
          assert.deepStrictEqual([replay.status, replay.text], [200, first.text])
          assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
          const reused = yield* call(base, "POST", "/v1/orders", {
            token: store.token,
            key: k,
            body: { ...body, notes: "another request" }
          })
          assert.deepStrictEqual([reused.status, reused.body.error.code], [422, "idempotency_key_reuse"])

          for (const refused of [{ raw: "{not json" }, { body: { ...body, items: [] } }]) {
            const refusedKey = key()
            const answer = yield* call(base, "POST", "/v1/orders", { token: store.token, key: refusedKey, ...refused })
            assert.deepStrictEqual([answer.status, answer.body.error.code], [400, "bad_request"])
            const again = yield* call(base, "POST", "/v1/orders", { token: store.token, key: refusedKey, ...refused })
            assert.deepStrictEqual([again.status, again.text], [400, answer.text])
            assert.strictEqual(again.headers.get("idempotency-replay"), "1")
          }

          const db = yield* sql
          const [count] = yield* db<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE store_id = ${store.id}`
          assert.strictEqual(count!.n, 1)
        })
      )
    }
  )
}
