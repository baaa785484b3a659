/**
 * Where categories live: the port, and its in-memory implementation (tests, one-process runs).
 *
 * Every operation is scoped to one store. The store keeps records and the invariants that need the storage's
 * atomicity: a slug unique per store (a taken one gets the first free suffix `-2`, `-3`, …), and one category write
 * of a store at a time (`serialize`), so that the one-level rule `Categories` checks holds under concurrent writes.
 * Which products are in a category is the products' port (`ProductStore`): the memory twin asks it for its counts.
 */
import type { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { Category, CategoryId } from "./Category.ts"
import { ProductStore } from "./ProductStore.ts"
import * as Slug from "./Slug.ts"

export interface ListQuery {
  /** How many rows to return at most. */
  readonly limit: number
  /** Only categories with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
}

/** What a create writes; `slug` is the wanted one (the store makes it free). */
export interface NewCategory {
  readonly name: string
  readonly slug: string
  readonly description: string | null
  readonly image: string | null
  readonly parent_id: CategoryId | null
  /** Undefined: after every category of the store. */
  readonly position: number | undefined
}

/** The columns a PATCH or an undo changes; `slug` is the wanted one (the store makes it free). */
export interface CategoryChanges {
  readonly name?: string
  readonly slug?: string
  readonly description?: string | null
  readonly image?: string | null
  readonly parent_id?: CategoryId | null
  readonly position?: number
}

/** What a deleted category returns with when an undo re-creates it. */
export interface Restored {
  readonly id: CategoryId
  readonly created_at: DateTime.Utc
}

export class CategoryStore extends Context.Service<
  CategoryStore,
  {
    /** The store's categories, newest (highest id) first. */
    readonly list: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<Category>>
    readonly get: (storeId: Ids.StoreId, id: CategoryId) => Effect.Effect<Option.Option<Category>>
    /**
     * Holds every other category write of the store until this transaction ends (SQL: a transaction-scoped lock; in
     * memory every operation is one step already).
     */
    readonly serialize: (storeId: Ids.StoreId) => Effect.Effect<void>
    /** The ids among `ids` that name categories of the store. */
    readonly existing: (storeId: Ids.StoreId, ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<CategoryId>>
    /** How many categories have this one as their parent. */
    readonly childCount: (storeId: Ids.StoreId, id: CategoryId) => Effect.Effect<number>
    /** Adds a category with the first free slug; `restore` brings a deleted one back with its id and creation time. */
    readonly insert: (storeId: Ids.StoreId, input: NewCategory, restore?: Restored) => Effect.Effect<Category>
    /** Applies `changes` (a slug made free, the category's own not counting as taken); None when absent. */
    readonly update: (
      storeId: Ids.StoreId,
      id: CategoryId,
      changes: CategoryChanges
    ) => Effect.Effect<Option.Option<Category>>
    /** Deletes the category (and, in SQL, its products' memberships); the deleted record, or None when absent. */
    readonly remove: (storeId: Ids.StoreId, id: CategoryId) => Effect.Effect<Option.Option<Category>>
  }
>()("@tawsil/catalogue/CategoryStore") {}

interface Row {
  readonly storeId: Ids.StoreId
  readonly id: CategoryId
  readonly name: string
  readonly slug: string
  readonly description: string | null
  readonly image: string | null
  readonly parent_id: CategoryId | null
  readonly position: number
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
}

/** Categories in a `Map`, on `Clock` time; product counts from the products' memory twin. */
export const layerMemory: Layer.Layer<CategoryStore, never, ProductStore> = Layer.effect(
  CategoryStore,
  Effect.gen(function* () {
    const products = yield* ProductStore
    const rows = new Map<number, Row>()
    let lastId = 0

    const own = (storeId: Ids.StoreId, id: number) => {
      const row = rows.get(id)
      return row !== undefined && row.storeId === storeId ? row : undefined
    }
    const ofStore = (storeId: Ids.StoreId) => [...rows.values()].filter((row) => row.storeId === storeId)
    const freeSlug = (storeId: Ids.StoreId, slug: string, except?: number) => {
      const taken = new Set(
        ofStore(storeId)
          .filter((row) => row.id !== except)
          .map((row) => row.slug)
      )
      return Slug.firstFree(slug, (candidate) => taken.has(candidate))
    }
    const toCategory = ({ storeId, ...row }: Row) =>
      Effect.map(
        products.productsIn(storeId, row.id),
        (members) => new Category({ ...row, product_count: members.length })
      )

    return CategoryStore.of({
      list: (storeId, query) =>
        Effect.forEach(
          ofStore(storeId)
            .filter((row) => query.afterId === undefined || row.id < query.afterId)
            .sort((a, b) => b.id - a.id)
            .slice(0, query.limit),
          toCategory
        ),
      get: (storeId, id) => {
        const row = own(storeId, id)
        return row === undefined ? Effect.succeedNone : Effect.map(toCategory(row), Option.some)
      },
      serialize: () => Effect.void,
      existing: (storeId, ids) =>
        Effect.sync(() => ids.filter((id) => own(storeId, id) !== undefined).map((id) => CategoryId.make(id))),
      childCount: (storeId, id) => Effect.sync(() => ofStore(storeId).filter((row) => row.parent_id === id).length),
      insert: (storeId, { slug, position, ...input }, restore) =>
        Effect.flatMap(DateTime.now, (now) => {
          const id = restore !== undefined && !rows.has(restore.id) ? restore.id : CategoryId.make(++lastId)
          lastId = Math.max(lastId, id)
          const row: Row = {
            storeId,
            id,
            ...input,
            slug: freeSlug(storeId, slug),
            position: position ?? Math.max(-1, ...ofStore(storeId).map((other) => other.position)) + 1,
            created_at: restore?.created_at ?? now,
            updated_at: now
          }
          rows.set(id, row)
          return toCategory(row)
        }),
      update: (storeId, id, { slug, ...changes }) =>
        Effect.flatMap(DateTime.now, (now) => {
          const current = own(storeId, id)
          if (current === undefined) return Effect.succeedNone
          const row: Row = {
            ...current,
            ...changes,
            ...(slug === undefined ? {} : { slug: freeSlug(storeId, slug, id) }),
            updated_at: now
          }
          rows.set(id, row)
          return Effect.map(toCategory(row), Option.some)
        }),
      remove: (storeId, id) => {
        const current = own(storeId, id)
        if (current === undefined) return Effect.succeedNone
        return Effect.map(toCategory(current), (category) => {
          rows.delete(id)
          return Option.some(category)
        })
      }
    })
  })
)
