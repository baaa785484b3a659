import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Products } from "../src/Products.ts"
import { backends, memory, sql } from "./Backends.ts"
import { Fixtures } from "./Fixtures.ts"
import { ProductsSuite } from "./ProductsSuite.ts"

layer(memory)("Products (memory)", (it) => {
  ProductsSuite(it)
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(`Products (sql, ${backend.name})`, (it) => {
    ProductsSuite(it)

    it.effect("a deleted product keeps its row, groups and options for the orders that reference it", () =>
      Effect.gen(function* () {
        const products = yield* Products
        const client = yield* SqlClient.SqlClient
        const store = yield* (yield* Fixtures).newStore
        const product = yield* products.create(store, {
          name: "Old",
          price: 1,
          variant_groups: [{ name: "Taille", type: "text", options: [{ value: "M" }] }]
        })
        yield* products.remove(store, product.id)
        const [row] = yield* client<{ readonly deleted: boolean; readonly options: number }>`
          SELECT p.deleted_at IS NOT NULL AS deleted,
            (SELECT count(*)::int FROM variant_options o JOIN variant_groups g ON g.id = o.group_id
             WHERE g.product_id = p.id) AS options
          FROM products p WHERE p.id = ${product.id}`
        assert.deepStrictEqual(row, { deleted: true, options: 1 })
      })
    )

    it.effect("a create is atomic: a failure after the product row leaves nothing", () =>
      Effect.gen(function* () {
        const products = yield* Products
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore
        // The HTTP layer's transaction fails after the write (here: an interruption stands in for any failure).
        const exit = yield* fixtures
          .transaction(Effect.andThen(products.create(store, { name: "Ghost", price: 1 }), Effect.die("boom")))
          .pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure")
        assert.deepStrictEqual((yield* products.list(store)).items, [])
      })
    )
  })
}
