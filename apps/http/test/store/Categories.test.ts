/**
 * Categories through the store API in memory (`src/store/categories`; docs/store-api-config.md "Categories"): scopes
 * on every route and in the change history, shapes, every refusal, path ids, the products' `category_ids` and the
 * list filter, replay, and the change history: a write listed, its detail, its undo and the undo's undo.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore, key } = InMemory

/** The newest change of the store. */
const newest = (c: InMemory.Caller) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/** What a category answer shows, without the times every write moves. */
const shown = ({ created_at: _, updated_at: __, ...rest }: Record<string, unknown>) => rest

layer(InMemory.layer(), { excludeTestServices: true })("categories (memory)", (it) => {
  it.effect("creates (201), reads, lists newest first, changes and deletes a category, in the envelope", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const created = yield* store.write("POST", "/v1/categories", {
        name: "Robes kabyles",
        description: "Faites main à Tizi Ouzou",
        image: "categories/robes.webp"
      })
      assert.strictEqual(created.status, 201, created.text)
      const robes = created.body.data
      assert.deepStrictEqual(shown(robes), {
        id: robes.id,
        name: "Robes kabyles",
        slug: "robes-kabyles",
        description: "Faites main à Tizi Ouzou",
        image: "categories/robes.webp",
        parent_id: null,
        position: 0,
        product_count: 0
      })
      assert.match(robes.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const child = (yield* store.write("POST", "/v1/categories", { name: "Caftans", parent_id: robes.id })).body.data
      assert.deepInclude(child, { parent_id: robes.id, position: 1, slug: "caftans" })
      const read = yield* store.get(`/v1/categories/${robes.id}`)
      assert.deepStrictEqual([read.status, read.body.data], [200, robes])
      assert.strictEqual(read.headers.get("x-cache"), null, "never cached")
      const list = yield* store.get("/v1/categories?limit=1")
      assert.deepStrictEqual(
        [list.body.data.items.map((item: { id: number }) => item.id), list.body.data.has_more],
        [[child.id], true]
      )
      const rest = yield* store.get(`/v1/categories?limit=1&cursor=${list.body.data.next_cursor}`)
      assert.deepStrictEqual(
        rest.body.data.items.map((item: { id: number }) => item.id),
        [robes.id]
      )
      assert.strictEqual((yield* store.get("/v1/categories?limit=999")).body.data.items.length, 2)
      const patched = yield* store.write("PATCH", `/v1/categories/${robes.id}`, { name: "Robes d'été", position: 5 })
      assert.deepInclude(patched.body.data, { name: "Robes d'été", slug: "robes-d-ete", position: 5 })
      const refused = yield* store.write("DELETE", `/v1/categories/${robes.id}`)
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [409, "has_subcategories", "Category Robes d'été has 1 subcategory: move or delete them first"]
      )
      const deleted = yield* store.write("DELETE", `/v1/categories/${child.id}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: child.id })
      assert.deepStrictEqual(codeOf(yield* store.get(`/v1/categories/${child.id}`)), [404, "not_found"])
    })
  )

  it.effect("refuses bad bodies with 400 and the field's message; path ids; another store's category is 404", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const other = yield* createStore()
      const theirs = (yield* other.write("POST", "/v1/categories", { name: "Ailleurs" })).body.data
      for (const [body, message] of [
        [{}, "name is required (1-255 chars)"],
        [{ name: "Ro\u0000be" }, "name is required (1-255 chars)"],
        [{ name: "\ud800" }, "name is required (1-255 chars)"],
        [{ name: "R", description: "\udfff" }, "description must be a string of at most 5000 chars or null"],
        [
          { name: "R", image: "https://cdn.example/x.png" },
          "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"
        ],
        [{ name: "R", position: 1e308 }, "position must be an integer from 0 to 2147483647"],
        [{ name: "R", position: 2 ** 53 }, "position must be an integer from 0 to 2147483647"],
        [{ name: "R", parent_id: theirs.id }, `parent_id: category ${theirs.id} does not belong to this store`],
        [[1], "Body must be a JSON object"]
      ] as const) {
        const answer = yield* store.write("POST", "/v1/categories", body)
        assert.deepStrictEqual([...codeOf(answer), answer.body.error.message], [400, "bad_request", message])
      }
      const malformed = yield* call("POST", "/v1/categories", { token: store.token, key: key(), raw: "{" })
      assert.deepStrictEqual(codeOf(malformed), [400, "bad_request"])
      for (const path of [`/v1/categories/${theirs.id}`, "/v1/categories/0", "/v1/categories/99999999999"]) {
        assert.deepStrictEqual(codeOf(yield* store.get(path)), [404, "not_found"])
        assert.deepStrictEqual(codeOf(yield* store.write("PATCH", path, { name: "X" })), [404, "not_found"])
        assert.deepStrictEqual(codeOf(yield* store.write("DELETE", path)), [404, "not_found"])
      }
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/categories/1x")), [400, "bad_request"])
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", "/v1/categories/-1")), [400, "bad_request"])
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/categories", { name: "X" }, "")), [
        400,
        "bad_request"
      ])
      assert.deepStrictEqual((yield* store.get("/v1/categories")).body.data.items, [])
    })
  )

  it.effect("scopes: products:read to read, products:write to write; a change's detail and undo need them too", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const category = (yield* store.write("POST", "/v1/categories", { name: "Robes" })).body.data
      const change = yield* newest(store)
      const writeOnly = yield* InMemory.keyWithScopes(store.id, ["products:write", "store:read"])
      const readOnly = yield* InMemory.keyWithScopes(store.id, ["products:read", "store:read"])
      const forbidden = (answer: InMemory.Answer) => [...codeOf(answer), answer.body.error.message]
      assert.deepStrictEqual(forbidden(yield* writeOnly.get("/v1/categories")), [
        403,
        "forbidden",
        "Missing scope: products:read"
      ])
      assert.deepStrictEqual(
        forbidden(yield* writeOnly.get(`/v1/categories/${category.id}`))[2],
        "Missing scope: products:read"
      )
      assert.deepStrictEqual(forbidden(yield* readOnly.write("POST", "/v1/categories", { name: "X" })), [
        403,
        "forbidden",
        "Missing scope: products:write"
      ])
      assert.deepStrictEqual(
        forbidden(yield* readOnly.write("DELETE", `/v1/categories/${category.id}`))[2],
        "Missing scope: products:write"
      )
      assert.deepStrictEqual(
        forbidden(yield* writeOnly.get(`/v1/changes/${change.id}`))[2],
        "Missing scope: products:read"
      )
      assert.strictEqual((yield* readOnly.get(`/v1/changes/${change.id}`)).status, 200)
      yield* store.write("PATCH", `/v1/categories/${category.id}`, { name: "Caftans" })
      const update = yield* newest(store)
      assert.deepStrictEqual(
        forbidden(yield* readOnly.write("POST", `/v1/changes/${update.id}/undo`))[2],
        "Missing scope: products:write"
      )
      // A store holds 3 active keys: these two make room for the next.
      for (const narrow of [writeOnly, readOnly]) {
        yield* store.write("DELETE", `/v1/keys/${narrow.token.split(".")[0]}`)
      }
      // The undo needs products:write only, not store:read.
      const undoOnly = yield* InMemory.keyWithScopes(store.id, ["products:write"])
      assert.strictEqual((yield* undoOnly.write("POST", `/v1/changes/${update.id}/undo`)).status, 200)
      // A key minted through POST /v1/keys carries the core defaults, products:read and products:write among them.
      const minted = yield* InMemory.apiKey(store)
      assert.strictEqual((yield* minted.get("/v1/categories")).status, 200)
      // Installed-app tokens meet the scopes they were given, and never the change history.
      const app = yield* InMemory.appToken(store.id, ["products:read", "products:write", "store:read"])
      assert.strictEqual((yield* app.write("POST", "/v1/categories", { name: "App" })).status, 201)
      assert.deepStrictEqual(codeOf(yield* app.get(`/v1/changes/${change.id}`)), [403, "forbidden"])
    })
  )

  it.effect("products name their categories; the product list filters on one; a delete takes its products out", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const a = (yield* store.write("POST", "/v1/categories", { name: "A" })).body.data
      const b = (yield* store.write("POST", "/v1/categories", { name: "B" })).body.data
      const made = yield* store.write("POST", "/v1/products", { name: "Robe", price: 4500, category_ids: [b.id, a.id] })
      assert.strictEqual(made.status, 200, made.text)
      const product = made.body.data
      assert.deepStrictEqual(product.category_ids, [a.id, b.id])
      yield* store.write("POST", "/v1/products", { name: "Tapis", price: 9000 })
      const bad = yield* store.write("POST", "/v1/products", { name: "X", price: 1, category_ids: [a.id, 987654] })
      assert.deepStrictEqual(
        [...codeOf(bad), bad.body.error.message],
        [400, "bad_request", "category_ids[1]: category 987654 does not belong to this store"]
      )
      const inA = yield* store.get(`/v1/products?category_id=${a.id}`)
      assert.deepStrictEqual(
        inA.body.data.items.map((item: { id: number; category_ids: Array<number> }) => [item.id, item.category_ids]),
        [[product.id, [a.id, b.id]]]
      )
      assert.strictEqual((yield* store.get(`/v1/categories/${a.id}`)).body.data.product_count, 1)
      yield* store.write("DELETE", `/v1/categories/${a.id}`)
      assert.deepStrictEqual((yield* store.get(`/v1/products/${product.id}`)).body.data.category_ids, [b.id])
      // Without category_ids, a product PATCH leaves them; with, it replaces them.
      yield* store.write("PATCH", `/v1/products/${product.id}`, { name: "Robe longue" })
      assert.deepStrictEqual((yield* store.get(`/v1/products/${product.id}`)).body.data.category_ids, [b.id])
      const cleared = yield* store.write("PATCH", `/v1/products/${product.id}`, { category_ids: [] })
      assert.deepStrictEqual(cleared.body.data.category_ids, [])
    })
  )

  it.effect(
    "a write is listed, its detail shows before and after, its undo restores it and the undo's undo again",
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const category = (yield* store.write("POST", "/v1/categories", { name: "Robes", image: "c/robes.webp" })).body
          .data
        const created = yield* newest(store)
        assert.deepInclude(created, {
          entity: "category",
          entity_id: String(category.id),
          action: "create",
          summary: "Created category Robes",
          undone: false
        })
        const product = (yield* store.write("POST", "/v1/products", {
          name: "P",
          price: 1,
          category_ids: [category.id]
        })).body.data
        yield* store.write("PATCH", `/v1/categories/${category.id}`, { name: "Caftans", description: "Soie" })
        const update = yield* newest(store)
        assert.deepInclude(update, { action: "update", summary: "Updated category Caftans (name, slug, description)" })
        const detail = (yield* store.get(`/v1/changes/${update.id}`)).body.data
        // The fields it changed, with the category's id (the products in it did not change: not recorded).
        assert.isDefined(product)
        assert.deepStrictEqual(detail.before, { id: category.id, name: "Robes", slug: "robes", description: null })
        assert.deepStrictEqual(detail.after, { id: category.id, name: "Caftans", slug: "caftans", description: "Soie" })
        assert.strictEqual(detail.key_id, store.keyId)
        const undone = yield* store.write("POST", `/v1/changes/${update.id}/undo`)
        assert.deepInclude(undone.body.data, { undone: true, change_id: update.id, entity: "category" })
        assert.deepInclude((yield* store.get(`/v1/categories/${category.id}`)).body.data, {
          name: "Robes",
          slug: "robes",
          description: null
        })
        assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/changes/${update.id}/undo`)), [
          409,
          "already_undone"
        ])
        yield* store.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
        assert.deepInclude((yield* store.get(`/v1/categories/${category.id}`)).body.data, {
          name: "Caftans",
          slug: "caftans"
        })
        // A position move is not recorded.
        yield* store.write("PATCH", `/v1/categories/${category.id}`, { position: 3 })
        assert.strictEqual((yield* newest(store)).summary, `Undo of change #${undone.body.data.undo_change_id}`)
        // A delete's undo: same id, no image, its product back in it; that undo's undo has nothing to restore.
        yield* store.write("DELETE", `/v1/categories/${category.id}`)
        const deletion = yield* newest(store)
        assert.deepInclude(deletion, { action: "delete", summary: "Deleted category Caftans" })
        const back = yield* store.write("POST", `/v1/changes/${deletion.id}/undo`)
        assert.strictEqual(back.status, 200, back.text)
        assert.deepInclude((yield* store.get(`/v1/categories/${category.id}`)).body.data, {
          id: category.id,
          name: "Caftans",
          image: null,
          product_count: 1,
          created_at: category.created_at
        })
        assert.deepStrictEqual((yield* store.get(`/v1/products/${product.id}`)).body.data.category_ids, [category.id])
        assert.deepStrictEqual(
          codeOf(yield* store.write("POST", `/v1/changes/${back.body.data.undo_change_id}/undo`)),
          [422, "nothing_to_restore"]
        )
        assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/changes/${created.id}/undo`)), [
          422,
          "nothing_to_restore"
        ])
        assert.strictEqual((yield* store.get("/v1/changes?entity=category")).body.data.items.length, 6)
      })
  )

  it.effect("a write replays its first answer for its Idempotency-Key; another body under it is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const k = key()
      const first = yield* store.write("POST", "/v1/categories", { name: "Robes" }, k)
      const again = yield* store.write("POST", "/v1/categories", { name: "Robes" }, k)
      assert.deepStrictEqual(
        [again.status, again.headers.get("idempotency-replay"), again.text],
        [201, "1", first.text]
      )
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/categories", { name: "Autre" }, k)), [
        422,
        "idempotency_key_reuse"
      ])
      const refusedKey = key()
      const refused = yield* store.write("DELETE", "/v1/categories/424242", undefined, refusedKey)
      const replayed = yield* store.write("DELETE", "/v1/categories/424242", undefined, refusedKey)
      assert.deepStrictEqual([replayed.status, replayed.text], [404, refused.text])
      assert.strictEqual((yield* store.get("/v1/categories")).body.data.items.length, 1)
    })
  )
})
