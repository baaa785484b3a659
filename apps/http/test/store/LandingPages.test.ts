/**
 * Landing pages through the store API in memory (`src/store/landing-pages`): create with the spec's lenient
 * defaults, publish, strict PATCH, delete; a linked product of the store only; the `landing_pages:write` scope,
 * path ids, a replayed write and the 30-second cache of the list.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

layer(InMemory.layer(), { excludeTestServices: true })("landing pages (memory)", (it) => {
  it.effect("creates a draft (lenient status and language), publishes it, PATCH is strict, deletes it", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const page = yield* store.write("POST", "/v1/landing-pages", {
        title: "Promo Aïd",
        status: "weird",
        language: "xx"
      })
      assert.strictEqual(page.status, 200, page.text)
      assert.deepInclude(page.body.data, { title: "Promo Aïd", status: "draft", language: "ar", section_count: 0 })
      const id = page.body.data.id
      const read = yield* store.get(`/v1/landing-pages/${id}`)
      assert.deepStrictEqual(read.body.data, page.body.data)
      assert.strictEqual(read.headers.get("x-cache"), null, "one page is read fresh")
      const published = yield* store.write("POST", `/v1/landing-pages/${id}/publish`)
      assert.strictEqual(published.body.data.status, "active")
      const strict = yield* store.write("PATCH", `/v1/landing-pages/${id}`, { status: "weird" })
      assert.deepStrictEqual(
        [...codeOf(strict), strict.body.error.message],
        [400, "bad_request", "status must be active or draft"]
      )
      const renamed = yield* store.write("PATCH", `/v1/landing-pages/${id}`, { title: "Aïd Moubarak" })
      assert.deepInclude(renamed.body.data, { id, title: "Aïd Moubarak", status: "active" })
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/landing-pages", {})), [400, "bad_request"])
      const deleted = yield* store.write("DELETE", `/v1/landing-pages/${id}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id })
      assert.deepStrictEqual(codeOf(yield* store.get(`/v1/landing-pages/${id}`)), [404, "not_found"])
    })
  )

  it.effect("links a product of the store only; another store's page is 404", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const other = yield* createStore()
      const mine = (yield* store.write("POST", "/v1/products", { name: "Tapis", price: 9000 })).body.data
      const theirs = (yield* other.write("POST", "/v1/products", { name: "Burnous", price: 6000 })).body.data
      const linked = yield* store.write("POST", "/v1/landing-pages", { title: "Tapis", product_id: mine.id })
      assert.strictEqual(linked.body.data.product_id, mine.id)
      const foreign = yield* store.write("POST", "/v1/landing-pages", { title: "Burnous", product_id: theirs.id })
      assert.deepStrictEqual(
        [...codeOf(foreign), foreign.body.error.message],
        [400, "bad_request", `product_id ${theirs.id} does not belong to this store`]
      )
      const relinked = yield* store.write("PATCH", `/v1/landing-pages/${linked.body.data.id}`, {
        product_id: theirs.id
      })
      assert.deepStrictEqual(codeOf(relinked), [400, "bad_request"])
      for (const [method, path] of [
        ["GET", "/v1/landing-pages/:id"],
        ["PATCH", "/v1/landing-pages/:id"],
        ["POST", "/v1/landing-pages/:id/publish"],
        ["DELETE", "/v1/landing-pages/:id"]
      ] as const) {
        const at = (id: string) =>
          method === "GET" ? other.get(path.replace(":id", id)) : other.write(method, path.replace(":id", id), {})
        assert.deepStrictEqual(codeOf(yield* at(String(linked.body.data.id))), [404, "not_found"], method)
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
    })
  )

  it.effect("writes need landing_pages:write; a replay is the first answer; the list is cached 30 s", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const app = yield* InMemory.appToken(store.id, ["orders:read"])
      for (const [method, path] of [
        ["POST", "/v1/landing-pages"],
        ["PATCH", "/v1/landing-pages/1"],
        ["POST", "/v1/landing-pages/1/publish"],
        ["DELETE", "/v1/landing-pages/1"]
      ] as const) {
        const refused = yield* app.write(method, path, { title: "x" })
        assert.deepStrictEqual(
          [...codeOf(refused), refused.body.error.message],
          [403, "forbidden", "Missing scope: landing_pages:write"],
          `${method} ${path}`
        )
      }
      const miss = yield* store.get("/v1/landing-pages")
      assert.deepStrictEqual([miss.headers.get("x-cache"), miss.body.data.items.length], ["MISS", 0])
      const k = key()
      const first = yield* store.write("POST", "/v1/landing-pages", { title: "Soldes" }, k)
      const again = yield* store.write("POST", "/v1/landing-pages", { title: "Soldes" }, k)
      assert.deepStrictEqual([again.headers.get("idempotency-replay"), again.text], ["1", first.text])
      const hit = yield* store.get("/v1/landing-pages")
      assert.deepStrictEqual([hit.headers.get("x-cache"), hit.body.data.items.length], ["HIT", 0])
      const fresh = yield* store.get("/v1/landing-pages?status=draft")
      assert.deepStrictEqual([fresh.headers.get("x-cache"), fresh.body.data.items.length], ["MISS", 1])
    })
  )
})
