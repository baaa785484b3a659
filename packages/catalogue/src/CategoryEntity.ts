/**
 * Categories as an entity of the change history (`category`, entity id the category's id, scopes `products:read` /
 * `products:write`; spec "Undo rules" 1 and 5).
 *
 * An update records the fields it changed; its undo writes back those of the name, slug (made free again if another
 * category took it), description, image and parent, through the parent rules of a PATCH (`checkParent`: a parent
 * deleted or nested since refuses the undo as that PATCH would be refused), and leaves the others as later writes
 * made them, `position` (category order is not recorded) and the products in the category (written through the
 * products, not recorded) among them. A deleted category returns with its id and creation time,
 * without its image, at the end of the store's order, with the products recorded in it that still exist.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option, Schema } from "effect"
import { checkParent, notFound, snapshot } from "./Categories.ts"
import { CategoryFields, CategoryId, LAYOUT, RecordedCategory } from "./Category.ts"
import { CategoryStore } from "./CategoryStore.ts"
import { ProductStore } from "./ProductStore.ts"

const isWhole = Schema.is(CategoryFields)

export const entity: Effect.Effect<Entity.Entity<RecordedCategory>, never, CategoryStore | ProductStore> = Effect.gen(
  function* () {
    const store = yield* CategoryStore
    const products = yield* ProductStore
    return {
      name: "category",
      readScope: "products:read",
      undoScope: "products:write",
      values: RecordedCategory,
      layout: LAYOUT,
      snapshot: (storeId, entityId) =>
        /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
          ? snapshot(store, products, storeId, CategoryId.make(Number(entityId)))
          : Effect.succeedNone,
      write: Effect.fnUntraced(function* (storeId, _entityId, values, how) {
        yield* store.serialize(storeId)
        if (how === "recreate") {
          // A delete records the whole category.
          if (!isWhole(values)) return yield* Effect.die(new Error("a category's delete recorded part of it"))
          yield* checkParent(store, storeId, undefined, values.parent_id)
          const created = yield* store.insert(
            storeId,
            {
              name: values.name,
              slug: values.slug,
              description: values.description,
              image: null,
              parent_id: values.parent_id,
              position: undefined
            },
            { id: values.id, created_at: values.created_at }
          )
          yield* products.attachCategory(storeId, created.id, values.product_ids)
          return String(created.id)
        }
        const current = yield* store.get(storeId, values.id)
        if (Option.isNone(current)) return yield* notFound()
        if (values.parent_id !== undefined && values.parent_id !== current.value.parent_id) {
          yield* checkParent(store, storeId, values.id, values.parent_id)
        }
        const { name, slug, description, image, parent_id } = values
        yield* store.update(storeId, values.id, {
          ...(name === undefined ? {} : { name }),
          ...(slug === undefined ? {} : { slug }),
          ...(description === undefined ? {} : { description }),
          ...(image === undefined ? {} : { image }),
          ...(parent_id === undefined ? {} : { parent_id })
        })
        return String(values.id)
      })
    } satisfies Entity.Entity<RecordedCategory>
  }
)
