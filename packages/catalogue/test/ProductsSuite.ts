/**
 * The contract of `Products` and its `ProductStore`, from the spec's variant model, pagination rules and our
 * decisions (docs/store-api.md), run against every implementation of the port.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Ids, Pagination, StoreAmount } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import * as Product from "../src/Product.ts"
import { Products } from "../src/Products.ts"
import { Fixtures } from "./Fixtures.ts"

const tshirt = {
  name: "T-shirt Tawsil",
  description: "Coton 100 %",
  sku: "TS-001",
  price: 2500,
  compare_at_price: 3000,
  stock: 40,
  variant_groups: [
    {
      name: "Couleur",
      type: "color",
      options: [
        { value: "Rouge", color_code: "#ff0000", price_adjustment: 0, stock: 10 },
        { value: "Noir", color_code: "#000", price_adjustment: 150.5, image_id: 7 }
      ]
    },
    { name: "Taille", type: "text", options: [{ value: "M" }, { value: "XL", price_adjustment: -200 }] }
  ]
}

/** The message of the `BadRequest` an effect fails with. */
const badRequest = <A, E extends { readonly reason: { readonly _tag: string }; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.strictEqual(error.reason._tag, "InvalidProduct")
    return error.message
  })

const notFound = <A, E extends { readonly reason: { readonly _tag: string } }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => assert.strictEqual(error.reason._tag, "ProductNotFound"))

/**
 * What the caller sees of a product. Compared instead of the values themselves: a `BigDecimal` caches its
 * normalised form when first formatted, so two equal amounts need not be equal objects.
 */
const wire = Schema.encodeSync(Product.Product)

const amounts = (product: Product.Product) => ({
  price: StoreAmount.format(product.price),
  compare_at_price: product.compare_at_price === null ? null : StoreAmount.format(product.compare_at_price),
  adjustments: product.variant_groups.map((group) =>
    group.options.map((option) => StoreAmount.format(option.price_adjustment))
  )
})

export const ProductsSuite = (it: Vitest.MethodsNonLive<Products | Fixtures>) => {
  it.effect("creates a product with the defaults and reads back the same detail", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, { name: "Savon d'Alep", price: 450 })
      assert.strictEqual(created.name, "Savon d'Alep")
      assert.strictEqual(StoreAmount.format(created.price), "450.00")
      assert.deepStrictEqual(
        {
          description: created.description,
          sku: created.sku,
          compare_at_price: created.compare_at_price,
          status: created.status,
          digital: created.digital,
          stock: created.stock,
          sales_count: created.sales_count,
          variant_groups: created.variant_groups
        },
        {
          description: null,
          sku: null,
          compare_at_price: null,
          status: "active",
          digital: false,
          stock: null,
          sales_count: 0,
          variant_groups: []
        }
      )
      assert.deepStrictEqual(wire(yield* products.get(store, created.id)), wire(created))
    })
  )

  it.effect("keeps variant groups and options in body order, with their fields and exact amounts", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, { ...tshirt, price: 2500.125 })
      const read = yield* products.get(store, created.id)
      assert.deepStrictEqual(wire(read), wire(created))
      assert.deepStrictEqual(amounts(read), {
        price: "2500.125",
        compare_at_price: "3000.00",
        adjustments: [
          ["0.00", "150.50"],
          ["0.00", "-200.00"]
        ]
      })
      assert.deepStrictEqual(
        read.variant_groups.map((group) => ({
          name: group.name,
          type: group.type,
          options: group.options.map(({ value, color_code, image_id, stock }) => ({
            value,
            color_code,
            image_id,
            stock
          }))
        })),
        [
          {
            name: "Couleur",
            type: "color",
            options: [
              { value: "Rouge", color_code: "#ff0000", image_id: null, stock: 10 },
              { value: "Noir", color_code: "#000", image_id: 7, stock: null }
            ]
          },
          {
            name: "Taille",
            type: "text",
            options: [
              { value: "M", color_code: null, image_id: null, stock: null },
              { value: "XL", color_code: null, image_id: null, stock: null }
            ]
          }
        ]
      )
      const groupIds = read.variant_groups.map((group) => group.id)
      const optionIds = read.variant_groups.flatMap((group) => group.options.map((option) => option.id))
      assert.strictEqual(new Set(groupIds).size, 2)
      assert.strictEqual(new Set(optionIds).size, 4)
    })
  )

  it.effect("encodes to the wire shape: amounts as JSON numbers, times in Algiers `YYYY-MM-DD HH:MM:SS`", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, { ...tshirt, price: 350.125 })
      const wire = yield* Schema.encodeEffect(Product.Product)(created)
      assert.strictEqual(wire.price, 350.125)
      assert.strictEqual(wire.compare_at_price, 3000)
      assert.strictEqual(wire.variant_groups[0]?.options[1]?.price_adjustment, 150.5)
      assert.strictEqual(wire.variant_groups[1]?.options[1]?.price_adjustment, -200)
      assert.match(wire.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      // A typed client reads the wire form back to the same product.
      assert.deepStrictEqual(Schema.encodeSync(Product.Product)(Schema.decodeSync(Product.Product)(wire)), wire)
      assert.deepStrictEqual(Object.keys(wire), [
        "id",
        "name",
        "description",
        "sku",
        "price",
        "compare_at_price",
        "status",
        "digital",
        "stock",
        "sales_count",
        "category_ids",
        "variant_groups",
        "created_at",
        "updated_at"
      ])
      const [item] = (yield* products.list(store)).items
      const summary = yield* Schema.encodeEffect(Product.ProductSummary)(item!)
      assert.notProperty(summary, "variant_groups")
      assert.strictEqual(summary.price, 350.125)
    })
  )

  it.effect("takes amounts up to the maximum, 100000000, and -0 as 0", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, {
        name: "Villa",
        price: 100_000_000,
        compare_at_price: -0,
        variant_groups: [
          {
            name: "Option",
            type: "text",
            options: [
              { value: "Piscine", price_adjustment: 100_000_000 },
              { value: "Sans", price_adjustment: -100_000_000 }
            ]
          }
        ]
      })
      const wire = yield* Schema.encodeEffect(Product.Product)(yield* products.get(store, created.id))
      assert.deepStrictEqual(
        [wire.price, wire.compare_at_price, wire.variant_groups[0]!.options.map((o) => o.price_adjustment)],
        [100_000_000, 0, [100_000_000, -100_000_000]]
      )
    })
  )

  it.effect("refuses an invalid create with the field's message and writes nothing", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [null, "Body must be a JSON object"],
        [[tshirt], "Body must be a JSON object"],
        [{ price: 10 }, "name is required (1-255 chars)"],
        [{ name: "", price: 10 }, "name is required (1-255 chars)"],
        [{ name: "x".repeat(256), price: 10 }, "name is required (1-255 chars)"],
        [{ name: "Savon" }, "price is required (>= 0)"],
        [{ name: "Savon", price: -0.01 }, "price must be >= 0"],
        [{ name: "Savon", price: "450" }, "price must be >= 0"],
        [{ name: "Savon", price: 1, status: "archived" }, "status must be active or draft"],
        [{ name: "Savon", price: 1, digital: "yes" }, "digital must be a boolean"],
        [{ name: "Savon", price: 1, stock: -1 }, "stock must be null or an integer >= 0"],
        [{ name: "Savon", price: 1, stock: 2.5 }, "stock must be null or an integer >= 0"],
        [{ name: "Savon", price: 1, compare_at_price: -5 }, "compare_at_price must be null or >= 0"],
        // Amounts are at most 100000000 (StoreAmount.MAXIMUM); 1e309 is Infinity once parsed, not a number.
        [{ name: "Savon", price: 1e308 }, "price must be at most 100000000"],
        [{ name: "Savon", price: 100_000_000.01 }, "price must be at most 100000000"],
        [{ name: "Savon", price: 2 ** 53 + 1 }, "price must be at most 100000000"],
        [{ name: "Savon", price: JSON.parse("1e309") }, "price must be >= 0"],
        [{ name: "Savon", price: "1e308" }, "price must be >= 0"],
        [{ name: "Savon", price: 1, compare_at_price: 1e308 }, "compare_at_price must be at most 100000000"],
        [{ name: "Savon", price: 1, stock: 2 ** 53 + 1 }, "stock must be null or an integer >= 0"],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "text", options: [{ value: "M", price_adjustment: 1e308 }] }]
          },
          "variant_groups[0].options[0].price_adjustment must be between -100000000 and 100000000"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "text", options: [{ value: "M", price_adjustment: -100_000_000.5 }] }]
          },
          "variant_groups[0].options[0].price_adjustment must be between -100000000 and 100000000"
        ],
        [{ name: "Savon", price: 1, sku: "" }, "sku must be a string of 1-100 chars or null"],
        // Text PostgreSQL cannot keep as sent: a NUL character, a lone surrogate.
        [{ name: "Sav\u0000on", price: 1 }, "name is required (1-255 chars)"],
        [{ name: "Savon\ud800", price: 1 }, "name is required (1-255 chars)"],
        [{ name: "Savon", price: 1, description: "\u0000" }, "description must be a string or null"],
        [{ name: "Savon", price: 1, sku: "\udc00SV" }, "sku must be a string of 1-100 chars or null"],
        [
          { name: "Savon", price: 1, variant_groups: [{ name: "Taille\u0000", type: "text" }] },
          "variant_groups[0].name is required (1-100 chars)"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "Taille", type: "text", options: [{ value: "M\ud800" }] }]
          },
          "variant_groups[0].options[0].value is required (1-255 chars)"
        ],
        [{ name: "Savon", price: 1, variant_groups: {} }, "variant_groups must be an array of at most 20 groups"],
        [{ name: "Savon", price: 1, variant_groups: ["Taille"] }, "variant_groups[0] must be an object"],
        [
          { name: "Savon", price: 1, variant_groups: [{ type: "text" }] },
          "variant_groups[0].name is required (1-100 chars)"
        ],
        [
          { name: "Savon", price: 1, variant_groups: [{ name: "Taille" }] },
          "variant_groups[0].type is required (color, text, or image_text)"
        ],
        [
          { name: "Savon", price: 1, variant_groups: [{ name: "Taille", type: "size" }] },
          "variant_groups[0].type must be color, text, or image_text"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [
              { name: "Taille", type: "text" },
              { name: "Taille", type: "text" }
            ]
          },
          "variant_groups[1].name must be unique per product"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: Array.from({ length: 21 }, (_, i) => ({ name: `G${i}`, type: "text" }))
          },
          "variant_groups must be an array of at most 20 groups"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [
              { name: "Taille", type: "text", options: Array.from({ length: 101 }, (_, i) => ({ value: `${i}` })) }
            ]
          },
          "variant_groups[0].options must be an array of at most 100 options"
        ],
        [
          { name: "Savon", price: 1, variant_groups: [{ name: "Taille", type: "text", options: [{ value: "" }] }] },
          "variant_groups[0].options[0].value is required (1-255 chars)"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [
              { name: "Taille", type: "text", options: [{ value: "M" }, { value: "L" }, { value: "M" }] }
            ]
          },
          "variant_groups[0].options[2].value must be unique per group"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "C", type: "color", options: [{ value: "Rouge", color_code: "red" }] }]
          },
          "variant_groups[0].options[0].color_code must be a hex color (#rgb or #rrggbb) or null"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "C", type: "color", options: [{ value: "Rouge", color_code: "#ff00000" }] }]
          },
          "variant_groups[0].options[0].color_code must be a hex color (#rgb or #rrggbb) or null"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "image_text", options: [{ value: "A", color_code: "#fff" }] }]
          },
          "variant_groups[0].options[0].color_code is only allowed in color groups"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "text", options: [{ value: "A", price_adjustment: "100" }] }]
          },
          "variant_groups[0].options[0].price_adjustment must be a number"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "text", options: [{ value: "A", stock: -3 }] }]
          },
          "variant_groups[0].options[0].stock must be null or an integer >= 0"
        ],
        [
          {
            name: "Savon",
            price: 1,
            variant_groups: [{ name: "T", type: "text", options: [{ value: "A", image_id: 0 }] }]
          },
          "variant_groups[0].options[0].image_id must be null or a positive integer"
        ]
      ]
      for (const [body, message] of cases) {
        assert.strictEqual(yield* badRequest(products.create(store, body)), message, JSON.stringify(body))
      }
      assert.deepStrictEqual((yield* products.list(store)).items, [])
    })
  )

  it.effect("ignores unknown fields, and takes a negative adjustment and the largest sizes", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, {
        name: "x".repeat(255),
        price: 0,
        sales_count: 999,
        id: 1,
        variant_groups: Array.from({ length: 20 }, (_, g) => ({
          name: `Groupe ${g}`,
          type: "text",
          options: Array.from({ length: g === 0 ? 100 : 1 }, (_, o) => ({ value: `V${o}`, price_adjustment: -o }))
        }))
      })
      assert.strictEqual(created.sales_count, 0)
      assert.strictEqual(created.variant_groups.length, 20)
      assert.strictEqual(created.variant_groups[0]?.options.length, 100)
      assert.strictEqual(StoreAmount.format(created.variant_groups[0]!.options[99]!.price_adjustment), "-99.00")
      assert.deepStrictEqual(wire(yield* products.get(store, created.id)), wire(created))
    })
  )

  it.effect("PATCH changes only the fields sent, null clears a nullable field, variant_groups replaces all", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, tshirt)
      const renamed = yield* products.update(store, created.id, { name: "T-shirt v2", sku: null, price: 2600.5 })
      assert.strictEqual(renamed.name, "T-shirt v2")
      assert.isNull(renamed.sku)
      assert.strictEqual(StoreAmount.format(renamed.price), "2600.50")
      assert.strictEqual(renamed.description, created.description)
      assert.strictEqual(renamed.stock, created.stock)
      assert.deepStrictEqual(wire(renamed).variant_groups, wire(created).variant_groups)

      const regrouped = yield* products.update(store, created.id, {
        status: "draft",
        stock: null,
        variant_groups: [{ name: "Pointure", type: "text", options: [{ value: "42" }] }]
      })
      assert.strictEqual(regrouped.status, "draft")
      assert.isNull(regrouped.stock)
      assert.deepStrictEqual(
        regrouped.variant_groups.map((group) => [group.name, group.options.map((option) => option.value)]),
        [["Pointure", ["42"]]]
      )
      assert.deepStrictEqual(wire(yield* products.get(store, created.id)), wire(regrouped))

      const cleared = yield* products.update(store, created.id, { variant_groups: [] })
      assert.deepStrictEqual(cleared.variant_groups, [])
      assert.strictEqual(cleared.name, "T-shirt v2")
    })
  )

  it.effect("PATCH refuses invalid fields with their message and changes nothing; {} changes nothing", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const created = yield* products.create(store, tshirt)
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["name", "Body must be a JSON object"],
        [{ name: "" }, "name must be 1-255 chars"],
        [{ price: -1 }, "price must be >= 0"],
        [{ price: null }, "price must be >= 0"],
        [{ price: 1e308 }, "price must be at most 100000000"],
        [{ compare_at_price: 2 ** 53 + 1 }, "compare_at_price must be at most 100000000"],
        [{ status: "deleted" }, "status must be active or draft"],
        [{ name: "ok", digital: 1 }, "digital must be a boolean"],
        [{ name: "\u0000" }, "name must be 1-255 chars"],
        [{ description: "x\udc00" }, "description must be a string or null"],
        [
          { variant_groups: [{ name: "A", type: "text", options: [{ value: "1" }, { value: "1" }] }] },
          "variant_groups[0].options[1].value must be unique per group"
        ]
      ]
      for (const [body, message] of cases) {
        assert.strictEqual(yield* badRequest(products.update(store, created.id, body)), message, JSON.stringify(body))
      }
      assert.deepStrictEqual(wire(yield* products.get(store, created.id)), wire(created))
      assert.deepStrictEqual(wire(yield* products.update(store, created.id, {})), wire(created))
      assert.deepStrictEqual(wire(yield* products.update(store, created.id, { unknown: 1 })), wire(created))
    })
  )

  it.effect("deletes softly: the product is NotFound from then on and gone from the list", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const kept = yield* products.create(store, { name: "Kept", price: 1 })
      const gone = yield* products.create(store, tshirt)
      assert.deepStrictEqual(yield* products.remove(store, gone.id), { deleted: true, id: gone.id })
      yield* notFound(products.get(store, gone.id))
      yield* notFound(products.update(store, gone.id, { name: "Back" }))
      yield* notFound(products.remove(store, gone.id))
      assert.deepStrictEqual(
        (yield* products.list(store)).items.map((item) => item.id),
        [kept.id]
      )
    })
  )

  it.effect("keeps stores apart: another store's product is NotFound everywhere and in no list", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const fixtures = yield* Fixtures
      const mine = yield* fixtures.newStore
      const theirs = yield* fixtures.newStore
      const product = yield* products.create(theirs, tshirt)
      yield* notFound(products.get(mine, product.id))
      yield* notFound(products.update(mine, product.id, { name: "Stolen" }))
      yield* notFound(products.update(mine, product.id, "not even a body"))
      yield* notFound(products.remove(mine, product.id))
      assert.deepStrictEqual((yield* products.list(mine)).items, [])
      assert.deepStrictEqual(wire(yield* products.get(theirs, product.id)), wire(product))
    })
  )

  it.effect("an id no row can have is NotFound", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      for (const id of [99_999_999_999, Ids.MAX_ID + 1, 0, -1]) {
        const huge = id as Ids.ProductId
        yield* notFound(products.get(store, huge))
        yield* notFound(products.update(store, huge, { name: "x" }))
        yield* notFound(products.remove(store, huge))
      }
    })
  )

  it.effect("lists newest first in cursor pages; status filters, an unknown status is ignored", () =>
    Effect.gen(function* () {
      const products = yield* Products
      const store = yield* (yield* Fixtures).newStore
      const ids: Array<Ids.ProductId> = []
      for (let n = 1; n <= 5; n++) {
        const product = yield* products.create(store, {
          name: `P${n}`,
          price: n,
          status: n % 2 === 0 ? "draft" : "active"
        })
        ids.push(product.id)
      }
      const newestFirst = [...ids].reverse()

      const first = yield* products.list(store, { limit: "2" })
      assert.deepStrictEqual(
        first.items.map((item) => item.id),
        newestFirst.slice(0, 2)
      )
      assert.isTrue(first.has_more)
      assert.isNotNull(first.next_cursor)
      const second = yield* products.list(store, { limit: 2, cursor: first.next_cursor! })
      assert.deepStrictEqual(
        second.items.map((item) => item.id),
        newestFirst.slice(2, 4)
      )
      const third = yield* products.list(store, { limit: "2", cursor: second.next_cursor! })
      assert.deepStrictEqual(
        third.items.map((item) => item.id),
        newestFirst.slice(4)
      )
      assert.deepStrictEqual(
        { has_more: third.has_more, next_cursor: third.next_cursor },
        {
          has_more: false,
          next_cursor: null
        }
      )

      const all = yield* products.list(store, { limit: "abc", cursor: "%%not-a-cursor%%" })
      assert.deepStrictEqual(
        all.items.map((item) => item.id),
        newestFirst
      )
      assert.isFalse(all.has_more)
      const clamped = yield* products.list(store, { limit: "0" })
      assert.deepStrictEqual(
        clamped.items.map((item) => item.id),
        newestFirst.slice(0, 1)
      )
      const forged = yield* products.list(store, { cursor: Pagination.cursorAfter(ids[2]!) })
      assert.deepStrictEqual(
        forged.items.map((item) => item.id),
        [ids[1], ids[0]]
      )

      const drafts = yield* products.list(store, { status: "draft" })
      assert.deepStrictEqual(
        drafts.items.map((item) => item.name),
        ["P4", "P2"]
      )
      const unfiltered = yield* products.list(store, { status: "archived" })
      assert.strictEqual(unfiltered.items.length, 5)
    })
  )
}
