/**
 * Stock through the store API in memory (`src/store/stock`; docs/store-api-config.md "Stock"): the read and the
 * write, their scopes, every refusal and the huge numbers, path ids, replay; the change history (a write listed, its
 * detail, its undo and the undo's undo); and, on `TestClock` time, the cached product list catching up 30 s after a
 * write or an undo while the stock read is fresh at once. Orders committing stock and the races are socket tests
 * (`../catalogue/`), on both databases.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

const dress = {
  name: "Robe kabyle",
  price: 4500,
  stock: 40,
  variant_groups: [
    {
      name: "Taille",
      type: "text",
      options: [
        { value: "M", stock: 10 },
        { value: "XL", stock: 5 }
      ]
    },
    { name: "Couleur", type: "color", options: [{ value: "Rouge", color_code: "#f00" }] }
  ]
}

/** The newest change of the store. */
const newest = (c: InMemory.Caller) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/** Quantities by name, as `GET /v1/products/{id}/stock` shows them. */
const levels = (c: InMemory.Caller, id: number) =>
  Effect.map(c.get(`/v1/products/${id}/stock`), (answer) =>
    Object.fromEntries([
      ["product", answer.body.data.stock],
      ...answer.body.data.variants.map((variant: { group_name: string; option_name: string; stock: number | null }) => [
        `${variant.group_name}/${variant.option_name}`,
        variant.stock
      ])
    ])
  )

layer(InMemory.layer(), { excludeTestServices: true })("stock (memory)", (it) => {
  it.effect("reads and sets a product's stock: absolutely, by a difference, options by id or by name", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", dress)).body.data
      const [m, xl, red] = product.variant_groups.flatMap((group: { options: Array<{ id: number }> }) =>
        group.options.map((option) => option.id)
      )
      const read = yield* store.get(`/v1/products/${product.id}/stock`)
      assert.deepStrictEqual(read.body.data, {
        product_id: product.id,
        stock: 40,
        variants: [
          { option_id: m, group_name: "Taille", option_name: "M", stock: 10 },
          { option_id: xl, group_name: "Taille", option_name: "XL", stock: 5 },
          { option_id: red, group_name: "Couleur", option_name: "Rouge", stock: null }
        ]
      })
      assert.strictEqual(read.headers.get("x-cache"), null, "never cached")
      const set = yield* store.write("POST", `/v1/products/${product.id}/stock`, {
        adjust: -2,
        variants: [
          { option_id: m, stock: 12 },
          { group_name: "Taille", option_name: "XL", adjust: -10 },
          { option_id: red, stock: 3 }
        ]
      })
      assert.strictEqual(set.status, 200, set.text)
      assert.deepStrictEqual(yield* levels(store, product.id), {
        product: 38,
        "Taille/M": 12,
        "Taille/XL": 0,
        "Couleur/Rouge": 3
      })
      assert.deepStrictEqual(set.body.data, (yield* store.get(`/v1/products/${product.id}/stock`)).body.data)
      // The product's detail reads the same numbers.
      const detail = (yield* store.get(`/v1/products/${product.id}`)).body.data
      assert.deepStrictEqual(
        [detail.stock, detail.variant_groups[0].options.map((option: { stock: number }) => option.stock)],
        [38, [12, 0]]
      )
    })
  )

  it.effect("refuses bad bodies with 400 and the field's message, huge numbers included; 404 and path ids", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const other = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", dress)).body.data
      const path = `/v1/products/${product.id}/stock`
      for (const [body, message] of [
        [{}, "Body must set stock, adjust or variants"],
        [{ stock: 1e308 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: 2 ** 53 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: -1 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ adjust: -1e308 }, "adjust must be an integer from -2147483647 to 2147483647"],
        [{ stock: 1, adjust: 1 }, "adjust cannot be sent with stock: send one or the other"],
        [
          { variants: [{ group_name: "Tai\u0000lle", option_name: "M", stock: 1 }] },
          "variants[0].group_name must be a string of 1-100 chars"
        ],
        [
          { variants: [{ group_name: "Taille", option_name: "\ud800", stock: 1 }] },
          "variants[0].option_name must be a string of 1-255 chars"
        ],
        [
          { variants: [{ group_name: "Taille", option_name: "S", stock: 1 }] },
          "variants[0] names no option of this product"
        ],
        [
          { variants: [{ group_name: "Couleur", option_name: "Rouge", adjust: 2 }] },
          "variants[0].adjust needs a tracked quantity: set stock first"
        ]
      ] as const) {
        const answer = yield* store.write("POST", path, body)
        assert.deepStrictEqual([...codeOf(answer), answer.body.error.message], [400, "bad_request", message])
      }
      assert.deepStrictEqual(codeOf(yield* other.get(path)), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* other.write("POST", path, { stock: 1 })), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/products/0/stock")), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/products/99999999999/stock", { stock: 1 })), [
        404,
        "not_found"
      ])
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/products/x/stock")), [400, "bad_request"])
      yield* store.write("DELETE", `/v1/products/${product.id}`)
      assert.deepStrictEqual(codeOf(yield* store.write("POST", path, { stock: 1 })), [404, "not_found"])
      assert.deepStrictEqual((yield* store.get("/v1/changes")).body.data.items, [])
    })
  )

  it.effect("scopes: products:read to read, products:write to write and to undo; replay of a write", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", dress)).body.data
      const path = `/v1/products/${product.id}/stock`
      const writeOnly = yield* InMemory.keyWithScopes(store.id, ["products:write"])
      const readOnly = yield* InMemory.keyWithScopes(store.id, ["products:read", "store:read"])
      assert.strictEqual((yield* writeOnly.get(path)).body.error.message, "Missing scope: products:read")
      assert.strictEqual(
        (yield* readOnly.write("POST", path, { stock: 1 })).body.error.message,
        "Missing scope: products:write"
      )
      const k = key()
      const first = yield* writeOnly.write("POST", path, { adjust: -1 }, k)
      const again = yield* writeOnly.write("POST", path, { adjust: -1 }, k)
      assert.deepStrictEqual([again.headers.get("idempotency-replay"), again.text], ["1", first.text])
      assert.strictEqual((yield* readOnly.get(path)).body.data.stock, 39, "one adjustment, not two")
      const change = yield* newest(store)
      assert.strictEqual((yield* readOnly.get(`/v1/changes/${change.id}`)).status, 200)
      assert.strictEqual(
        (yield* readOnly.write("POST", `/v1/changes/${change.id}/undo`)).body.error.message,
        "Missing scope: products:write"
      )
      assert.strictEqual((yield* writeOnly.write("POST", `/v1/changes/${change.id}/undo`)).status, 200)
      assert.strictEqual((yield* readOnly.get(path)).body.data.stock, 40)
    })
  )

  it.effect("a write is listed, its detail shows what changed, its undo restores it and the undo's undo again", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", dress)).body.data
      const path = `/v1/products/${product.id}/stock`
      yield* store.write("POST", path, {
        stock: 100,
        variants: [{ group_name: "Taille", option_name: "M", stock: 30 }]
      })
      const change = yield* newest(store)
      assert.deepInclude(change, {
        entity: "stock",
        entity_id: String(product.id),
        action: "update",
        summary: `Set stock of product #${product.id}: 40 → 100, Taille M 10 → 30`
      })
      const detail = (yield* store.get(`/v1/changes/${change.id}`)).body.data
      const m = product.variant_groups[0].options[0].id
      assert.deepStrictEqual(detail.before, {
        product_id: product.id,
        stock: 40,
        variants: [{ option_id: m, group_name: "Taille", option_name: "M", stock: 10 }]
      })
      assert.deepStrictEqual(detail.after, {
        product_id: product.id,
        stock: 100,
        variants: [{ option_id: m, group_name: "Taille", option_name: "M", stock: 30 }]
      })
      // Sold since: the undo still sets the recorded numbers (spec undo rule 7).
      yield* store.write("POST", path, { adjust: -4 })
      const undone = yield* store.write("POST", `/v1/changes/${change.id}/undo`)
      assert.deepInclude(undone.body.data, { undone: true, change_id: change.id, entity: "stock" })
      assert.deepStrictEqual(yield* levels(store, product.id), {
        product: 40,
        "Taille/M": 10,
        "Taille/XL": 5,
        "Couleur/Rouge": null
      })
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/changes/${change.id}/undo`)), [
        409,
        "already_undone"
      ])
      const undo = (yield* store.get(`/v1/changes/${undone.body.data.undo_change_id}`)).body.data
      assert.deepInclude(undo, { summary: `Undo of change #${change.id}`, entity: "stock", action: "update" })
      // The quantities it set, as it found them (after the sale) and as it left them.
      assert.deepStrictEqual(undo.before, {
        product_id: product.id,
        stock: 96,
        variants: [{ option_id: m, group_name: "Taille", option_name: "M", stock: 30 }]
      })
      assert.deepStrictEqual(undo.after, detail.before)
      // The undo of the undo applies the original change again (spec undo rule 8): 100, not the 96 it replaced.
      const again = yield* store.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
      assert.strictEqual(again.status, 200, again.text)
      assert.deepStrictEqual(yield* levels(store, product.id), {
        product: 100,
        "Taille/M": 30,
        "Taille/XL": 5,
        "Couleur/Rouge": null
      })
      // A product deleted since cannot be restored.
      yield* store.write("DELETE", `/v1/products/${product.id}`)
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/changes/${again.body.data.undo_change_id}/undo`)), [
        422,
        "restore_target_missing"
      ])
    })
  )
})

describe("stock and the read cache on TestClock time (memory)", () => {
  it.effect("the cached product list shows a write or an undo 30 s later; the stock read at once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 9, 0, 0))
      const store = yield* createStore()
      const product = (yield* store.write("POST", "/v1/products", dress)).body.data
      const listed = Effect.map(store.get("/v1/products"), (answer) => [
        answer.headers.get("x-cache"),
        answer.body.data.items[0].stock
      ])
      assert.deepStrictEqual(yield* listed, ["MISS", 40])
      yield* store.write("POST", `/v1/products/${product.id}/stock`, { stock: 7 })
      assert.deepStrictEqual(yield* listed, ["HIT", 40])
      assert.strictEqual((yield* levels(store, product.id)).product, 7)
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(yield* listed, ["MISS", 7])
      const change = yield* newest(store)
      yield* store.write("POST", `/v1/changes/${change.id}/undo`)
      assert.deepStrictEqual(yield* listed, ["HIT", 7])
      assert.strictEqual((yield* levels(store, product.id)).product, 40)
      yield* TestClock.adjust("29 seconds")
      assert.deepStrictEqual(yield* listed, ["HIT", 7])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* listed, ["MISS", 40])
    }).pipe(Effect.provide(InMemory.layer()))
  )
})
