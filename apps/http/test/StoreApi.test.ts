/**
 * The store API through HTTP, on each database (embedded always, the real server with DATABASE_URL): envelope and
 * headers, keys and gates, idempotency, the read cache, rate limit and quota, and every resource end to end.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect, Redacted } from "effect"
import { type Answer, backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

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

let keys = 0
const key = () => `k-${Date.now()}-${++keys}`

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API (${backend.name})`,
    (it) => {
      it.effect("ping needs no key; every answer carries the request id in header and body", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const pong = yield* call(base, "GET", "/v1/ping", { headers: { "x-request-id": "trace-42" } })
          assert.strictEqual(pong.status, 200)
          assert.strictEqual(pong.body.data.pong, true)
          assert.strictEqual(pong.body.data.edge, true)
          assert.strictEqual(pong.headers.get("x-request-id"), "trace-42")
          assert.deepStrictEqual(pong.body.meta, { request_id: "trace-42", api_version: "v1" })
          assert.strictEqual(pong.headers.get("x-api-version"), "v1")
        })
      )

      it.effect("refuses a missing, malformed or unknown key with 401 in the envelope", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          for (const token of [undefined, "nonsense", "twpk_live_aaaaaaaaaaaaaa.0123", "twapp_live_00"]) {
            const answer = yield* call(base, "GET", "/v1/whoami", { token })
            assert.strictEqual(answer.status, 401, String(token))
            assert.strictEqual(answer.body.error.code, "unauthorized")
            assert.strictEqual(answer.body.meta.request_id, answer.headers.get("x-request-id"))
          }
          const store = yield* createStore()
          const [keyId] = store.token.split(".")
          const wrongSecret = yield* call(base, "GET", "/v1/whoami", { token: `${keyId}.${"0".repeat(48)}` })
          assert.strictEqual(wrongSecret.status, 401)
          assert.notInclude(wrongSecret.text, store.token.split(".")[1]!)
        })
      )

      it.effect("whoami tells the key, the store, its plan, pilot enrolment and scopes", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore({ name: "Maison Tlemcen" })
          const me = yield* call(base, "GET", "/v1/whoami", { token: store.token })
          assert.strictEqual(me.status, 200)
          assert.strictEqual(me.body.data.auth, "platform_key")
          assert.strictEqual(me.body.data.key.key_id, store.token.split(".")[0])
          assert.deepStrictEqual(me.body.data.store, {
            id: store.id,
            name: "Maison Tlemcen",
            slug: me.body.data.store.slug
          })
          assert.strictEqual(me.body.data.plan, "enterprise")
          assert.strictEqual(me.body.data.pilot, true)
          assert.include(me.body.data.scopes, "orders:write")
          assert.strictEqual(me.headers.get("ratelimit-limit"), "600")
        })
      )

      it.effect("gates: Enterprise plan, pilot enrolment, scopes, platform keys for key management", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const free = yield* createStore({ plan: "free" })
          const onFree = yield* call(base, "GET", "/v1/orders", { token: free.token })
          assert.strictEqual(onFree.status, 403)
          assert.strictEqual(onFree.body.error.code, "forbidden")

          const unenrolled = yield* createStore({ pilot: false })
          const notPilot = yield* call(base, "GET", "/v1/orders", { token: unenrolled.token })
          assert.strictEqual(notPilot.status, 403)
          assert.strictEqual(notPilot.body.error.message, "API is in pilot mode; key not enrolled")

          const admin = yield* Admin.Admin
          const app = yield* admin.createAppToken(free.id, ["orders:read"])
          const appToken = Redacted.value(app.token)
          const appRead = yield* call(base, "GET", "/v1/orders", { token: appToken })
          assert.strictEqual(appRead.status, 200, "an installed-app token works on any plan")
          const appWrite = yield* call(base, "POST", "/v1/orders", { token: appToken, key: key(), body: {} })
          assert.strictEqual(appWrite.status, 403)
          assert.strictEqual(appWrite.body.error.message, "Missing scope: orders:write")
          const appKeys = yield* call(base, "GET", "/v1/keys", { token: appToken })
          assert.strictEqual(appKeys.status, 403)
          const usage = yield* call(base, "GET", "/v1/usage", { token: appToken })
          assert.strictEqual(usage.body.error.message, "Missing scope: usage:read")
        })
      )

      it.effect("a public key is refused: 403 on key management (spec), 401 on every other keyed route", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const admin = yield* Admin.Admin
          const publicKey = yield* admin.createKey(store.id, "public")
          const headers = { authorization: `TW-Public ${publicKey.key_id}` }
          for (const [method, path] of [
            ["GET", "/v1/keys"],
            ["POST", "/v1/keys"],
            ["DELETE", `/v1/keys/${publicKey.key_id}`]
          ] as const) {
            const answer = yield* call(base, method, path, {
              headers,
              key: key(),
              ...(method === "POST" ? { body: {} } : {})
            })
            assert.deepStrictEqual(
              [answer.status, answer.body.error.code, answer.body.error.message],
              [403, "forbidden", "Key management requires a platform key"],
              `${method} ${path}`
            )
          }
          for (const path of ["/v1/whoami", "/v1/orders", "/v1/store", "/v1/usage"]) {
            const answer = yield* call(base, "GET", path, { headers })
            assert.strictEqual(answer.status, 401, path)
          }
        })
      )

      it.effect("usage history: from defaults to 7 days before now (Algiers time), whatever `to` says", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const history = (query: string) => call(base, "GET", `/v1/usage/history${query}`, { token: store.token })
          const weekAgo = Date.now() - 7 * 24 * 3_600_000
          const plain = yield* history("")
          assert.strictEqual(plain.status, 200)
          assert.isBelow(Math.abs(Date.parse(plain.body.data.from) - weekAgo), 60_000, plain.body.data.from)
          assert.isBelow(Math.abs(Date.parse(plain.body.data.to) - Date.now()), 60_000, plain.body.data.to)
          assert.match(plain.body.data.from, /\+01:00$/, "shown in Algiers time")
          const yesterday = new Date(Date.now() - 24 * 3_600_000).toISOString()
          const toYesterday = yield* history(`?to=${encodeURIComponent(yesterday)}`)
          assert.strictEqual(toYesterday.status, 200)
          assert.isBelow(Math.abs(Date.parse(toYesterday.body.data.from) - weekAgo), 60_000, "not 7 days before to")
          const longAgo = yield* history(`?to=${encodeURIComponent(new Date(weekAgo - 86_400_000).toISOString())}`)
          assert.deepStrictEqual(
            [longAgo.status, longAgo.body.error.message],
            [400, "from/to must be valid date strings, to >= from"]
          )
        })
      )

      it.effect("writes need an Idempotency-Key; replays answer the first answer; another body is 422", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const missing = yield* call(base, "POST", "/v1/products", { token: store.token, body: productBody })
          assert.strictEqual(missing.status, 400)
          assert.strictEqual(missing.body.error.code, "bad_request")
          const malformed = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: "a b",
            body: productBody
          })
          assert.strictEqual(malformed.status, 400)

          const k = key()
          const first = yield* call(base, "POST", "/v1/products", { token: store.token, key: k, body: productBody })
          assert.strictEqual(first.status, 200)
          assert.strictEqual(first.headers.get("x-api-version"), "v1")
          assert.strictEqual(first.headers.get("idempotency-replay"), null)
          const again = yield* call(base, "POST", "/v1/products", { token: store.token, key: k, body: productBody })
          assert.strictEqual(again.status, 200)
          assert.strictEqual(again.headers.get("idempotency-replay"), "1")
          assert.strictEqual(again.headers.get("x-api-version"), null)
          assert.strictEqual(again.text, first.text, "the first answer, byte for byte")
          assert.strictEqual(again.body.meta.request_id, first.headers.get("x-request-id"))
          assert.notStrictEqual(again.headers.get("x-request-id"), first.headers.get("x-request-id"))
          const list = yield* call(base, "GET", "/v1/products", { token: store.token })
          assert.strictEqual(list.body.data.items.length, 1, "the replay created nothing")

          const reused = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: k,
            body: { ...productBody, price: 1 }
          })
          assert.strictEqual(reused.status, 422)
          assert.strictEqual(reused.body.error.code, "idempotency_key_reuse")

          const invalid = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            raw: "{not json"
          })
          assert.strictEqual(invalid.status, 400)
          assert.strictEqual(invalid.body.error.message, "Body must be valid JSON")

          // A 4xx answer is stored too, and replayed.
          const refusedKey = key()
          const refused = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: refusedKey,
            body: { price: 1 }
          })
          assert.strictEqual(refused.status, 400)
          const refusedAgain = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: refusedKey,
            body: { price: 1 }
          })
          assert.strictEqual(refusedAgain.status, 400)
          assert.strictEqual(refusedAgain.headers.get("idempotency-replay"), "1")
          assert.deepStrictEqual(refusedAgain.body.error, refused.body.error)
        })
      )

      it.effect("read cache: 30 s per key for the store, product and landing-page lists; other GETs fresh", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const miss = yield* call(base, "GET", "/v1/products?limit=5", { token: store.token })
          assert.strictEqual(miss.headers.get("x-cache"), "MISS")
          assert.strictEqual(miss.headers.get("x-api-version"), "v1")
          yield* call(base, "POST", "/v1/products", { token: store.token, key: key(), body: productBody })
          const hit = yield* call(base, "GET", "/v1/products?limit=5", { token: store.token })
          assert.strictEqual(hit.headers.get("x-cache"), "HIT")
          assert.strictEqual(hit.headers.get("x-api-version"), null)
          assert.deepStrictEqual(hit.body.data, miss.body.data, "served from the cache, the new product not yet shown")
          assert.strictEqual(hit.body.meta.request_id, hit.headers.get("x-request-id"))
          const otherQuery = yield* call(base, "GET", "/v1/products?limit=6", { token: store.token })
          assert.strictEqual(otherQuery.headers.get("x-cache"), "MISS")
          assert.strictEqual(otherQuery.body.data.items.length, 1)
          const storeProfile = yield* call(base, "GET", "/v1/store", { token: store.token })
          assert.strictEqual(storeProfile.headers.get("x-cache"), "MISS")
          const orders = yield* call(base, "GET", "/v1/orders", { token: store.token })
          assert.strictEqual(orders.headers.get("x-cache"), null)
        })
      )

      it.effect(
        "orders: priced from the catalogue, moved through the state machine, stock committed and restored",
        () =>
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
                    price: 1,
                    variants: [
                      { group_name: "Taille", option_name: "XL", price_adjustment: 0 },
                      { group_name: "Emballage", option_name: "Cadeau", price_adjustment: 150.5 }
                    ]
                  }
                ],
                shipping_cost: 400,
                discount: 100
              }
            })
            assert.strictEqual(created.status, 200)
            const order = created.body.data
            assert.match(order.order_number, new RegExp(`^ORD-${store.id}-\\d{8}-[0-9A-F]{8}$`))
            assert.strictEqual(order.status, "pending")
            // 2 × (4500 + 500 catalogue + 150.5 sent) = 10301; + 400 − 100 = 10601
            assert.deepStrictEqual(order.amounts, {
              subtotal: 10301,
              shipping_cost: 400,
              discount: 100,
              payment_fee: 0,
              total: 10601
            })
            assert.deepStrictEqual(
              order.items[0].variants.map((v: { price_adjustment: string }) => v.price_adjustment),
              ["500.00", "150.50"]
            )
            assert.notProperty(order, "notes")

            const confirm = yield* call(base, "PATCH", `/v1/orders/${order.id}`, {
              token: store.token,
              key: key(),
              body: { status: "confirmed" }
            })
            assert.strictEqual(confirm.body.data.status, "confirmed")
            const db = yield* sql
            const stockAfterConfirm = yield* db<{ stock: number }>`SELECT stock FROM products WHERE id = ${product.id}`
            assert.strictEqual(stockAfterConfirm[0]!.stock, 8)

            const illegal = yield* call(base, "PATCH", `/v1/orders/${order.id}`, {
              token: store.token,
              key: key(),
              body: { status: "delivered" }
            })
            assert.strictEqual(illegal.status, 400)
            assert.strictEqual(
              illegal.body.error.message,
              "Transition confirmed -> delivered not allowed; allowed: processing, shipped, cancelled"
            )

            const cancelled = yield* call(base, "POST", `/v1/orders/${order.id}/cancel`, {
              token: store.token,
              key: key()
            })
            assert.strictEqual(cancelled.body.data.status, "cancelled")
            const stockAfterCancel = yield* db<{ stock: number }>`SELECT stock FROM products WHERE id = ${product.id}`
            assert.strictEqual(stockAfterCancel[0]!.stock, 10)

            const detail = yield* call(base, "GET", `/v1/orders/${order.id}`, { token: store.token })
            assert.strictEqual(detail.body.data.status, "cancelled")
            const listed = yield* call(base, "GET", `/v1/orders?customer_phone=${encodeURIComponent(customer.phone)}`, {
              token: store.token
            })
            assert.strictEqual(listed.body.data.items.length, 1)
            assert.strictEqual(listed.body.data.has_more, false)

            const badId = yield* call(base, "GET", "/v1/orders/12a", { token: store.token })
            assert.strictEqual(badId.status, 400)
            const unknown = yield* call(base, "GET", "/v1/orders/999999", { token: store.token })
            assert.strictEqual(unknown.status, 404)
            assert.strictEqual(unknown.body.error.code, "not_found")

            const invalid = yield* call(base, "POST", "/v1/orders", {
              token: store.token,
              key: key(),
              body: { customer: { ...customer, wilaya_id: 59 }, items: [{ product_id: product.id, quantity: 1 }] }
            })
            assert.strictEqual(invalid.status, 400)
            assert.strictEqual(invalid.body.error.message, "customer.wilaya_id must be 1-58")
          })
      )

      it.effect("customers: created by the first order, matched by phone, listed with their orders", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: productBody
          })).body.data
          for (const name of ["Amina", "Amina B."]) {
            const answer = yield* call(base, "POST", "/v1/orders", {
              token: store.token,
              key: key(),
              body: { customer: { ...customer, name }, items: [{ product_id: product.id, quantity: 1 }] }
            })
            assert.strictEqual(answer.status, 200)
          }
          const customers = yield* call(base, "GET", "/v1/customers", { token: store.token })
          assert.strictEqual(customers.body.data.items.length, 1)
          const one = customers.body.data.items[0]
          assert.strictEqual(one.first_name, "Amina B.")
          assert.strictEqual(one.total_orders, 0, "API orders never move the counters")
          const detail = yield* call(base, "GET", `/v1/customers/${one.id}`, { token: store.token })
          assert.strictEqual(detail.body.data.fraud_score, 0)
          const orders = yield* call(base, "GET", `/v1/customers/${one.id}/orders?limit=1`, { token: store.token })
          assert.strictEqual(orders.body.data.items.length, 1)
          assert.strictEqual(orders.body.data.has_more, true)
          const next = yield* call(
            base,
            "GET",
            `/v1/customers/${one.id}/orders?limit=1&cursor=${orders.body.data.next_cursor}`,
            { token: store.token }
          )
          assert.strictEqual(next.body.data.items.length, 1)
          assert.strictEqual(next.body.data.has_more, false)
          assert.notStrictEqual(next.body.data.items[0].id, orders.body.data.items[0].id)
        })
      )

      it.effect("landing pages, store profile, and PATCH /v1/store reserved", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const page = yield* call(base, "POST", "/v1/landing-pages", {
            token: store.token,
            key: key(),
            body: { title: "Promo Aïd", status: "weird", language: "xx" }
          })
          assert.strictEqual(page.status, 200)
          assert.strictEqual(page.body.data.status, "draft")
          assert.strictEqual(page.body.data.language, "ar")
          assert.strictEqual(page.body.data.section_count, 0)
          const published = yield* call(base, "POST", `/v1/landing-pages/${page.body.data.id}/publish`, {
            token: store.token,
            key: key()
          })
          assert.strictEqual(published.body.data.status, "active")
          const strict = yield* call(base, "PATCH", `/v1/landing-pages/${page.body.data.id}`, {
            token: store.token,
            key: key(),
            body: { status: "weird" }
          })
          assert.strictEqual(strict.body.error.message, "status must be active or draft")
          const deleted = yield* call(base, "DELETE", `/v1/landing-pages/${page.body.data.id}`, {
            token: store.token,
            key: key()
          })
          assert.deepStrictEqual(deleted.body.data, { deleted: true, id: page.body.data.id })

          const profile = yield* call(base, "GET", "/v1/store", { token: store.token })
          assert.strictEqual(profile.body.data.id, store.id)
          assert.match(profile.body.data.created_at, /\+01:00$/)
          const noKey = yield* call(base, "PATCH", "/v1/store", { token: store.token, body: { name: "x" } })
          assert.strictEqual(noKey.status, 400)
          const reserved = yield* call(base, "PATCH", "/v1/store", {
            token: store.token,
            key: key(),
            body: { name: "x" }
          })
          assert.strictEqual(reserved.status, 405)
          assert.strictEqual(reserved.body.error.code, "method_not_allowed")
        })
      )

      it.effect("keys: list, mint within 3 active, revoke", () =>
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
          assert.strictEqual(replayed.body.data.key_id, minted.body.data.key_id)
          assert.strictEqual(replayed.body.data.bearer_token, null, "a secret is shown once and never stored")
          const db = yield* sql
          const records = yield* db<{ body: string }>`SELECT body FROM idempotency_keys`
          assert.isFalse(records.some((record) => record.body.includes(minted.body.data.bearer_token.split(".")[1])))
          assert.match(minted.body.data.key_id, /^twpk_live_[a-z0-9]{14}$/)
          const mintedToken: string = minted.body.data.bearer_token
          const withMinted = yield* call(base, "GET", "/v1/whoami", { token: mintedToken })
          assert.strictEqual(withMinted.status, 200)
          const publicKey = yield* call(base, "POST", "/v1/keys", {
            token: store.token,
            key: key(),
            body: { type: "public" }
          })
          assert.strictEqual(publicKey.body.data.bearer_token, null)
          const fourth = yield* call(base, "POST", "/v1/keys", { token: store.token, key: key(), body: {} })
          assert.strictEqual(fourth.status, 400)
          const badType = yield* call(base, "POST", "/v1/keys", { token: store.token, key: key(), body: { type: "x" } })
          assert.strictEqual(badType.status, 400)

          const listed = yield* call(base, "GET", "/v1/keys", { token: store.token })
          assert.strictEqual(listed.body.data.items.length, 3)
          assert.notInclude(listed.text, mintedToken.split(".")[1]!)
          const revoked = yield* call(base, "DELETE", `/v1/keys/${minted.body.data.key_id}`, {
            token: store.token,
            key: key()
          })
          assert.deepStrictEqual(revoked.body.data, { revoked: true, key_id: minted.body.data.key_id })
          const after = yield* call(base, "GET", "/v1/keys", { token: store.token })
          assert.strictEqual(after.body.data.items.length, 2)
          const revokedToken = yield* call(base, "GET", "/v1/whoami", { token: mintedToken })
          assert.strictEqual(revokedToken.status, 401, "a revoked key stops working")
        })
      )

      it.effect("rate limit: the store's per-minute budget, 429 with Retry-After; monthly quota 402", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const admin = yield* Admin.Admin
          const limited = yield* createStore()
          yield* admin.setQuota(limited.id, { requestsPerMinute: 3 })
          // Start well inside a minute of the database clock, so the five calls share one window.
          const probe = yield* call(base, "GET", "/v1/ping")
          const second = new Date(probe.body.data.time).getUTCSeconds()
          if (second > 50) yield* Effect.sleep(`${61 - second} seconds`)
          const answers: Array<Answer> = []
          for (let i = 0; i < 5; i++) answers.push(yield* call(base, "GET", "/v1/orders", { token: limited.token }))
          assert.deepStrictEqual(
            answers.map((answer) => answer.status),
            [200, 200, 200, 429, 429]
          )
          assert.deepStrictEqual(
            answers.map((answer) => answer.headers.get("ratelimit-remaining")),
            ["2", "1", "0", "0", "0"]
          )
          const refused = answers[3]!
          assert.strictEqual(refused.body.error.code, "rate_limited")
          assert.isAtLeast(refused.body.error.retry_after, 1)
          assert.isAtMost(refused.body.error.retry_after, 60)
          assert.strictEqual(refused.headers.get("retry-after"), String(refused.body.error.retry_after))

          const monthly = yield* createStore()
          yield* admin.setQuota(monthly.id, { requestsPerMonth: 2 })
          const monthlyStatuses: Array<number> = []
          for (let i = 0; i < 3; i++)
            monthlyStatuses.push((yield* call(base, "GET", "/v1/orders", { token: monthly.token })).status)
          assert.deepStrictEqual(monthlyStatuses, [200, 200, 402])

          const usage = yield* call(base, "GET", "/v1/usage", { token: monthly.token })
          assert.strictEqual(usage.status, 402, "the quota holds on every endpoint")
        })
      )

      it.effect("usage counts every authenticated call before processing, not ping nor cache hits", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const empty = yield* call(base, "GET", "/v1/usage", { token: store.token })
          assert.strictEqual(empty.status, 200)
          assert.match(empty.body.data.period, /^\d{4}-\d{2}$/)
          assert.strictEqual(empty.body.data.tier, "enterprise")
          assert.strictEqual(empty.body.data.limits.requests_per_minute, 600)
          yield* call(base, "GET", "/v1/ping", { token: store.token })
          yield* call(base, "GET", "/v1/store", { token: store.token })
          yield* call(base, "GET", "/v1/store", { token: store.token }) // a cache hit
          yield* call(base, "POST", "/v1/orders", { token: store.token, key: key(), body: {} }) // a 400 counts
          const usage = yield* call(base, "GET", "/v1/usage", { token: store.token })
          // the first usage call, the store miss, the refused order, this call
          assert.deepStrictEqual(usage.body.data.usage.request, { total: 4, billable: 0 })
          const quotas = yield* call(base, "GET", "/v1/quotas", { token: store.token })
          assert.strictEqual(quotas.body.data.effective.requests_per_minute, 600)
          assert.strictEqual(quotas.body.data.overrides, null)
        })
      )

      it.effect("lists: limit clamped, malformed cursor dropped, invalid filters ignored, newest first", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: productBody
          })).body.data
          const ids: Array<number> = []
          for (let i = 0; i < 3; i++) {
            const created = yield* call(base, "POST", "/v1/orders", {
              token: store.token,
              key: key(),
              body: {
                customer: { ...customer, phone: `055500000${i}` },
                items: [{ product_id: product.id, quantity: 1 }]
              }
            })
            ids.push(created.body.data.id)
          }
          const newestFirst = [...ids].reverse()
          const page = (query: string) =>
            Effect.map(call(base, "GET", `/v1/orders${query}`, { token: store.token }), (answer) => answer.body.data)
          const first = yield* page("?limit=0")
          assert.deepStrictEqual(
            first.items.map((o: { id: number }) => o.id),
            [newestFirst[0]],
            "limit 0 is clamped to 1"
          )
          assert.isTrue(first.has_more)
          const rest = yield* page(`?limit=1&cursor=${first.next_cursor}`)
          assert.deepStrictEqual(
            rest.items.map((o: { id: number }) => o.id),
            [newestFirst[1]]
          )
          const all = yield* page("?limit=abc")
          assert.deepStrictEqual(
            all.items.map((o: { id: number }) => o.id),
            newestFirst,
            "a non-numeric limit is the default"
          )
          assert.strictEqual(all.next_cursor, null)
          const restarted = yield* page("?limit=500&cursor=%%%garbage")
          assert.deepStrictEqual(
            restarted.items.map((o: { id: number }) => o.id),
            newestFirst,
            "a malformed cursor restarts at the newest"
          )
          const ignored = yield* page("?status=lost&since=yesterday-ish")
          assert.strictEqual(ignored.items.length, 3, "invalid status and since are ignored")
          const pending = yield* page("?status=pending&since=2020-01-01T00:00:00Z")
          assert.strictEqual(pending.items.length, 3)
          const none = yield* page("?status=shipped")
          assert.strictEqual(none.items.length, 0)
          const customers = yield* call(base, "GET", "/v1/customers?phone=0555000001", { token: store.token })
          assert.strictEqual(customers.body.data.items.length, 1)

          const unknownRoute = yield* call(base, "GET", "/v1/nothing", { token: store.token })
          assert.strictEqual(unknownRoute.status, 404)
          assert.strictEqual(unknownRoute.body.error.code, "not_found")
          const wrongMethod = yield* call(base, "PUT", "/v1/orders", { token: store.token })
          assert.strictEqual(wrongMethod.status, 405)
          assert.strictEqual(wrongMethod.headers.get("allow"), "GET, HEAD, POST")
        })
      )

      it.effect("the Free plan's 30 orders a month hold for an installed app's orders", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const admin = yield* Admin.Admin
          const store = yield* createStore({ plan: "free" })
          const app = Redacted.value((yield* admin.createAppToken(store.id, ["products:write", "orders:write"])).token)
          const product = (yield* call(base, "POST", "/v1/products", { token: app, key: key(), body: productBody }))
            .body.data
          const body = { customer, items: [{ product_id: product.id, quantity: 1 }] }
          const statuses: Array<number> = []
          for (let i = 0; i < 31; i++) {
            statuses.push((yield* call(base, "POST", "/v1/orders", { token: app, key: key(), body })).status)
          }
          assert.deepStrictEqual(
            statuses.slice(0, 30),
            Array.from({ length: 30 }, () => 200)
          )
          const refused = yield* call(base, "POST", "/v1/orders", { token: app, key: key(), body })
          assert.strictEqual(refused.status, 400)
          assert.strictEqual(refused.body.error.message, "Monthly order limit reached for this store plan")
          assert.strictEqual(statuses[30], 400)
        })
      )

      it.effect("another store's data is never reachable (404)", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const a = yield* createStore()
          const b = yield* createStore()
          const product = (yield* call(base, "POST", "/v1/products", { token: a.token, key: key(), body: productBody }))
            .body.data
          const order = (yield* call(base, "POST", "/v1/orders", {
            token: a.token,
            key: key(),
            body: { customer, items: [{ product_id: product.id, quantity: 1 }] }
          })).body.data
          for (const path of [
            `/v1/orders/${order.id}`,
            `/v1/products/${product.id}`,
            `/v1/customers/${order.customer.id}`
          ]) {
            const answer = yield* call(base, "GET", path, { token: b.token })
            assert.strictEqual(answer.status, 404, path)
          }
          const foreignProduct = yield* call(base, "POST", "/v1/orders", {
            token: b.token,
            key: key(),
            body: { customer, items: [{ product_id: product.id, quantity: 1 }] }
          })
          assert.strictEqual(foreignProduct.status, 400)
          assert.strictEqual(foreignProduct.body.error.message, `Product ${product.id} does not belong to this store`)
          const move = yield* call(base, "PATCH", `/v1/orders/${order.id}`, {
            token: b.token,
            key: key(),
            body: { status: "confirmed" }
          })
          assert.strictEqual(move.status, 404)
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
