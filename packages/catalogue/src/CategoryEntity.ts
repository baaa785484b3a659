/**
 * Categories as an entity of the change history (`category`, entity id the category's id, scopes `products:read` /
 * `products:write`; spec "Undo rules" 1 and 5).
 *
 * An update's undo writes back the name, slug (made free again if another category took it), description, image and
 * parent, through the parent rules of a PATCH (`checkParent`: a parent deleted or nested since refuses the undo as
 * that PATCH would be refused); it leaves `position` (category order is not recorded) and the products in the
 * category (written through the products, not recorded). A deleted category returns with its id and creation time,
 * without its image, at the end of the store's order, with the products recorded in it that still exist.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option } from "effect"
import { checkParent, notFound, snapshot } from "./Categories.ts"
import { CategoryId, CategoryValues } from "./Category.ts"
import { CategoryStore } from "./CategoryStore.ts"
import { ProductStore } from "./ProductStore.ts"

export const entity: Effect.Effect<Entity.Entity<CategoryValues>, never, CategoryStore | ProductStore> = Effect.gen(
  function* () {
    const store = yield* CategoryStore
    const products = yield* ProductStore
    return {
      name: "category",
      readScope: "products:read",
      undoScope: "products:write",
      values: CategoryValues,
      snapshot: (storeId, entityId) =>
        /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
          ? snapshot(store, products, storeId, CategoryId.make(Number(entityId)))
          : Effect.succeedNone,
      write: Effect.fnUntraced(function* (storeId, _entityId, values, how) {
        yield* store.serialize(storeId)
        if (how === "recreate") {
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
        if (values.parent_id !== current.value.parent_id) {
          yield* checkParent(store, storeId, values.id, values.parent_id)
        }
        yield* store.update(storeId, values.id, {
          name: values.name,
          slug: values.slug,
          description: values.description,
          image: values.image,
          parent_id: values.parent_id
        })
        return String(values.id)
      })
    } satisfies Entity.Entity<CategoryValues>
  }
)
