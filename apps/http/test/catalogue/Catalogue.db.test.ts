/**
 * Categories and stock over a socket, on each database (docs/store-api-config.md, "Categories" and "Stock"; spec
 * store-api-config "Change history", undo rules 5 and 7): for each, a write, its change listed and in detail, its
 * undo (the item reads as before) and the undo's undo; a deleted category back with its id, without its image, with
 * its products; orders committing and restoring stock as they did; 50 simultaneous undos of one stock change; a
 * stock undo racing order creates and confirmations, the final stock being the arithmetic of what committed; and the
 * walk-back property over `CatalogueWrites`. The category and stock reads are not cached: every read below is fresh
 * (the cached product list catching up 30 s later is a memory test on `TestClock`, `store/Stock.test.ts`).
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Ref } from "effect"
import * as fc from "fast-check"
import { type Client, codeOf, dashboardStore } from "../ConfigHarness.ts"
import { backends, sql, storeServer } from "../StoreHarness.ts"
import { applyWrite, type CatalogueWrite, catalogueWrite, requestOf, seed, stateOf } from "./CatalogueWrites.ts"

/** The newest change of an entity, listed and in detail. */
const newest = (c: Client, entity: string) =>
  Effect.gen(function* () {
    const listed = (yield* c.get(`/v1/changes?entity=${entity}&limit=1`)).body.data.items[0]
    const detail = (yield* c.get(`/v1/changes/${listed.id}`)).body.data
    return { listed, detail }
  })

const undo = (c: Client, id: number) => c.write("POST", `/v1/changes/${id}/undo`)

/** A category as read, without the update time every write moves. */
const category = (c: Client, id: number) =>
  Effect.map(c.get(`/v1/categories/${id}`), ({ body }) => {
    const { updated_at: _, ...rest } = body.data
    return rest
  })

const customer = { name: "Amine Kaci", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

const dress = {
  name: "Robe kabyle",
  price: 4500,
  stock: 40,
  variant_groups: [
    {
      name: "Taille",
      type: "text",
      options: [
        { value: "M", stock: 100 },
        { value: "XL", stock: 5 }
      ]
    }
  ]
}

/** The product's own quantity and its option M's, as the stock endpoint reads them. */
const levels = (c: Client, id: number) =>
  Effect.map(c.get(`/v1/products/${id}/stock`), ({ body }) => [
    body.data.stock as number,
    body.data.variants[0].stock as number
  ])

let undoneInAllRuns = 0

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "300 seconds", excludeTestServices: true })(
    `categories and stock (${backend.name})`,
    (it) => {
      it.effect("category: listed, detailed, undone (reads as before), the undo undone (reads as after)", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const women = (yield* dashboard.write("POST", "/v1/categories", { name: "Femmes" })).body.data
          const robes = (yield* dashboard.write("POST", "/v1/categories", {
            name: "Robes",
            image: "categories/robes.webp"
          })).body.data
          const before = yield* category(dashboard, robes.id)
          const patched = yield* dashboard.write("PATCH", `/v1/categories/${robes.id}`, {
            name: "Robes d'été",
            description: "Lin et coton",
            parent_id: women.id
          })
          assert.strictEqual(patched.status, 200, patched.text)
          const after = yield* category(dashboard, robes.id)
          const { listed, detail } = yield* newest(dashboard, "category")
          assert.deepInclude(listed, {
            entity: "category",
            entity_id: String(robes.id),
            action: "update",
            undone: false,
            summary: "Updated category Robes d'été (name, slug, description, parent_id)"
          })
          assert.deepInclude(detail.before, { name: "Robes", slug: "robes", description: null, parent_id: null })
          assert.deepInclude(detail.after, { name: "Robes d'été", slug: "robes-d-ete", parent_id: women.id })
          const undone = yield* undo(dashboard, listed.id)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual(yield* category(dashboard, robes.id), before)
          assert.deepStrictEqual(codeOf(yield* undo(dashboard, listed.id)), [409, "already_undone"])
          const again = yield* undo(dashboard, undone.body.data.undo_change_id)
          assert.strictEqual(again.status, 200, again.text)
          assert.deepStrictEqual(yield* category(dashboard, robes.id), after)
        })
      )

      it.effect(
        "a deleted category returns with its id, without its image, with its products; its undo's undo is 422",
        () =>
          Effect.gen(function* () {
            const { dashboard } = yield* dashboardStore()
            const robes = (yield* dashboard.write("POST", "/v1/categories", {
              name: "Robes",
              description: "Été",
              image: "categories/robes.webp"
            })).body.data
            const product = (yield* dashboard.write("POST", "/v1/products", { ...dress, category_ids: [robes.id] }))
              .body.data
            assert.strictEqual((yield* dashboard.write("DELETE", `/v1/categories/${robes.id}`)).status, 200)
            assert.deepStrictEqual((yield* dashboard.get(`/v1/products/${product.id}`)).body.data.category_ids, [])
            const { listed, detail } = yield* newest(dashboard, "category")
            assert.deepInclude(listed, { action: "delete", summary: "Deleted category Robes" })
            assert.isNull(detail.after)
            assert.deepInclude(detail.before, {
              id: robes.id,
              image: "categories/robes.webp",
              product_ids: [product.id]
            })
            const undone = yield* undo(dashboard, listed.id)
            assert.strictEqual(undone.status, 200, undone.text)
            assert.deepStrictEqual(yield* category(dashboard, robes.id), {
              id: robes.id,
              name: "Robes",
              slug: "robes",
              description: "Été",
              image: null,
              parent_id: null,
              position: 0,
              product_count: 1,
              created_at: robes.created_at
            })
            assert.deepStrictEqual((yield* dashboard.get(`/v1/products/${product.id}`)).body.data.category_ids, [
              robes.id
            ])
            assert.deepStrictEqual(codeOf(yield* undo(dashboard, undone.body.data.undo_change_id)), [
              422,
              "nothing_to_restore"
            ])
            // The rows as PostgreSQL keeps them: one category, one membership.
            const db = yield* sql
            const [rows] = yield* db<{ readonly categories: number; readonly members: number }>`
            SELECT (SELECT count(*)::int FROM categories WHERE id = ${robes.id}) AS categories,
              (SELECT count(*)::int FROM product_categories WHERE category_id = ${robes.id}) AS members`.pipe(
              Effect.orDie
            )
            assert.deepStrictEqual(rows, { categories: 1, members: 1 })
          })
      )

      it.effect("stock: listed, detailed, undone (reads as before, sales since or not), the undo undone", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const product = (yield* dashboard.write("POST", "/v1/products", dress)).body.data
          const path = `/v1/products/${product.id}/stock`
          const before = (yield* dashboard.get(path)).body.data
          const set = yield* dashboard.write("POST", path, {
            stock: 250,
            variants: [{ group_name: "Taille", option_name: "XL", stock: 30 }]
          })
          assert.strictEqual(set.status, 200, set.text)
          const after = (yield* dashboard.get(path)).body.data
          const { listed, detail } = yield* newest(dashboard, "stock")
          assert.deepInclude(listed, {
            entity: "stock",
            entity_id: String(product.id),
            action: "update",
            summary: `Set stock of product #${product.id}: 40 → 250, Taille XL 5 → 30`
          })
          const xl = before.variants[1]
          assert.deepStrictEqual(detail.before, { product_id: product.id, stock: 40, variants: [xl] })
          assert.deepStrictEqual(detail.after, { product_id: product.id, stock: 250, variants: [{ ...xl, stock: 30 }] })
          const undone = yield* undo(dashboard, listed.id)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual((yield* dashboard.get(path)).body.data, before)
          const again = yield* undo(dashboard, undone.body.data.undo_change_id)
          assert.strictEqual(again.status, 200, again.text)
          assert.deepStrictEqual((yield* dashboard.get(path)).body.data, after)
          // The product's detail reads what the stock endpoint reads.
          const read = (yield* dashboard.get(`/v1/products/${product.id}`)).body.data
          assert.deepStrictEqual(
            [read.stock, read.variant_groups[0].options.map((option: { stock: number }) => option.stock)],
            [250, [100, 30]]
          )
        })
      )

      it.effect("orders commit and restore stock as they did, around stock writes and their undo", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const product = (yield* dashboard.write("POST", "/v1/products", dress)).body.data
          yield* dashboard.write("POST", `/v1/products/${product.id}/stock`, { stock: 20 })
          const change = (yield* newest(dashboard, "stock")).listed
          const order = (yield* dashboard.write("POST", "/v1/orders", {
            customer,
            items: [{ product_id: product.id, quantity: 3, variants: [{ group_name: "Taille", option_name: "M" }] }]
          })).body.data
          assert.deepStrictEqual(yield* levels(dashboard, product.id), [20, 100], "a pending order commits nothing")
          yield* dashboard.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
          assert.deepStrictEqual(yield* levels(dashboard, product.id), [17, 97])
          // The undo sets the recorded number, whatever was sold since (spec undo rule 7).
          yield* undo(dashboard, change.id)
          assert.deepStrictEqual(yield* levels(dashboard, product.id), [40, 97])
          yield* dashboard.write("POST", `/v1/orders/${order.id}/cancel`)
          assert.deepStrictEqual(yield* levels(dashboard, product.id), [43, 100])
          assert.strictEqual((yield* dashboard.get(`/v1/products/${product.id}`)).body.data.sales_count, 0)
        })
      )

      it.effect("of 50 simultaneous undos of one stock change one answers 200, the others 409 already_undone", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const product = (yield* dashboard.write("POST", "/v1/products", dress)).body.data
          yield* dashboard.write("POST", `/v1/products/${product.id}/stock`, { adjust: 60 })
          const change = (yield* newest(dashboard, "stock")).listed
          const answers = yield* Effect.all(
            Array.from({ length: 50 }, () => undo(dashboard, change.id)),
            { concurrency: "unbounded" }
          )
          const statuses = answers.map(codeOf)
          assert.strictEqual(statuses.filter(([status]) => status === 200).length, 1, JSON.stringify(statuses))
          assert.deepStrictEqual(
            statuses.filter(([status]) => status !== 200),
            Array.from({ length: 49 }, () => [409, "already_undone"] as const)
          )
          assert.deepStrictEqual(yield* levels(dashboard, product.id), [40, 100])
          const undos = (yield* dashboard.get("/v1/changes?entity=stock")).body.data.items.filter(
            (item: { summary: string }) => item.summary === `Undo of change #${change.id}`
          )
          assert.strictEqual(undos.length, 1, "one undo recorded")
        })
      )

      it.effect("a stock undo racing 24 order creates and confirmations loses none of them", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const product = (yield* dashboard.write("POST", "/v1/products", dress)).body.data
          // The change to undo: 40 → 1000, M 100 → 500.
          yield* dashboard.write("POST", `/v1/products/${product.id}/stock`, {
            stock: 1000,
            variants: [{ group_name: "Taille", option_name: "M", stock: 500 }]
          })
          const change = (yield* newest(dashboard, "stock")).listed
          const quantities = Array.from({ length: 24 }, (_, n) => 1 + (n % 2))
          const sold = quantities.reduce((sum, q) => sum + q, 0)
          // Each order is created (no stock effect) then confirmed (its stock committed), started 40 ms apart; the
          // undo starts once 8 confirmations are in, while the others run (on both databases about 15 of the 36
          // pieces commit before it).
          const confirmed = yield* Ref.make(0)
          const started = yield* Deferred.make<void>()
          const sale = (quantity: number, index: number) =>
            Effect.gen(function* () {
              const created = yield* dashboard.write("POST", "/v1/orders", {
                customer: { ...customer, phone: `0555 00 ${String(10 + index).padStart(2, "0")} 00` },
                items: [{ product_id: product.id, quantity, variants: [{ group_name: "Taille", option_name: "M" }] }]
              })
              assert.strictEqual(created.status, 200, created.text)
              const moved = yield* dashboard.write("PATCH", `/v1/orders/${created.body.data.id}`, {
                status: "confirmed"
              })
              assert.strictEqual(moved.status, 200, moved.text)
              if ((yield* Ref.updateAndGet(confirmed, (n) => n + 1)) === 8) yield* Deferred.succeed(started, undefined)
            }).pipe(Effect.delay(`${index * 40} millis`))
          const [undone] = yield* Effect.all(
            [Effect.andThen(Deferred.await(started), undo(dashboard, change.id)), ...quantities.map(sale)] as const,
            { concurrency: "unbounded" }
          )
          assert.strictEqual(undone.status, 200, undone.text)
          // The undo's record holds the stock as the undo found it: 1000 minus what committed before it.
          const found = (yield* dashboard.get(`/v1/changes/${undone.body.data.undo_change_id}`)).body.data.before
          const before = 1000 - found.stock
          assert.strictEqual(found.variants[0].stock, 500 - before)
          // After it: the recorded 40 (M: 100) minus what committed after it; together, everything sold.
          const [stock, m] = yield* levels(dashboard, product.id)
          assert.strictEqual(before + (40 - stock!), sold)
          assert.strictEqual(before + (100 - m!), sold)
          assert.isAtLeast(before, 0)
          assert.isAtLeast(40 - stock!, 0)
          assert.strictEqual((yield* dashboard.get(`/v1/products/${product.id}`)).body.data.sales_count, sold)
        })
      )

      it.effect(
        "property: any sequence of category and stock writes, undone newest first, restores the catalogue",
        () =>
          Effect.gen(function* () {
            undoneInAllRuns = 0
            const context = yield* Effect.context<Effect.Services<ReturnType<typeof run>>>()
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(fc.array(catalogueWrite, { minLength: 1, maxLength: 8 }), (writes) =>
                  Effect.runPromiseWith(context)(run(writes)).then(
                    (outcome) => outcome === true || Promise.reject(new Error(outcome))
                  )
                ),
                { numRuns: 15, seed: 2_026_012 }
              )
            )
            assert.isAbove(undoneInAllRuns, 30, "the runs' writes were mostly accepted, and recorded")
          })
      )
    }
  )
}

const run = (writes: ReadonlyArray<CatalogueWrite>) =>
  Effect.gen(function* () {
    const { dashboard } = yield* dashboardStore()
    const request = requestOf(dashboard)
    const seeded = yield* seed(request)
    const before = yield* stateOf(request, seeded)
    const since = (yield* dashboard.get("/v1/changes?limit=1")).body.data.items[0].id as number
    for (const write of writes) {
      const answer = yield* applyWrite(request, seeded, write)
      if (answer.status >= 500) return `${write.kind} answered ${answer.text}`
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    undoneInAllRuns += recorded.length
    for (const change of recorded) {
      const undone = yield* undo(dashboard, change.id)
      if (undone.status !== 200) return `undo of #${change.id} (${change.summary}) answered ${undone.text}`
    }
    assert.deepStrictEqual(yield* stateOf(request, seeded), before)
    return true
  })
