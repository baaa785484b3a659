/**
 * The contract of `Inventory` and the `stock` entity over a `ProductStore`, from the spec's variant model and undo
 * rule 7 and our decisions (docs/store-api-config.md, "Stock"), run against every implementation of the port.
 */
import { assert, type Vitest } from "@effect/vitest"
import { type ChangeLog, Changes } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import type { Categories } from "../src/Categories.ts"
import type { CategoryStore } from "../src/CategoryStore.ts"
import { Inventory } from "../src/Inventory.ts"
import type { ProductStore } from "../src/ProductStore.ts"
import { Products } from "../src/Products.ts"
import { ProductStock } from "../src/Stock.ts"
import { Fixtures } from "./Fixtures.ts"

type Services =
  | Categories
  | Inventory
  | Products
  | CategoryStore
  | ProductStore
  | Changes.Changes
  | ChangeLog.ChangeLog
  | Fixtures

const KEY = "twpk_live_stocktest000000"
const writer = (storeId: Ids.StoreId) => ({ storeId, keyId: KEY })
const actor = (storeId: Ids.StoreId) => ({
  storeId,
  keyId: KEY,
  scopes: ["store:read", "products:read", "products:write"]
})

const refusal = <A, R>(
  effect: Effect.Effect<A, { readonly reason: { readonly _tag: string; readonly message: string } }, R>
) => Effect.map(Effect.flip(effect), (error) => [error.reason._tag, error.reason.message] as const)

const wire = Schema.encodeSync(ProductStock)

/** A dress in two sizes (tracked) and two colours (the colours untracked), 40 in stock. */
export const dress = {
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
    { name: "Couleur", type: "color", options: [{ value: "Rouge", color_code: "#f00" }, { value: "Noir" }] }
  ]
}

/** Quantities by name: `{ product, "Taille/M": …, … }`. */
const levels = (stock: ProductStock) =>
  Object.fromEntries([
    ["product", stock.stock],
    ...stock.variants.map((variant) => [`${variant.group_name}/${variant.option_name}`, variant.stock])
  ])

export const InventorySuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("reads a product's stock: its own quantity and every option's, with the names orders use", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const inventory = yield* Inventory
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const product = yield* products.create(store, dress)
      const stock = yield* inventory.get(store, product.id)
      const [m, xl, red, black] = product.variant_groups.flatMap((group) => group.options.map((option) => option.id))
      assert.deepStrictEqual(wire(stock), {
        product_id: product.id,
        stock: 40,
        variants: [
          { option_id: m!, group_name: "Taille", option_name: "M", stock: 10 },
          { option_id: xl!, group_name: "Taille", option_name: "XL", stock: 5 },
          { option_id: red!, group_name: "Couleur", option_name: "Rouge", stock: null },
          { option_id: black!, group_name: "Couleur", option_name: "Noir", stock: null }
        ]
      })
      const other = yield* fixtures.newStore
      for (const id of [0, 2_147_483_648, product.id + 1000]) {
        assert.deepStrictEqual(yield* refusal(inventory.get(store, id)), ["ProductNotFound", "Product not found"])
      }
      assert.deepStrictEqual(yield* refusal(inventory.get(other, product.id)), ["ProductNotFound", "Product not found"])
      assert.deepStrictEqual(yield* refusal(inventory.set(writer(other), product.id, { stock: 1 })), [
        "ProductNotFound",
        "Product not found"
      ])
    })
  )

  it.effect("sets quantities absolutely or by a difference, options by id or by name; records only what changed", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const inventory = yield* Inventory
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const product = yield* products.create(store, dress)
      const [m, xl, red] = product.variant_groups.flatMap((group) => group.options.map((option) => option.id))
      const set = yield* inventory.set(writer(store), product.id, {
        adjust: -3,
        variants: [
          { option_id: m, stock: 12 },
          { group_name: "Taille", option_name: "XL", adjust: -9 },
          { option_id: red, stock: 4 }
        ]
      })
      assert.deepStrictEqual(levels(set), {
        product: 37,
        "Taille/M": 12,
        "Taille/XL": 0,
        "Couleur/Rouge": 4,
        "Couleur/Noir": null
      })
      assert.deepStrictEqual(levels(yield* inventory.get(store, product.id)), levels(set))
      assert.deepStrictEqual(
        (yield* products.get(store, product.id)).variant_groups.map((group) =>
          group.options.map((option) => option.stock)
        ),
        [
          [12, 0],
          [4, null]
        ]
      )
      const [change] = (yield* changes.list(store)).items
      assert.deepStrictEqual(
        [change!.entity, change!.entity_id, change!.action, change!.summary],
        [
          "stock",
          String(product.id),
          "update",
          `Set stock of product #${product.id}: 40 → 37, Taille M 10 → 12, Taille XL 5 → 0, Couleur Rouge untracked → 4`
        ]
      )
      const detail = yield* changes.get(actor(store), change!.id)
      assert.deepStrictEqual(detail.before, {
        product_id: product.id,
        stock: 40,
        variants: [
          { option_id: m, group_name: "Taille", option_name: "M", stock: 10 },
          { option_id: xl, group_name: "Taille", option_name: "XL", stock: 5 },
          { option_id: red, group_name: "Couleur", option_name: "Rouge", stock: null }
        ]
      })
      assert.deepStrictEqual(detail.after, {
        product_id: product.id,
        stock: 37,
        variants: [
          { option_id: m, group_name: "Taille", option_name: "M", stock: 12 },
          { option_id: xl, group_name: "Taille", option_name: "XL", stock: 0 },
          { option_id: red, group_name: "Couleur", option_name: "Rouge", stock: 4 }
        ]
      })
      // Only the option that changes is recorded; a write that changes nothing records nothing.
      yield* inventory.set(writer(store), product.id, { stock: 37, variants: [{ option_id: xl, stock: 2 }] })
      const only = yield* changes.get(actor(store), (yield* changes.list(store)).items[0]!.id)
      assert.deepStrictEqual(only.before, {
        product_id: product.id,
        variants: [{ option_id: xl, group_name: "Taille", option_name: "XL", stock: 0 }]
      })
      yield* inventory.set(writer(store), product.id, { adjust: 0, variants: [{ option_id: m, stock: 12 }] })
      assert.strictEqual((yield* changes.list(store)).items.length, 2)
      // null stops tracking; adjusting an untracked quantity is refused.
      assert.isNull((yield* inventory.set(writer(store), product.id, { stock: null })).stock)
      assert.deepStrictEqual(yield* refusal(inventory.set(writer(store), product.id, { adjust: 1 })), [
        "InvalidStock",
        "adjust needs a tracked quantity: set stock first"
      ])
    })
  )

  it.effect("refuses bodies that break a rule with the field's message, writing nothing", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const inventory = yield* Inventory
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const product = yield* products.create(store, dress)
      const [m] = product.variant_groups.flatMap((group) => group.options.map((option) => option.id))
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[], "Body must be a JSON object"],
        [null, "Body must be a JSON object"],
        [{}, "Body must set stock, adjust or variants"],
        [{ variants: [] }, "Body must set stock, adjust or variants"],
        [{ stock: -1 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: 2.5 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: 2_147_483_648 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: 1e308 }, "stock must be null or an integer from 0 to 2147483647"],
        [{ stock: "5" }, "stock must be null or an integer from 0 to 2147483647"],
        [{ adjust: 2_147_483_648 }, "adjust must be an integer from -2147483647 to 2147483647"],
        [{ adjust: null }, "adjust must be an integer from -2147483647 to 2147483647"],
        [{ stock: 1, adjust: 1 }, "adjust cannot be sent with stock: send one or the other"],
        [{ adjust: 2_147_483_647 }, "adjust would take the quantity above 2147483647"],
        [{ variants: {} }, "variants must be an array of at most 2000 options"],
        [{ variants: [1] }, "variants[0] must be an object"],
        [{ variants: [{ stock: 1 }] }, "variants[0] must name an option: option_id, or group_name and option_name"],
        [{ variants: [{ option_id: m }] }, "variants[0] must set stock or adjust"],
        [
          { variants: [{ option_id: m, group_name: "Taille", option_name: "M", stock: 1 }] },
          "variants[0].option_id names the option: send option_id or the names"
        ],
        [
          { variants: [{ option_id: m, stock: 1, adjust: 1 }] },
          "variants[0].adjust cannot be sent with stock: send one or the other"
        ],
        [
          { variants: [{ group_name: "Taille", option_name: "S", stock: 1 }] },
          "variants[0] names no option of this product"
        ],
        [
          { variants: [{ group_name: "Ta\u0000ille", option_name: "M", stock: 1 }] },
          "variants[0].group_name must be a string of 1-100 chars"
        ],
        [
          { variants: [{ group_name: "Taille", option_name: "\udc00", stock: 1 }] },
          "variants[0].option_name must be a string of 1-255 chars"
        ],
        [{ variants: [{ option_id: 99_999_999, stock: 1 }] }, "variants[0] names no option of this product"],
        [
          {
            variants: [
              { option_id: m, stock: 1 },
              { group_name: "Taille", option_name: "M", adjust: 1 }
            ]
          },
          "variants[1] names the same option as variants[0]"
        ],
        [
          { variants: [{ group_name: "Couleur", option_name: "Rouge", adjust: -1 }] },
          "variants[0].adjust needs a tracked quantity: set stock first"
        ],
        [
          { variants: Array.from({ length: 2001 }, () => ({ option_id: m, stock: 1 })) },
          "variants must be an array of at most 2000 options"
        ]
      ]
      for (const [body, message] of cases) {
        assert.deepStrictEqual(yield* refusal(inventory.set(writer(store), product.id, body)), [
          "InvalidStock",
          message
        ])
      }
      assert.deepStrictEqual(levels(yield* inventory.get(store, product.id)), {
        product: 40,
        "Taille/M": 10,
        "Taille/XL": 5,
        "Couleur/Rouge": null,
        "Couleur/Noir": null
      })
      assert.deepStrictEqual((yield* changes.list(store)).items, [])
    })
  )

  it.effect("an undo sets each recorded quantity back whatever happened since; its undo sets them again", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const inventory = yield* Inventory
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const product = yield* products.create(store, dress)
      const [m, xl] = product.variant_groups.flatMap((group) => group.options.map((option) => option.id))
      yield* inventory.set(writer(store), product.id, { stock: 100, variants: [{ option_id: m, stock: 50 }] })
      const change = (yield* changes.list(store)).items[0]!
      // Since: sales and another count, on the same and on other quantities.
      yield* inventory.set(writer(store), product.id, { adjust: -7, variants: [{ option_id: xl, stock: 1 }] })
      const undone = yield* fixtures.transaction(changes.undo(actor(store), change.id))
      assert.deepStrictEqual(levels(yield* inventory.get(store, product.id)), {
        product: 40,
        "Taille/M": 10,
        "Taille/XL": 1,
        "Couleur/Rouge": null,
        "Couleur/Noir": null
      })
      // The undo's own record holds the quantities it set, as it found them and as it left them.
      const undo = yield* changes.get(actor(store), undone.undo_change_id!)
      assert.deepStrictEqual(undo.summary, `Undo of change #${change.id}`)
      const quantities = (values: unknown) => {
        const { stock, variants } = values as { stock: number; variants: Array<{ option_id: number; stock: number }> }
        return [stock, variants.map((variant) => [variant.option_id, variant.stock])]
      }
      assert.deepStrictEqual(quantities(undo.before), [93, [[m, 50]]])
      assert.deepStrictEqual(quantities(undo.after), [40, [[m, 10]]])
      // An order takes 2; the undo of the undo applies the original change again: 100 and 50, not what the undo
      // replaced (93).
      yield* inventory.set(writer(store), product.id, { adjust: -2 })
      yield* fixtures.transaction(changes.undo(actor(store), undone.undo_change_id!))
      assert.deepStrictEqual(levels(yield* inventory.get(store, product.id)), {
        product: 100,
        "Taille/M": 50,
        "Taille/XL": 1,
        "Couleur/Rouge": null,
        "Couleur/Noir": null
      })
    })
  )

  it.effect("an undo finds an option by name once the variant groups were replaced; a deleted product is missing", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const inventory = yield* Inventory
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const product = yield* products.create(store, dress)
      yield* inventory.set(writer(store), product.id, {
        variants: [
          { group_name: "Taille", option_name: "M", stock: 0 },
          { group_name: "Taille", option_name: "XL", stock: 0 }
        ]
      })
      const change = (yield* changes.list(store)).items[0]!
      // Not recorded: the product's own PATCH replaces its groups (new option ids), and XL is gone.
      yield* products.update(store, product.id, {
        variant_groups: [
          {
            name: "Taille",
            type: "text",
            options: [
              { value: "L", stock: 3 },
              { value: "M", stock: 8 }
            ]
          }
        ]
      })
      yield* fixtures.transaction(changes.undo(actor(store), change.id))
      assert.deepStrictEqual(levels(yield* inventory.get(store, product.id)), {
        product: 40,
        "Taille/L": 3,
        "Taille/M": 10
      })
      yield* inventory.set(writer(store), product.id, { stock: 1 })
      const late = (yield* changes.list(store)).items[0]!
      yield* products.remove(store, product.id)
      assert.strictEqual(
        (yield* refusal(fixtures.transaction(changes.undo(actor(store), late.id))))[0],
        "RestoreTargetMissing"
      )
    })
  )
}
