/**
 * The contract of `Categories`, the `category` entity and the products' categories over a `CategoryStore` and a
 * `ProductStore`, from the spec's recorded entities and undo rule 5 and our decisions (docs/store-api-config.md,
 * "Categories"), run against every implementation of the ports.
 */
import { assert, type Vitest } from "@effect/vitest"
import { type ChangeLog, Changes } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import { Categories } from "../src/Categories.ts"
import { Category } from "../src/Category.ts"
import type { CategoryStore } from "../src/CategoryStore.ts"
import type { Inventory } from "../src/Inventory.ts"
import type { ProductStore } from "../src/ProductStore.ts"
import { Products } from "../src/Products.ts"
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

const KEY = "twpk_live_cattest00000000"
const writer = (storeId: Ids.StoreId) => ({ storeId, keyId: KEY })
const actor = (storeId: Ids.StoreId) => ({
  storeId,
  keyId: KEY,
  scopes: ["store:read", "products:read", "products:write"]
})

/** The tag and message of the reason an effect fails with. */
const refusal = <A, R>(
  effect: Effect.Effect<A, { readonly reason: { readonly _tag: string; readonly message: string } }, R>
) => Effect.map(Effect.flip(effect), (error) => [error.reason._tag, error.reason.message] as const)

const wire = Schema.encodeSync(Category)

/** What the caller sees of a category, without the times every write moves. */
const shown = (category: Category) => {
  const { created_at: _, updated_at: __, ...rest } = wire(category)
  return rest
}

export const CategoriesSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("creates categories with derived slugs and positions at the end, lists them newest first, reads one", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const store = yield* (yield* Fixtures).newStore
      const robes = yield* categories.create(writer(store), { name: "Robes kabyles", description: "Faites main" })
      assert.deepStrictEqual(shown(robes), {
        id: robes.id,
        name: "Robes kabyles",
        slug: "robes-kabyles",
        description: "Faites main",
        image: null,
        parent_id: null,
        position: 0,
        product_count: 0
      })
      assert.match(wire(robes).created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const second = yield* categories.create(writer(store), { name: "Robes kabyles", image: "categories/robes.webp" })
      assert.deepInclude(shown(second), { slug: "robes-kabyles-2", position: 1, image: "categories/robes.webp" })
      const placed = yield* categories.create(writer(store), { name: "Crème & Savon", position: 7 })
      assert.deepInclude(shown(placed), { slug: "creme-savon", position: 7 })
      const arabic = yield* categories.create(writer(store), { name: "ملابس تقليدية" })
      assert.match(arabic.slug, /^category-[0-9a-f]{6}$/)
      assert.strictEqual(arabic.position, 8)

      const page = yield* categories.list(store, { limit: "3" })
      assert.deepStrictEqual(
        page.items.map((item) => item.id),
        [arabic.id, placed.id, second.id]
      )
      assert.isTrue(page.has_more)
      const next = yield* categories.list(store, { limit: "3", cursor: page.next_cursor ?? "" })
      assert.deepStrictEqual(
        next.items.map((item) => item.id),
        [robes.id]
      )
      assert.isFalse(next.has_more)
      assert.deepStrictEqual(wire(yield* categories.get(store, robes.id)), wire(robes))

      const other = yield* (yield* Fixtures).newStore
      assert.deepStrictEqual((yield* categories.list(other)).items, [])
      for (const id of [robes.id, 0, 2_147_483_648]) {
        assert.deepStrictEqual(yield* refusal(categories.get(other, id)), ["CategoryNotFound", "Category not found"])
      }
    })
  )

  it.effect("refuses bodies that break a rule with the field's message, writing nothing", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[], "Body must be a JSON object"],
        [{}, "name is required (1-255 chars)"],
        [{ name: "" }, "name is required (1-255 chars)"],
        [{ name: "x".repeat(256) }, "name is required (1-255 chars)"],
        [{ name: "Ro\u0000bes" }, "name is required (1-255 chars)"],
        [{ name: "Robes", description: "\ud800" }, "description must be a string of at most 5000 chars or null"],
        [
          { name: "Robes", description: "x".repeat(5001) },
          "description must be a string of at most 5000 chars or null"
        ],
        [
          { name: "Robes", image: "../secret.png" },
          "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"
        ],
        [
          { name: "Robes", image: "/abs.png" },
          "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"
        ],
        [
          { name: "Robes", image: "a//b.png" },
          "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"
        ],
        [{ name: "Robes", image: "a b.png" }, "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"],
        [{ name: "Robes", image: "" }, "image must be null or a path of 1-255 chars (letters, digits, . _ - /)"],
        [{ name: "Robes", parent_id: 0 }, "parent_id must be null or a category id (a positive integer)"],
        [{ name: "Robes", parent_id: "1" }, "parent_id must be null or a category id (a positive integer)"],
        [{ name: "Robes", parent_id: 2_147_483_648 }, "parent_id must be null or a category id (a positive integer)"],
        [{ name: "Robes", position: -1 }, "position must be an integer from 0 to 2147483647"],
        [{ name: "Robes", position: 1.5 }, "position must be an integer from 0 to 2147483647"],
        [{ name: "Robes", position: 1e308 }, "position must be an integer from 0 to 2147483647"],
        [{ name: "Robes", parent_id: 999_999 }, "parent_id: category 999999 does not belong to this store"]
      ]
      for (const [body, message] of cases) {
        assert.deepStrictEqual(yield* refusal(categories.create(writer(store), body)), ["InvalidCategory", message])
      }
      const kept = yield* categories.create(writer(store), { name: "Robes", image: "cat/robe_1-a.v2.webp" })
      assert.strictEqual(kept.image, "cat/robe_1-a.v2.webp")
      assert.deepStrictEqual(yield* refusal(categories.update(writer(store), kept.id, { name: null })), [
        "InvalidCategory",
        "name must be 1-255 chars"
      ])
      assert.strictEqual((yield* categories.list(store)).items.length, 1)
      assert.strictEqual((yield* changes.list(store)).items.length, 1)
    })
  )

  it.effect("nests one level: a parent is a top-level category of the store, and a parent is not deleted", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const other = yield* fixtures.newStore
      const foreign = yield* categories.create(writer(other), { name: "Ailleurs" })
      const women = yield* categories.create(writer(store), { name: "Femmes" })
      const dresses = yield* categories.create(writer(store), { name: "Robes", parent_id: women.id })
      assert.strictEqual(dresses.parent_id, women.id)
      assert.deepStrictEqual(yield* refusal(categories.create(writer(store), { name: "X", parent_id: dresses.id })), [
        "InvalidCategory",
        `parent_id: category ${dresses.id} is a subcategory; categories nest one level only`
      ])
      assert.deepStrictEqual(yield* refusal(categories.create(writer(store), { name: "X", parent_id: foreign.id })), [
        "InvalidCategory",
        `parent_id: category ${foreign.id} does not belong to this store`
      ])
      assert.deepStrictEqual(yield* refusal(categories.update(writer(store), women.id, { parent_id: women.id })), [
        "InvalidCategory",
        "parent_id cannot be the category itself"
      ])
      const men = yield* categories.create(writer(store), { name: "Hommes" })
      assert.deepStrictEqual(yield* refusal(categories.update(writer(store), women.id, { parent_id: men.id })), [
        "InvalidCategory",
        "parent_id: a category with subcategories cannot have a parent"
      ])
      assert.deepStrictEqual(yield* refusal(categories.remove(writer(store), women.id)), [
        "HasSubcategories",
        "Category Femmes has 1 subcategory: move or delete them first"
      ])
      // Moving the subcategory out frees its parent.
      const moved = yield* categories.update(writer(store), dresses.id, { parent_id: null })
      assert.isNull(moved.parent_id)
      yield* categories.update(writer(store), women.id, { parent_id: men.id })
      assert.deepStrictEqual(yield* categories.remove(writer(store), dresses.id), { deleted: true, id: dresses.id })
      assert.deepStrictEqual(yield* refusal(categories.remove(writer(store), dresses.id)), [
        "CategoryNotFound",
        "Category not found"
      ])
      assert.deepStrictEqual(yield* refusal(categories.remove(writer(other), women.id)), [
        "CategoryNotFound",
        "Category not found"
      ])
    })
  )

  it.effect("products name their categories; counts, the list filter and a category's delete follow", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const products = yield* Products
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const other = yield* fixtures.newStore
      const a = yield* categories.create(writer(store), { name: "A" })
      const b = yield* categories.create(writer(store), { name: "B" })
      const foreign = yield* categories.create(writer(other), { name: "F" })
      const p1 = yield* products.create(store, { name: "P1", price: 100, category_ids: [b.id, a.id] })
      assert.deepStrictEqual(p1.category_ids, [a.id, b.id])
      const p2 = yield* products.create(store, { name: "P2", price: 100, category_ids: [a.id] })
      yield* products.create(store, { name: "P3", price: 100 })
      const refused = yield* Effect.flip(
        products.create(store, { name: "P4", price: 1, category_ids: [a.id, foreign.id] })
      )
      assert.strictEqual(refused.message, `category_ids[1]: category ${foreign.id} does not belong to this store`)
      for (const [ids, message] of [
        [[a.id, a.id], "category_ids[1] must be unique"],
        [[0], "category_ids[0] must be a category id (a positive integer)"],
        ["1", "category_ids must be an array of at most 50 category ids"],
        [Array.from({ length: 51 }, (_, n) => n + 1), "category_ids must be an array of at most 50 category ids"]
      ] as const) {
        assert.strictEqual((yield* Effect.flip(products.update(store, p1.id, { category_ids: ids }))).message, message)
      }
      assert.strictEqual((yield* categories.get(store, a.id)).product_count, 2)
      const inA = yield* products.list(store, { category_id: String(a.id) })
      assert.deepStrictEqual(
        inA.items.map((item) => [item.id, item.category_ids]),
        [
          [p2.id, [a.id]],
          [p1.id, [a.id, b.id]]
        ]
      )
      assert.deepStrictEqual((yield* products.list(store, { category_id: String(foreign.id) })).items, [])
      assert.deepStrictEqual((yield* products.list(store, { category_id: "99999999999" })).items, [])
      assert.strictEqual((yield* products.list(store, { category_id: "abc" })).items.length, 3, "ignored")
      // A PATCH replaces the product's categories; a deleted product is not counted.
      assert.deepStrictEqual((yield* products.update(store, p1.id, { category_ids: [b.id] })).category_ids, [b.id])
      yield* products.remove(store, p2.id)
      assert.strictEqual((yield* categories.get(store, a.id)).product_count, 0)
      assert.strictEqual((yield* categories.get(store, b.id)).product_count, 1)
      yield* categories.remove(writer(store), b.id)
      assert.deepStrictEqual((yield* products.get(store, p1.id)).category_ids, [])
    })
  )

  it.effect("records creates, updates and deletes with their values; order and no-op writes are not recorded", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const products = yield* Products
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const created = yield* categories.create(writer(store), { name: "Robes", image: "c/r.webp", position: 3 })
      const product = yield* products.create(store, { name: "P", price: 1, category_ids: [created.id] })
      yield* categories.update(writer(store), created.id, { position: 9 })
      yield* categories.update(writer(store), created.id, { name: "Robes", description: null })
      yield* categories.update(writer(store), created.id, {})
      const renamed = yield* categories.update(writer(store), created.id, { name: "Robes d'été", description: "Lin" })
      assert.strictEqual(renamed.slug, "robes-d-ete")
      assert.strictEqual(renamed.position, 9)
      yield* categories.remove(writer(store), created.id)
      const listed = (yield* changes.list(store)).items
      assert.deepStrictEqual(
        listed.map((item) => [item.entity, item.entity_id, item.action, item.summary]),
        [
          ["category", String(created.id), "delete", "Deleted category Robes d'été"],
          ["category", String(created.id), "update", "Updated category Robes d'été (name, slug, description)"],
          ["category", String(created.id), "create", "Created category Robes"]
        ]
      )
      const update = yield* changes.get(actor(store), listed[1]!.id)
      // The fields it changed, with the category's id.
      assert.deepStrictEqual(update.before, { id: created.id, name: "Robes", slug: "robes", description: null })
      assert.deepStrictEqual(update.after, {
        id: created.id,
        name: "Robes d'été",
        slug: "robes-d-ete",
        description: "Lin"
      })
      const deletion = yield* changes.get(actor(store), listed[0]!.id)
      assert.isNull(deletion.after)
      assert.deepInclude(deletion.before as object, { id: created.id, product_ids: [product.id] })
      assert.notProperty(deletion.before as object, "position")
    })
  )

  it.effect("an update's undo restores the recorded fields, not the order; its undo applies the change again", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const women = yield* categories.create(writer(store), { name: "Femmes" })
      const original = yield* categories.create(writer(store), {
        name: "Robes",
        description: "Avant",
        image: "a.webp",
        position: 4
      })
      const updated = yield* categories.update(writer(store), original.id, {
        name: "Caftans",
        description: null,
        image: "b.webp",
        parent_id: women.id,
        position: 1
      })
      assert.deepInclude(shown(updated), { slug: "caftans", parent_id: women.id, position: 1 })
      const change = (yield* changes.list(store)).items[0]!
      const undone = yield* fixtures.transaction(changes.undo(actor(store), change.id))
      assert.deepInclude(undone, { undone: true, change_id: change.id, entity: "category" })
      const restored = yield* categories.get(store, original.id)
      assert.deepStrictEqual(shown(restored), { ...shown(original), position: 1 })
      assert.deepStrictEqual(wire(restored).created_at, wire(original).created_at)
      const undo = (yield* changes.list(store)).items[0]!
      assert.deepStrictEqual(
        [undo.summary, undo.action, undo.entity_id],
        [`Undo of change #${change.id}`, "update", String(original.id)]
      )
      assert.deepStrictEqual(yield* refusal(fixtures.transaction(changes.undo(actor(store), change.id))), [
        "AlreadyUndone",
        `Change #${change.id} was already undone`
      ])
      yield* fixtures.transaction(changes.undo(actor(store), undo.id))
      assert.deepStrictEqual(shown(yield* categories.get(store, original.id)), shown(updated))
      // A create has nothing to restore.
      const create = (yield* changes.list(store, { entity: "category" })).items.at(-1)!
      assert.deepStrictEqual(
        (yield* refusal(fixtures.transaction(changes.undo(actor(store), create.id))))[0],
        "NothingToRestore"
      )
    })
  )

  it.effect("an undo goes through the write's checks: a parent gone refuses it, and the change stays undoable", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const women = yield* categories.create(writer(store), { name: "Femmes" })
      const dresses = yield* categories.create(writer(store), { name: "Robes", parent_id: women.id })
      yield* categories.update(writer(store), dresses.id, { parent_id: null })
      const move = (yield* changes.list(store)).items[0]!
      yield* categories.remove(writer(store), women.id)
      const removal = (yield* changes.list(store)).items[0]!
      assert.deepStrictEqual(yield* refusal(fixtures.transaction(changes.undo(actor(store), move.id))), [
        "InvalidCategory",
        `parent_id: category ${women.id} does not belong to this store`
      ])
      // Bring the parent back first (newest first), then the move's undo runs.
      yield* fixtures.transaction(changes.undo(actor(store), removal.id))
      yield* fixtures.transaction(changes.undo(actor(store), move.id))
      assert.strictEqual((yield* categories.get(store, dresses.id)).parent_id, women.id)
      // The slug another category took since: the restored one gets the first free suffix.
      yield* categories.update(writer(store), dresses.id, { name: "Caftans" })
      const rename = (yield* changes.list(store)).items[0]!
      yield* categories.create(writer(store), { name: "Robes" })
      yield* fixtures.transaction(changes.undo(actor(store), rename.id))
      assert.deepInclude(shown(yield* categories.get(store, dresses.id)), { name: "Robes", slug: "robes-2" })
      // An update of a category deleted since cannot be restored.
      yield* categories.update(writer(store), women.id, { description: "x" })
      const late = (yield* changes.list(store)).items[0]!
      yield* categories.update(writer(store), dresses.id, { parent_id: null })
      yield* categories.remove(writer(store), women.id)
      assert.strictEqual(
        (yield* refusal(fixtures.transaction(changes.undo(actor(store), late.id))))[0],
        "RestoreTargetMissing"
      )
    })
  )

  it.effect("a deleted category returns with its id, without its image, with its products that still exist", () =>
    Effect.gen(function* () {
      const categories = yield* Categories
      const products = yield* Products
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const women = yield* categories.create(writer(store), { name: "Femmes" })
      const category = yield* categories.create(writer(store), {
        name: "Robes",
        description: "Été",
        image: "cat/robes.webp",
        parent_id: women.id,
        position: 0
      })
      yield* categories.create(writer(store), { name: "Autre", position: 5 })
      const kept = yield* products.create(store, { name: "Gardé", price: 1, category_ids: [category.id, women.id] })
      const gone = yield* products.create(store, { name: "Parti", price: 1, category_ids: [category.id] })
      yield* categories.remove(writer(store), category.id)
      const removal = (yield* changes.list(store)).items[0]!
      yield* products.remove(store, gone.id)
      const undone = yield* fixtures.transaction(changes.undo(actor(store), removal.id))
      const back = yield* categories.get(store, category.id)
      assert.deepStrictEqual(shown(back), {
        id: category.id,
        name: "Robes",
        slug: "robes",
        description: "Été",
        image: null,
        parent_id: women.id,
        position: 6,
        product_count: 1
      })
      assert.strictEqual(wire(back).created_at, wire(category).created_at)
      assert.deepStrictEqual(
        (yield* products.get(store, kept.id)).category_ids,
        [women.id, category.id].sort((x, y) => x - y)
      )
      const undo = yield* changes.get(actor(store), undone.undo_change_id!)
      assert.isNull(undo.before)
      assert.deepInclude(undo.after as object, { id: category.id, image: null, product_ids: [kept.id] })
      // Undoing that undo: a delete's undo has no `before` to go back to.
      assert.strictEqual(
        (yield* refusal(fixtures.transaction(changes.undo(actor(store), undone.undo_change_id!))))[0],
        "NothingToRestore"
      )
    })
  )
}
