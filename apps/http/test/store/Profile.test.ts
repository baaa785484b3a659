/**
 * The store's profile through the store API in memory (`src/store/profile`): `GET /v1/store` (cached 30 s) and
 * `PATCH /v1/store`, reserved (405 in the envelope, 400 first without an `Idempotency-Key`).
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore } = InMemory

layer(InMemory.layer(), { excludeTestServices: true })("store profile (memory)", (it) => {
  it.effect("reads the store's profile in Algiers time, cached 30 s per key", () =>
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Maison Tlemcen", language: "fr" })
      const profile = yield* store.get("/v1/store")
      assert.strictEqual(profile.status, 200)
      assert.deepInclude(profile.body.data, {
        id: store.id,
        name: "Maison Tlemcen",
        slug: "maison-tlemcen",
        language: "fr",
        public_url: null,
        custom_domain_verified: false
      })
      assert.match(profile.body.data.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
      assert.deepStrictEqual([profile.headers.get("x-cache"), profile.headers.get("x-api-version")], ["MISS", "v1"])
      const hit = yield* store.get("/v1/store")
      assert.deepStrictEqual([hit.headers.get("x-cache"), hit.headers.get("x-api-version")], ["HIT", null])
      assert.strictEqual(hit.text.replace(/"request_id":"[^"]+"/, ""), profile.text.replace(/"request_id":"[^"]+"/, ""))
      assert.strictEqual(hit.body.meta.request_id, hit.headers.get("x-request-id"))
      // The gates before the cache: a store that lost its plan is refused, whatever is cached.
      yield* (yield* Admin.Admin).setPlan(store.id, "free").pipe(Effect.orDie)
      const refused = yield* store.get("/v1/store")
      assert.deepStrictEqual([...codeOf(refused), refused.headers.get("x-cache")], [403, "forbidden", null])
    })
  )

  it.effect("PATCH /v1/store is reserved: 405 in the envelope, 400 first without an Idempotency-Key", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const noKey = yield* call("PATCH", "/v1/store", { token: store.token, body: { name: "x" } })
      assert.deepStrictEqual(codeOf(noKey), [400, "bad_request"])
      const reserved = yield* store.write("PATCH", "/v1/store", { name: "x" })
      assert.deepStrictEqual(
        [...codeOf(reserved), reserved.body.error.message],
        [405, "method_not_allowed", "PATCH /v1/store is reserved; store settings cannot be written through the API yet"]
      )
      assert.strictEqual(reserved.body.meta.request_id, reserved.headers.get("x-request-id"))
      const origin = yield* call("PATCH", "/v1/store", { token: store.token, body: {}, listener: "origin" })
      assert.deepStrictEqual(codeOf(origin), [405, "method_not_allowed"], "the origin listener too, with no key")
      assert.strictEqual(
        (yield* store.get("/v1/store")).body.data.name,
        (yield* store.get("/v1/whoami")).body.data.store.name
      )
    })
  )
})
