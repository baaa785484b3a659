/**
 * Products through the store API in memory (`src/store/products`): the answers' shapes, each failure it answers in
 * the envelope, the `products:write` scope, path ids; and, on its writes and its cached list, the pipeline every
 * write and cached read shares: the `Idempotency-Key` rules and replay, an unreadable body's refusal recorded under
 * its key, and the 30-second read cache.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore, key } = InMemory

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

layer(InMemory.layer(), { excludeTestServices: true })("products (memory)", (it) => {
  it.effect("creates, reads, lists, changes and deletes a product, each answer in the envelope", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const created = yield* store.write("POST", "/v1/products", productBody)
      assert.strictEqual(created.status, 200, created.text)
      const product = created.body.data
      assert.deepInclude(product, {
        name: "Robe kabyle",
        description: null,
        sku: null,
        price: 4500,
        compare_at_price: null,
        status: "active",
        digital: false,
        stock: 10,
        sales_count: 0
      })
      assert.deepStrictEqual(
        product.variant_groups.map((group: { name: string; options: Array<{ value: string }> }) => [
          group.name,
          group.options.map((option) => option.value)
        ]),
        [["Taille", ["M", "XL"]]]
      )
      assert.match(product.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      assert.deepStrictEqual(created.body.meta, { request_id: created.headers.get("x-request-id"), api_version: "v1" })
      assert.strictEqual(created.headers.get("x-api-version"), "v1")
      assert.strictEqual(created.headers.get("content-type"), "application/json")

      const read = yield* store.get(`/v1/products/${product.id}`)
      assert.deepStrictEqual(read.body.data, product)
      const list = yield* store.get("/v1/products")
      assert.deepStrictEqual(Object.keys(list.body.data), ["items", "next_cursor", "has_more"])
      assert.notProperty(list.body.data.items[0], "variant_groups", "a list item has no groups")

      const changed = yield* store.write("PATCH", `/v1/products/${product.id}`, { price: 5000, status: "draft" })
      assert.deepInclude(changed.body.data, { id: product.id, price: 5000, status: "draft", stock: 10 })
      const deleted = yield* store.write("DELETE", `/v1/products/${product.id}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: product.id })
      const gone = yield* store.get(`/v1/products/${product.id}`)
      assert.deepStrictEqual([...codeOf(gone), gone.body.error.message], [404, "not_found", "Product not found"])
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", `/v1/products/${product.id}`)), [404, "not_found"])
    })
  )

  it.effect("a body that breaks a rule is 400 with the rule; a path id is digits, and past any row is 404", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const noName = yield* store.write("POST", "/v1/products", { price: 1 })
      assert.deepStrictEqual(codeOf(noName), [400, "bad_request"])
      assert.strictEqual(noName.body.error.message, "name is required (1-255 chars)")
      assert.strictEqual(noName.body.meta.request_id, noName.headers.get("x-request-id"))
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/products", [1, 2])), [400, "bad_request"])
      const product = (yield* store.write("POST", "/v1/products", productBody)).body.data
      const badPatch = yield* store.write("PATCH", `/v1/products/${product.id}`, { price: -1 })
      assert.deepStrictEqual(codeOf(badPatch), [400, "bad_request"])

      for (const [method, path] of [
        ["GET", "/v1/products/:id"],
        ["PATCH", "/v1/products/:id"],
        ["DELETE", "/v1/products/:id"]
      ] as const) {
        const at = (id: string) =>
          method === "GET" ? store.get(path.replace(":id", id)) : store.write(method, path.replace(":id", id), {})
        const letters = yield* at("abc")
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"],
          `${method} abc`
        )
        for (const id of ["0", "2147483648", "99999999999999999999"]) {
          assert.deepStrictEqual(codeOf(yield* at(id)), [404, "not_found"], `${method} ${id}`)
        }
      }
      const other = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* other.get(`/v1/products/${product.id}`)), [404, "not_found"])
    })
  )

  it.effect("writes need products:write; reads need no scope", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const app = yield* InMemory.appToken(store.id, ["orders:read"])
      assert.strictEqual((yield* app.get("/v1/products")).status, 200)
      for (const [method, path] of [
        ["POST", "/v1/products"],
        ["PATCH", "/v1/products/1"],
        ["DELETE", "/v1/products/1"]
      ] as const) {
        const refused = yield* app.write(method, path, productBody)
        assert.deepStrictEqual(
          [...codeOf(refused), refused.body.error.message],
          [403, "forbidden", "Missing scope: products:write"],
          `${method} ${path}`
        )
      }
    })
  )

  it.effect("writes need an Idempotency-Key; replays answer the first answer; another body is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const missing = yield* call("POST", "/v1/products", { token: store.token, body: productBody })
      assert.deepStrictEqual(
        [...codeOf(missing), missing.body.error.message],
        [400, "bad_request", "Idempotency-Key header is required on POST, PATCH and DELETE"]
      )
      for (const malformed of ["a b", "", "x".repeat(65), "é"]) {
        const answer = yield* call("POST", "/v1/products", { token: store.token, key: malformed, body: productBody })
        assert.strictEqual(answer.status, 400, JSON.stringify(malformed))
      }

      const k = key()
      const first = yield* call("POST", "/v1/products", { token: store.token, key: k, body: productBody })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers.get("x-api-version"), "v1")
      assert.strictEqual(first.headers.get("idempotency-replay"), null)
      const again = yield* call("POST", "/v1/products", { token: store.token, key: k, body: productBody })
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.headers.get("idempotency-replay"), "1")
      assert.strictEqual(again.headers.get("x-api-version"), null)
      assert.strictEqual(again.text, first.text, "the first answer, byte for byte")
      // One request id in header and body: the first answer's (every endpoint's replay: Replays.test.ts).
      assert.strictEqual(again.body.meta.request_id, first.headers.get("x-request-id"))
      assert.strictEqual(again.headers.get("x-request-id"), first.headers.get("x-request-id"))
      const list = yield* store.get("/v1/products")
      assert.strictEqual(list.body.data.items.length, 1, "the replay created nothing")

      const reused = yield* call("POST", "/v1/products", {
        token: store.token,
        key: k,
        body: { ...productBody, price: 1 }
      })
      assert.deepStrictEqual(codeOf(reused), [422, "idempotency_key_reuse"])
      const otherPath = yield* call("PATCH", `/v1/products/${first.body.data.id}`, {
        token: store.token,
        key: k,
        body: productBody
      })
      assert.deepStrictEqual(codeOf(otherPath), [422, "idempotency_key_reuse"], "the key is the store's, any path")

      // A 4xx answer is stored too, and replayed.
      const refusedKey = key()
      const refused = yield* call("POST", "/v1/products", { token: store.token, key: refusedKey, body: { price: 1 } })
      assert.strictEqual(refused.status, 400)
      const refusedAgain = yield* call("POST", "/v1/products", {
        token: store.token,
        key: refusedKey,
        body: { price: 1 }
      })
      assert.deepStrictEqual([refusedAgain.status, refusedAgain.headers.get("idempotency-replay")], [400, "1"])
      assert.strictEqual(refusedAgain.text, refused.text)

      // Keys are the store's: another store's same key is a new request.
      const other = yield* createStore()
      const elsewhere = yield* call("POST", "/v1/products", { token: other.token, key: k, body: productBody })
      assert.deepStrictEqual([elsewhere.status, elsewhere.headers.get("idempotency-replay")], [200, null])
    })
  )

  it.effect("an unreadable body under a key is 400, replayed; the same key with the body corrected is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const k = key()
      const invalid = yield* call("POST", "/v1/products", { token: store.token, key: k, raw: "{not json" })
      assert.deepStrictEqual(
        [...codeOf(invalid), invalid.body.error.message],
        [400, "bad_request", "Body must be valid JSON"]
      )
      const again = yield* call("POST", "/v1/products", { token: store.token, key: k, raw: "{not json" })
      assert.deepStrictEqual([again.status, again.headers.get("idempotency-replay")], [400, "1"])
      assert.strictEqual(again.text, invalid.text, "the first answer, byte for byte")
      const corrected = yield* call("POST", "/v1/products", { token: store.token, key: k, body: productBody })
      assert.deepStrictEqual(codeOf(corrected), [422, "idempotency_key_reuse"])
      assert.strictEqual((yield* store.get("/v1/products?limit=7")).body.data.items.length, 0, "nothing written")

      const deep = yield* call("POST", "/v1/products", {
        token: store.token,
        key: key(),
        raw: `${"[".repeat(40)}${"]".repeat(40)}`
      })
      assert.deepStrictEqual(
        [...codeOf(deep), deep.body.error.message],
        [400, "bad_request", "Body nests deeper than 32 levels"]
      )
    })
  )

  it.effect("read cache: 30 s per key for the product list; the store and landing pages too, other GETs fresh", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const miss = yield* store.get("/v1/products?limit=5")
      assert.strictEqual(miss.headers.get("x-cache"), "MISS")
      assert.strictEqual(miss.headers.get("x-api-version"), "v1")
      yield* store.write("POST", "/v1/products", productBody)
      const hit = yield* store.get("/v1/products?limit=5")
      assert.strictEqual(hit.headers.get("x-cache"), "HIT")
      assert.strictEqual(hit.headers.get("x-api-version"), null)
      assert.deepStrictEqual(hit.body.data, miss.body.data, "served from the cache, the new product not yet shown")
      assert.strictEqual(hit.body.meta.request_id, hit.headers.get("x-request-id"))
      const otherQuery = yield* store.get("/v1/products?limit=6")
      assert.strictEqual(otherQuery.headers.get("x-cache"), "MISS")
      assert.strictEqual(otherQuery.body.data.items.length, 1)
      const otherKey = yield* InMemory.keyWithScopes(store.id, ["products:write"])
      const ownEntry = yield* otherKey.get("/v1/products?limit=5")
      assert.deepStrictEqual(
        [ownEntry.headers.get("x-cache"), ownEntry.body.data.items.length],
        ["MISS", 1],
        "each key has its own entries"
      )
      assert.strictEqual((yield* store.get("/v1/store")).headers.get("x-cache"), "MISS")
      assert.strictEqual((yield* store.get("/v1/landing-pages")).headers.get("x-cache"), "MISS")
      const product = yield* store.get(`/v1/products/${otherQuery.body.data.items[0].id}`)
      assert.strictEqual(product.headers.get("x-cache"), null, "one product is read fresh")
      assert.strictEqual((yield* store.get("/v1/orders")).headers.get("x-cache"), null)
    })
  )

  it.effect("a cached answer is never given to a key the gates now refuse", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const second = yield* InMemory.keyWithScopes(store.id, ["products:write"])
      assert.strictEqual((yield* second.get("/v1/products")).headers.get("x-cache"), "MISS")
      assert.strictEqual((yield* second.get("/v1/products")).headers.get("x-cache"), "HIT")
      const keyId = second.token.split(".")[0]
      const revoked = yield* store.write("DELETE", `/v1/keys/${keyId}`)
      assert.strictEqual(revoked.status, 200)
      const afterRevoke = yield* second.get("/v1/products")
      assert.deepStrictEqual([...codeOf(afterRevoke), afterRevoke.headers.get("x-cache")], [401, "unauthorized", null])

      assert.strictEqual((yield* store.get("/v1/products")).headers.get("x-cache"), "MISS")
      assert.strictEqual((yield* store.get("/v1/products")).headers.get("x-cache"), "HIT")
      yield* (yield* Admin.Admin).setPlan(store.id, "pro").pipe(Effect.orDie)
      const afterPlan = yield* store.get("/v1/products")
      assert.deepStrictEqual(
        [...codeOf(afterPlan), afterPlan.body.error.message, afterPlan.headers.get("x-cache")],
        [403, "forbidden", "API access requires an active Enterprise plan", null]
      )
    })
  )

  it.effect("on the origin listener: no Idempotency-Key needed, no replay, no per-minute limit, no read cache", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: 1 }).pipe(Effect.orDie)
      const body = { name: "Tapis", price: 9000 }
      const origin = (method: string, path: string, k?: string) =>
        call(method, path, {
          token: store.token,
          key: k,
          body: method === "GET" ? undefined : body,
          listener: "origin"
        })
      const first = yield* origin("POST", "/v1/products")
      const second = yield* origin("POST", "/v1/products", "same")
      const third = yield* origin("POST", "/v1/products", "same")
      assert.deepStrictEqual(
        [first.status, second.status, third.status],
        [200, 200, 200],
        "over a 1-per-minute budget, and with a repeated key"
      )
      assert.strictEqual(third.headers.get("idempotency-replay"), null)
      assert.notStrictEqual(second.body.data.id, third.body.data.id, "no replay: each call writes")
      for (const list of [yield* origin("GET", "/v1/products"), yield* origin("GET", "/v1/products")]) {
        assert.strictEqual(list.status, 200)
        assert.strictEqual(list.headers.get("x-cache"), null)
        assert.strictEqual(list.headers.get("ratelimit-limit"), null)
        assert.strictEqual(list.body.data.items.length, 3)
      }
      const bad = yield* call("POST", "/v1/products", { token: store.token, raw: "{", listener: "origin" })
      assert.deepStrictEqual(codeOf(bad), [400, "bad_request"], "the body is still read")
    })
  )
})
