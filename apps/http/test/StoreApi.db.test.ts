/**
 * The store API over a socket, on each database (embedded always, the real server with DATABASE_URL): what only the
 * listener or the database shows. The edge (the request id echoed, an unknown route's 404, a known path's 405 with
 * `Allow`, a body over 1 MB answered 413 in the envelope), what the database keeps (the stock an order commits and
 * restores, a minted key's secret never in an idempotency record, a pixel's token stored cleaned) and 200
 * concurrent creates under one key. Each resource's HTTP behaviour is tested in memory, in `store/`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const customer = {
  name: "Amina Benali",
  phone: "0555 12 34 56",
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address: "Cité 5"
}

const productBody = {
  name: "Robe kabyle",
  price: 4500,
  stock: 10,
  variant_groups: [
    {
      name: "Taille",
      type: "text",
      options: [
        { value: "M", price_adjustment: 0, stock: 4 },
        { value: "XL", price_adjustment: 500, stock: 2 }
      ]
    }
  ]
}

const META_TOKEN = "EAAGm0PX4ZCpsBAKZBZCZAbcdefghijklmnopqrstuvwxyz0123"

let keys = 0
const key = () => `k-${Date.now()}-${++keys}`

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API (${backend.name})`,
    (it) => {
      it.effect("the edge: the request id in header and body, 404 for an unknown route, 405 with Allow", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const pong = yield* call(base, "GET", "/v1/ping", { headers: { "x-request-id": "trace-42" } })
          assert.strictEqual(pong.status, 200)
          assert.strictEqual(pong.body.data.pong, true)
          assert.strictEqual(pong.headers.get("x-request-id"), "trace-42")
          assert.deepStrictEqual(pong.body.meta, { request_id: "trace-42", api_version: "v1" })
          assert.strictEqual(pong.headers.get("x-api-version"), "v1")
          const store = yield* createStore()
          const unknownRoute = yield* call(base, "GET", "/v1/nothing", { token: store.token })
          assert.strictEqual(unknownRoute.status, 404)
          assert.strictEqual(unknownRoute.body.error.code, "not_found")
          assert.strictEqual(unknownRoute.body.meta.request_id, unknownRoute.headers.get("x-request-id"))
          const wrongMethod = yield* call(base, "PUT", "/v1/orders", { token: store.token })
          assert.strictEqual(wrongMethod.status, 405)
          assert.strictEqual(wrongMethod.body.error.code, "method_not_allowed")
          assert.strictEqual(wrongMethod.headers.get("allow"), "GET, HEAD, POST")
        })
      )

      it.effect("a body over 1 MB answers 413 payload_too_large, and writes nothing", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const raw = JSON.stringify({ pixel_type: "gtm", pixel_id: "GTM-5X7K2LP", pixel_name: "x".repeat(1_048_576) })
          const answer = yield* call(base, "POST", "/v1/pixels", { token: store.token, key: key(), raw })
          assert.deepStrictEqual([answer.status, answer.body?.error?.code], [413, "payload_too_large"])
          const list = yield* call(base, "GET", "/v1/pixels", { token: store.token })
          assert.strictEqual(list.body.data.items.length, 0)
        })
      )

      it.effect("an order commits its stock in the database when confirmed, and restores it when cancelled", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: productBody
          })).body.data
          const created = yield* call(base, "POST", "/v1/orders", {
            token: store.token,
            key: key(),
            body: {
              customer,
              items: [
                {
                  product_id: product.id,
                  quantity: 2,
                  variants: [{ group_name: "Taille", option_name: "XL", price_adjustment: 0 }]
                }
              ]
            }
          })
          assert.strictEqual(created.status, 200, created.text)
          assert.strictEqual(created.body.data.amounts.total, 10000)
          const order = created.body.data
          const db = yield* sql
          const stock = Effect.map(
            db<{ stock: number; option: number }>`
              SELECT p.stock, o.stock AS option FROM products p
              JOIN variant_groups g ON g.product_id = p.id JOIN variant_options o ON o.group_id = g.id
              WHERE p.id = ${product.id} AND o.value = 'XL'`.pipe(Effect.orDie),
            ([row]) => [row!.stock, row!.option]
          )
          assert.deepStrictEqual(yield* stock, [10, 2], "a pending order commits nothing")
          const confirm = yield* call(base, "PATCH", `/v1/orders/${order.id}`, {
            token: store.token,
            key: key(),
            body: { status: "confirmed" }
          })
          assert.strictEqual(confirm.body.data.status, "confirmed")
          assert.deepStrictEqual(yield* stock, [8, 0])
          const cancelled = yield* call(base, "POST", `/v1/orders/${order.id}/cancel`, {
            token: store.token,
            key: key()
          })
          assert.strictEqual(cancelled.body.data.status, "cancelled")
          assert.deepStrictEqual(yield* stock, [10, 2])
        })
      )

      it.effect("a minted key's secret is never kept in its idempotency record", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const mintKey = key()
          const minted = yield* call(base, "POST", "/v1/keys", {
            token: store.token,
            key: mintKey,
            body: { name: "erp" }
          })
          assert.strictEqual(minted.status, 200)
          const replayed = yield* call(base, "POST", "/v1/keys", {
            token: store.token,
            key: mintKey,
            body: { name: "erp" }
          })
          assert.strictEqual(replayed.headers.get("idempotency-replay"), "1")
          assert.strictEqual(replayed.body.data.bearer_token, null)
          const db = yield* sql
          const records = yield* db<{ body: string }>`SELECT body FROM idempotency_keys`.pipe(Effect.orDie)
          assert.isTrue(records.some((record) => record.body.includes(minted.body.data.key_id)))
          assert.isFalse(records.some((record) => record.body.includes(minted.body.data.bearer_token.split(".")[1])))
        })
      )

      it.effect("a pixel's access token is stored cleaned, and never answered", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const created = yield* call(base, "POST", "/v1/pixels", {
            token: store.token,
            key: key(),
            body: {
              pixel_type: "facebook",
              pixel_id: "1234567890123456",
              access_token: `  \u201c\u200b${META_TOKEN}\ufeff\u201d \n`
            }
          })
          assert.strictEqual(created.status, 201, created.text)
          assert.strictEqual(created.body.data.has_token, true)
          assert.notInclude(created.text, META_TOKEN)
          const db = yield* sql
          const [row] = yield* db<{ readonly access_token: string }>`
            SELECT access_token FROM pixels WHERE id = ${created.body.data.id}`.pipe(Effect.orDie)
          assert.strictEqual(row!.access_token, META_TOKEN, "stored cleaned")
        })
      )

      it.effect("idempotency storm: 200 concurrent creates with one key make one order, every answer identical", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: productBody
          })).body.data
          const k = key()
          const body = { customer, items: [{ product_id: product.id, quantity: 1 }] }
          const answers = yield* Effect.all(
            Array.from({ length: 200 }, () => call(base, "POST", "/v1/orders", { token: store.token, key: k, body })),
            { concurrency: "unbounded" }
          )
          const ok = answers.filter((answer) => answer.status === 200)
          const inFlight = answers.filter((answer) => answer.status === 409)
          assert.strictEqual(ok.length + inFlight.length, 200, JSON.stringify(answers.map((a) => a.status)))
          const first = ok[0]!.body.data
          for (const answer of ok) assert.deepStrictEqual(answer.body.data, first)
          for (const answer of inFlight) assert.isNotNull(answer.headers.get("retry-after"))
          const db = yield* sql
          const count = yield* db<{ n: number }>`SELECT count(*)::int AS n FROM orders WHERE store_id = ${store.id}`
          assert.strictEqual(count[0]!.n, 1)
        })
      )
    }
  )
}
