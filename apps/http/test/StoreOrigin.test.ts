/**
 * The store API's origin listener (the spec's alias host, `STORE_ORIGIN_PORT`): the same endpoints and keys, but no
 * idempotent replay (writes need no `Idempotency-Key` and each call writes), no per-minute limit and no read cache.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect } from "effect"
import { backends, baseUrl, call, createStore, originServer } from "./StoreHarness.ts"

for (const backend of backends) {
  layer(originServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API origin listener (${backend.name})`,
    (it) => {
      it.effect("writes without Idempotency-Key and without replay; no per-minute limit; no read cache", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const admin = yield* Admin.Admin
          yield* admin.setQuota(store.id, { requestsPerMinute: 1 })
          const body = { name: "Tapis", price: 9000 }
          const first = yield* call(base, "POST", "/v1/products", { token: store.token, body })
          const second = yield* call(base, "POST", "/v1/products", { token: store.token, key: "same", body })
          const third = yield* call(base, "POST", "/v1/products", { token: store.token, key: "same", body })
          assert.deepStrictEqual(
            [first.status, second.status, third.status],
            [200, 200, 200],
            "over a 1-per-minute budget, and with a repeated key"
          )
          assert.strictEqual(third.headers.get("idempotency-replay"), null)
          assert.notStrictEqual(second.body.data.id, third.body.data.id, "no replay: each call writes")
          const lists = [
            yield* call(base, "GET", "/v1/products", { token: store.token }),
            yield* call(base, "GET", "/v1/products", { token: store.token })
          ]
          for (const list of lists) {
            assert.strictEqual(list.headers.get("x-cache"), null)
            assert.strictEqual(list.headers.get("ratelimit-limit"), null)
            assert.strictEqual(list.body.data.items.length, 3)
          }
          const reserved = yield* call(base, "PATCH", "/v1/store", { token: store.token, body: {} })
          assert.strictEqual(reserved.status, 405)
          const unauthenticated = yield* call(base, "GET", "/v1/orders", {
            headers: { authorization: "TW-Public twpub_live_abcdefghijklm" }
          })
          assert.strictEqual(unauthenticated.status, 401)
        })
      )
    }
  )
}
