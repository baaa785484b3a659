import { assert, layer } from "@effect/vitest"
import { Changes } from "@tawsil/changes"
import { Effect } from "effect"
import { Inventory } from "../src/Inventory.ts"
import { Products } from "../src/Products.ts"
import { Fixtures } from "./Fixtures.ts"
import { dress, InventorySuite } from "./InventorySuite.ts"
import { backends, memory, sql } from "./RecordedBackends.ts"

layer(memory)("Inventory (memory)", (it) => {
  InventorySuite(it)
})

const KEY = "twpk_live_stockrace00000"
const actor = (storeId: Parameters<Inventory["Service"]["get"]>[0]) => ({
  storeId,
  keyId: KEY,
  scopes: ["store:read", "products:read", "products:write"]
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "120 seconds" })(
    `Inventory (sql, ${backend.name})`,
    (it) => {
      InventorySuite(it)

      it.effect("of 50 simultaneous undos of one stock change exactly one runs; the others are already undone", () =>
        Effect.gen(function* () {
          const products = yield* Products
          const inventory = yield* Inventory
          const changes = yield* Changes.Changes
          const fixtures = yield* Fixtures
          const store = yield* fixtures.newStore
          const product = yield* products.create(store, dress)
          yield* inventory.set({ storeId: store, keyId: KEY }, product.id, { stock: 7 })
          const change = (yield* changes.list(store)).items[0]!
          const outcomes = yield* Effect.all(
            Array.from({ length: 50 }, () =>
              fixtures.transaction(changes.undo(actor(store), change.id)).pipe(Effect.result)
            ),
            { concurrency: "unbounded" }
          )
          const refused = outcomes.flatMap((outcome) =>
            outcome._tag === "Failure" ? [outcome.failure.reason._tag] : []
          )
          assert.strictEqual(outcomes.length - refused.length, 1)
          assert.deepStrictEqual(new Set(refused), new Set(["AlreadyUndone"]))
          assert.strictEqual((yield* inventory.get(store, product.id)).stock, 40)
          const undos = (yield* changes.list(store)).items.filter(
            (item) => item.summary === `Undo of change #${change.id}`
          )
          assert.strictEqual(undos.length, 1)
        })
      )

      it.effect(
        "an undo racing 40 stock adjustments loses none: the final stock is the arithmetic of what committed",
        () =>
          Effect.gen(function* () {
            const products = yield* Products
            const inventory = yield* Inventory
            const changes = yield* Changes.Changes
            const fixtures = yield* Fixtures
            const store = yield* fixtures.newStore
            const writer = { storeId: store, keyId: KEY }
            const product = yield* products.create(store, dress)
            const m = product.variant_groups[0]!.options[0]!.id
            // The change to undo: 40 → 1000 (M: 10 → 500).
            yield* inventory.set(writer, product.id, { stock: 1000, variants: [{ option_id: m, stock: 500 }] })
            const change = (yield* changes.list(store)).items[0]!
            // Sales start spread over 40 ms and the undo in the middle, so that some commit before it and some after.
            const sale = (index: number) =>
              fixtures
                .transaction(
                  inventory.set(writer, product.id, { adjust: -1, variants: [{ option_id: m, adjust: -1 }] })
                )
                .pipe(Effect.delay(`${index} millis`))
            const undo = fixtures.transaction(changes.undo(actor(store), change.id)).pipe(Effect.delay("20 millis"))
            const [undone] = yield* Effect.all(
              [undo, ...Array.from({ length: 40 }, (_, index) => sale(index))] as const,
              {
                concurrency: "unbounded"
              }
            )
            // The undo's record holds the stock as the undo found it: 1000 minus the sales that committed before it.
            const found = (yield* changes.get(actor(store), undone.undo_change_id!)).before as {
              stock: number
              variants: Array<{ option_id: number; stock: number }>
            }
            const before = 1000 - found.stock
            assert.strictEqual(found.variants.find((variant) => variant.option_id === m)!.stock, 500 - before)
            const stock = yield* inventory.get(store, product.id)
            // After it: 40 (the recorded number) minus the sales that committed after it.
            assert.strictEqual(stock.stock, 40 - (40 - before))
            assert.strictEqual(stock.variants[0]!.stock, Math.max(0, 10 - (40 - before)))
          })
      )
    }
  )
}
