/**
 * Migration 0015: change rows written before it (whole items as `before` and `after`) are rewritten to the fields
 * each update changed, on each database; creates, deletes, a sync and values not recorded are left as they were.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { fieldLevel } from "../src/migrations/0015_field_level_changes.ts"

const design = {
  is_digital: false,
  colors: { primary_color: "#111111", secondary_color: "#222222", text_color: null },
  font_family: "Cairo",
  border_radius: 8
}

const table = (prices: Record<number, [number | null, number | null]>, revision: number) => {
  const rates = Object.entries(prices).map(([wilaya, [home, desk]]) => ({
    wilaya_id: Number(wilaya),
    home_price: home,
    desk_price: desk
  }))
  return {
    revision,
    rates,
    absent: Array.from({ length: 58 }, (_, i) => i + 1).filter((wilaya) => !(wilaya in prices))
  }
}

describe("0015_field_level_changes", () => {
  it("an update of a whole item keeps the fields it changed (nested ones key by key) and what undos need", () => {
    assert.deepStrictEqual(
      fieldLevel("store.design", design, { ...design, colors: { ...design.colors, text_color: "#333333" } }),
      {
        before: { is_digital: false, colors: { text_color: null } },
        after: { is_digital: false, colors: { text_color: "#333333" } }
      }
    )
    assert.deepStrictEqual(
      fieldLevel(
        "promo_code",
        { id: 4, code: "A", max_uses: null, used_count: 2, updated_at: "2026-01-01 10:00:00" },
        { id: 4, code: "A", max_uses: 5, used_count: 2, updated_at: "2026-01-02 10:00:00" }
      ),
      { before: { id: 4, max_uses: null }, after: { id: 4, max_uses: 5 } }
    )
  })

  it("a stock undo's whole product and a rates undo's whole table keep what changed", () => {
    const options = (m: number, l: number) => [
      { option_id: 1, group_name: "Taille", option_name: "M", stock: m },
      { option_id: 2, group_name: "Taille", option_name: "L", stock: l }
    ]
    assert.deepStrictEqual(
      fieldLevel(
        "stock",
        { product_id: 9, stock: 38, variants: options(5, 7) },
        { product_id: 9, stock: 10, variants: options(5, 3) }
      ),
      {
        before: { product_id: 9, stock: 38, variants: [options(5, 7)[1]] },
        after: { product_id: 9, stock: 10, variants: [options(5, 3)[1]] }
      }
    )
    assert.deepStrictEqual(
      fieldLevel(
        "shipping.rates",
        table({ 16: [400, 250], 9: [500, null] }, 3),
        table({ 16: [450, 250], 31: [600, 350] }, 4)
      ),
      {
        before: {
          rates: [
            { wilaya_id: 9, home_price: 500, desk_price: null },
            { wilaya_id: 16, home_price: 400, desk_price: 250 }
          ],
          absent: [31]
        },
        after: {
          rates: [
            { wilaya_id: 16, home_price: 450, desk_price: 250 },
            { wilaya_id: 31, home_price: 600, desk_price: 350 }
          ],
          absent: [9]
        }
      }
    )
  })

  it("leaves entities it does not know and values that are not objects", () => {
    assert.isUndefined(fieldLevel("note", { a: 1 }, { a: 2 }))
    assert.isUndefined(fieldLevel("store.design", null, design))
  })
})

/** Every migration before 0015. */
const before0015 = Migrator.make({})({
  loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id < 15)),
  table: Migrations.TABLE
})

for (const backend of TestDatabase.backends) {
  layer(backend.layer.pipe(Layer.orDie), { excludeTestServices: true, timeout: "90 seconds" })(
    `0015_field_level_changes (${backend.name})`,
    (it) => {
      it.effect("rewrites the rows written before it, and only those it must", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* before0015
          const storeId = yield* TestDatabase.newStore()
          const insert = (entity: string, action: string, before: unknown, after: unknown, recorded = true) =>
            Effect.map(
              sql<{ readonly id: number }>`
                INSERT INTO changes (store_id, entity, entity_id, action, summary, before, after, values_recorded)
                VALUES (${storeId}, ${entity}, '1', ${action}, 'old', ${before === null ? null : JSON.stringify(before)}::jsonb,
                  ${after === null ? null : JSON.stringify(after)}::jsonb, ${recorded})
                RETURNING id`,
              ([row]) => row!.id
            )
          const update = yield* insert("store.design", "update", design, { ...design, border_radius: 12 })
          const created = yield* insert("store.design", "create", null, design)
          const sync = yield* insert("shipping.rates", "update", { courier: "yalidine", rates: [] }, null)
          const undoOfRates = yield* insert("shipping.rates", "update", table({ 16: [400, 250] }, 3), table({}, 4))
          const unknown = yield* insert("note", "update", { a: 1, b: 1 }, { a: 2, b: 1 })
          yield* Migrations.run
          const values = (id: number) =>
            Effect.map(
              sql<{
                readonly before: unknown
                readonly after: unknown
              }>`SELECT before, after FROM changes WHERE id = ${id}`,
              ([row]) => [row!.before, row!.after]
            )
          assert.deepStrictEqual(yield* values(update), [
            { is_digital: false, border_radius: 8 },
            { is_digital: false, border_radius: 12 }
          ])
          assert.deepStrictEqual(yield* values(created), [null, design])
          assert.deepStrictEqual(yield* values(sync), [{ courier: "yalidine", rates: [] }, null])
          assert.deepStrictEqual(yield* values(undoOfRates), [
            { rates: [{ wilaya_id: 16, home_price: 400, desk_price: 250 }], absent: [] },
            { rates: [], absent: [16] }
          ])
          assert.deepStrictEqual(yield* values(unknown), [
            { a: 1, b: 1 },
            { a: 2, b: 1 }
          ])
        }).pipe(Effect.orDie)
      )
    }
  )
}
