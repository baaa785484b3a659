/**
 * The store API's categories: list, read, create, PATCH and delete over a `CategoryStore`, each write recorded in the
 * change history (entity `category`, entity id the category's id) in the same transaction.
 *
 * - Categories nest one level: a parent must be a top-level category of the store, and a category with
 *   subcategories cannot get a parent nor be deleted (`HasSubcategories`: move or delete them first). The store's
 *   category writes run one at a time (`CategoryStore.serialize`), so the rule holds under concurrent writes.
 * - The slug is derived from the name (`category-` and 6 hex characters for a name with no Latin letter or digit),
 *   made unique per store with `-2`, `-3`, …; a rename derives a new one.
 * - Deleting takes the category's products out of it (the products stay); its record keeps their ids, so an undo
 *   puts back those that still exist.
 * - `position` is the storefront menu's order: not recorded, so a PATCH that only moves a category records nothing
 *   (spec: "category order" is not undoable), and an undo leaves it alone.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, Ids, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { identity } from "effect/Function"
import {
  type Category,
  CategoryCreateBody,
  type CategoryDeleted,
  CategoryId,
  CategoryUpdateBody,
  CategoryValues,
  LAYOUT
} from "./Category.ts"
import * as CategoryError from "./CategoryError.ts"
import { type CategoryChanges, CategoryStore } from "./CategoryStore.ts"
import { ProductStore } from "./ProductStore.ts"
import * as Slug from "./Slug.ts"

export const ENTITY = "category"
export const NOT_FOUND = "Category not found"
export const SLUG_PREFIX = "category"

export interface ListParams {
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
}

export class Categories extends Context.Service<
  Categories,
  {
    /** `GET /v1/categories`: newest first, in cursor pages. */
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<Pagination.Page<Category>>
    readonly get: (storeId: Ids.StoreId, id: number) => Effect.Effect<Category, CategoryError.CategoryError>
    readonly create: (writer: ChangeLog.Writer, body: unknown) => Effect.Effect<Category, CategoryError.CategoryError>
    /** Only sent fields change; a write that changes no recorded field records nothing. */
    readonly update: (
      writer: ChangeLog.Writer,
      id: number,
      body: unknown
    ) => Effect.Effect<Category, CategoryError.CategoryError>
    readonly remove: (
      writer: ChangeLog.Writer,
      id: number
    ) => Effect.Effect<CategoryDeleted, CategoryError.CategoryError>
  }
>()("@tawsil/catalogue/Categories") {}

const refuse = (reason: CategoryError.CategoryErrorReason) => Effect.fail(CategoryError.fail(reason))
export const notFound = () => refuse(new CategoryError.CategoryNotFound({ message: NOT_FOUND }))
const invalid = (message: string) => CategoryError.fail(new CategoryError.InvalidCategory({ message }))
const decodeCreate = BodyFields.decode(CategoryCreateBody, ({ text }) => invalid(text))
const decodeUpdate = BodyFields.decode(CategoryUpdateBody, ({ text }) => invalid(text))

export const hasSubcategories = (name: string, count: number) =>
  `Category ${name} has ${count} subcategor${count === 1 ? "y" : "ies"}: move or delete them first`

/** A category as the change history records it (`CategoryValues`, encoded). */
export const recorded = (category: Category, productIds: ReadonlyArray<number>) =>
  Schema.encodeSync(CategoryValues)(
    new CategoryValues({
      id: category.id,
      name: category.name,
      slug: category.slug,
      description: category.description,
      image: category.image,
      parent_id: category.parent_id,
      product_ids: productIds,
      created_at: category.created_at,
      updated_at: category.updated_at
    })
  )

const RECORDED_FIELDS = ["name", "slug", "description", "image", "parent_id"] as const

/** The recorded fields whose values differ between two records. */
export const changedFields = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  RECORDED_FIELDS.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))

/**
 * The rules of a category's parent, for a write that sets it (create, a PATCH or an undo that changes it): the
 * category itself, a category of another store, a subcategory, or any parent of a category with subcategories are
 * refused.
 */
export const checkParent = Effect.fnUntraced(function* (
  store: CategoryStore["Service"],
  storeId: Ids.StoreId,
  self: CategoryId | undefined,
  parentId: CategoryId | null
) {
  if (parentId === null) return
  if (parentId === self) return yield* Effect.fail(invalid("parent_id cannot be the category itself"))
  const parent = yield* store.get(storeId, parentId)
  if (Option.isNone(parent)) {
    return yield* Effect.fail(invalid(`parent_id: category ${parentId} does not belong to this store`))
  }
  if (parent.value.parent_id !== null) {
    return yield* Effect.fail(
      invalid(`parent_id: category ${parentId} is a subcategory; categories nest one level only`)
    )
  }
  if (self !== undefined && (yield* store.childCount(storeId, self)) > 0) {
    return yield* Effect.fail(invalid("parent_id: a category with subcategories cannot have a parent"))
  }
})

/** A category's current values as the change history records them; None when it does not exist. */
export const snapshot = (
  store: CategoryStore["Service"],
  products: ProductStore["Service"],
  storeId: Ids.StoreId,
  id: CategoryId
) =>
  Effect.flatMap(store.get(storeId, id), (found) =>
    Option.match(found, {
      onNone: () => Effect.succeedNone,
      onSome: (category) =>
        Effect.map(products.productsIn(storeId, category.id), (ids) => Option.some(recorded(category, ids)))
    })
  )

export const layer: Layer.Layer<Categories, never, CategoryStore | ProductStore | ChangeLog.ChangeLog> = Layer.effect(
  Categories,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* CategoryStore
    const products = yield* ProductStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    const existing = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      const found = yield* store.get(storeId, CategoryId.make(id))
      if (Option.isNone(found)) return yield* notFound()
      return found.value
    })

    const membersOf = (storeId: Ids.StoreId, category: Category) => products.productsIn(storeId, category.id)

    return Categories.of({
      list: method("Categories.list")(function* (storeId, params = {}) {
        const limit = Pagination.limitOf(params.limit)
        const rows = yield* store.list(storeId, { limit: limit + 1, afterId: Pagination.afterIdOf(params.cursor) })
        return Pagination.page(rows, limit, (row) => row.id, identity)
      }),
      get: method("Categories.get")(function* (storeId, id) {
        return yield* existing(storeId, id)
      }),
      create: method("Categories.create")(function* (writer, body) {
        const input = yield* decodeCreate(body)
        const parentId = input.parent_id === null ? null : CategoryId.make(input.parent_id)
        yield* store.serialize(writer.storeId)
        yield* checkParent(store, writer.storeId, undefined, parentId)
        const created = yield* store.insert(writer.storeId, {
          name: input.name,
          slug: yield* Slug.derive(input.name, SLUG_PREFIX),
          description: input.description,
          image: input.image,
          parent_id: parentId,
          position: input.position
        })
        yield* record(writer, "create", created.id, `Created category ${created.name}`, null, recorded(created, []))
        return created
      }),
      update: method("Categories.update")(function* (writer, id, body) {
        yield* existing(writer.storeId, id)
        const patch = yield* decodeUpdate(body)
        if (Object.keys(patch).length === 0) return yield* existing(writer.storeId, id)
        yield* store.serialize(writer.storeId)
        // Read again under the store's category lock: what the checks and the record compare with.
        const current = yield* existing(writer.storeId, id)
        const parentId =
          patch.parent_id === undefined || patch.parent_id === null ? patch.parent_id : CategoryId.make(patch.parent_id)
        if (parentId !== undefined && parentId !== current.parent_id) {
          yield* checkParent(store, writer.storeId, current.id, parentId)
        }
        const changes: CategoryChanges = {
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.name === undefined || patch.name === current.name
            ? {}
            : { slug: yield* Slug.derive(patch.name, SLUG_PREFIX) }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.image === undefined ? {} : { image: patch.image }),
          ...(parentId === undefined ? {} : { parent_id: parentId }),
          ...(patch.position === undefined ? {} : { position: patch.position })
        }
        const updated = yield* store.update(writer.storeId, current.id, changes)
        if (Option.isNone(updated)) return yield* notFound()
        const members = yield* membersOf(writer.storeId, current)
        const before = recorded(current, members)
        const after = recorded(updated.value, members)
        const changed = changedFields(before, after)
        if (changed.length > 0) {
          yield* record(
            writer,
            "update",
            current.id,
            `Updated category ${updated.value.name} (${changed.join(", ")})`,
            before,
            after
          )
        }
        return updated.value
      }),
      remove: method("Categories.remove")(function* (writer, id) {
        yield* existing(writer.storeId, id)
        yield* store.serialize(writer.storeId)
        const current = yield* existing(writer.storeId, id)
        const children = yield* store.childCount(writer.storeId, current.id)
        if (children > 0) {
          return yield* refuse(
            new CategoryError.HasSubcategories({ message: hasSubcategories(current.name, children) })
          )
        }
        const before = recorded(current, yield* membersOf(writer.storeId, current))
        yield* products.detachCategory(writer.storeId, current.id)
        const removed = yield* store.remove(writer.storeId, current.id)
        if (Option.isNone(removed)) return yield* notFound()
        yield* record(writer, "delete", current.id, `Deleted category ${current.name}`, before, null)
        return { deleted: true as const, id: current.id }
      })
    })
  })
)
