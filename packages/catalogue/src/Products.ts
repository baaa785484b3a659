/**
 * The store API's products: list, read, create, PATCH and delete, over a `ProductStore`.
 *
 * - Lists are newest first in cursor pages (`@tawsil/domain` `Pagination`); an unknown `status` filter is ignored.
 * - Bodies decode with `ProductCreateBody` / `ProductUpdateBody`; a failure is `InvalidProduct` with the field's
 *   message. A PATCH that sends `variant_groups` replaces them all, and one that sends `category_ids` every
 *   category; each must be a category of the store ("category_ids[1]: category 9 does not belong to this store").
 * - `category_id` filters the list on a category (an id in no category of the store gives an empty list; one that is
 *   not all digits is ignored, like an unknown `status`).
 * - A delete is soft: the row stays for the orders that reference it, and the product is `ProductNotFound` from then on,
 *   like another store's product.
 */
import { BodyFields, Ids, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option } from "effect"
import { identity } from "effect/Function"
import { CategoryStore } from "./CategoryStore.ts"
import { type ListParams, listQuery } from "./internal/listing.ts"
import {
  type Product,
  ProductCreateBody,
  type ProductDeleted,
  ProductStatus,
  type ProductSummary,
  ProductUpdateBody
} from "./Product.ts"
import * as ProductError from "./ProductError.ts"
import { ProductStore } from "./ProductStore.ts"

export type { ListParams }

/** The list's query: paging, `status`, and `category_id`. */
export interface ProductListParams extends ListParams {
  readonly category_id?: string | undefined
}

const notFound = () => ProductError.fail(new ProductError.ProductNotFound({ message: "Product not found" }))

const orNotFound = <A>(found: Option.Option<A>) =>
  Option.match(found, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })

export class Products extends Context.Service<
  Products,
  {
    readonly list: (storeId: Ids.StoreId, params?: ProductListParams) => Effect.Effect<Pagination.Page<ProductSummary>>
    readonly get: (storeId: Ids.StoreId, id: Ids.ProductId) => Effect.Effect<Product, ProductError.ProductError>
    readonly create: (storeId: Ids.StoreId, body: unknown) => Effect.Effect<Product, ProductError.ProductError>
    readonly update: (
      storeId: Ids.StoreId,
      id: Ids.ProductId,
      body: unknown
    ) => Effect.Effect<Product, ProductError.ProductError>
    readonly remove: (
      storeId: Ids.StoreId,
      id: Ids.ProductId
    ) => Effect.Effect<ProductDeleted, ProductError.ProductError>
  }
>()("@tawsil/catalogue/Products") {}

const invalid = (message: string) => ProductError.fail(new ProductError.InvalidProduct({ message }))
const decodeCreate = BodyFields.decode(ProductCreateBody, ({ text }) => invalid(text))
const decodeUpdate = BodyFields.decode(ProductUpdateBody, ({ text }) => invalid(text))

/** A `category_id` query value: digits naming a storable id, else no filter. */
const categoryFilter = (raw: string | undefined): number | undefined => {
  if (raw === undefined || !/^[0-9]{1,20}$/.test(raw)) return undefined
  const id = Number(raw)
  // An id no row can have filters to nothing rather than being ignored: it names a category, one that does not exist.
  return Ids.isStorableId(id) ? id : 0
}

export const layer: Layer.Layer<Products, never, ProductStore | CategoryStore> = Layer.effect(
  Products,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* ProductStore
    const categories = yield* CategoryStore

    /** Each sent category must be one of the store's. */
    const requireCategories = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      ids: ReadonlyArray<number> | undefined
    ) {
      if (ids === undefined || ids.length === 0) return
      const found = new Set<number>(yield* categories.existing(storeId, ids))
      const index = ids.findIndex((id) => !found.has(id))
      if (index >= 0)
        return yield* invalid(`category_ids[${index}]: category ${ids[index]} does not belong to this store`)
    })

    const get = method("Products.get")(function* (storeId: Ids.StoreId, id: Ids.ProductId) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      return yield* store.get(storeId, id).pipe(Effect.flatMap(orNotFound))
    })

    return Products.of({
      list: method("Products.list")(function* (storeId, params = {}) {
        const query = listQuery(params, ProductStatus.literals)
        const rows = yield* store.list(storeId, {
          ...query,
          limit: query.limit + 1,
          categoryId: categoryFilter(params.category_id)
        })
        return Pagination.page(rows, query.limit, (row) => row.id, identity)
      }),
      get,
      create: method("Products.create")(function* (storeId, body) {
        const input = yield* decodeCreate(body)
        yield* requireCategories(storeId, input.category_ids)
        return yield* store.insert(storeId, input)
      }),
      update: method("Products.update")(function* (storeId, id, body) {
        const current = yield* get(storeId, id)
        const patch = yield* decodeUpdate(body)
        if (Object.keys(patch).length === 0) return current
        yield* requireCategories(storeId, patch.category_ids)
        // None when deleted between the read and the write.
        return yield* store.update(storeId, id, patch).pipe(Effect.flatMap(orNotFound))
      }),
      remove: method("Products.remove")(function* (storeId, id) {
        if (!Ids.isStorableId(id) || !(yield* store.remove(storeId, id))) return yield* notFound()
        return { deleted: true, id } as const
      })
    })
  })
)
