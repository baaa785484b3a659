/**
 * Where products live: the port, and its in-memory implementation (tests, one-process development).
 *
 * Every operation is scoped to one store: another store's product, like a deleted one, is simply absent. A store
 * applies no rule of the API: `Products` validates bodies, pages lists and turns absence into `NotFound`.
 */
import { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import {
  Product,
  type ProductInput,
  type ProductPatch,
  type ProductStatus,
  type ProductSummary,
  toSummary,
  VariantGroup,
  type VariantGroupInput,
  VariantOption
} from "./Product.ts"

export interface ListQuery {
  /** How many rows to return at most. */
  readonly limit: number
  /** Only products with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
  readonly status: ProductStatus | undefined
}

export class ProductStore extends Context.Service<
  ProductStore,
  {
    /** The store's products, newest (highest id) first. */
    readonly list: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<ProductSummary>>
    readonly get: (storeId: Ids.StoreId, id: Ids.ProductId) => Effect.Effect<Option.Option<Product>>
    /** Whether the store has this product (not deleted). */
    readonly exists: (storeId: Ids.StoreId, id: Ids.ProductId) => Effect.Effect<boolean>
    readonly insert: (storeId: Ids.StoreId, input: ProductInput) => Effect.Effect<Product>
    /** Applies the fields present in `patch`; `variant_groups` replaces all groups. None when absent. */
    readonly update: (
      storeId: Ids.StoreId,
      id: Ids.ProductId,
      patch: ProductPatch
    ) => Effect.Effect<Option.Option<Product>>
    /** Marks the product deleted; false when it was absent. */
    readonly remove: (storeId: Ids.StoreId, id: Ids.ProductId) => Effect.Effect<boolean>
  }
>()("@tawsil/catalogue/ProductStore") {}

interface Entry {
  readonly storeId: Ids.StoreId
  readonly product: Product
  readonly deleted: boolean
}

/** Products in a `Map`, on `Clock` time. */
export const layerMemory: Layer.Layer<ProductStore> = Layer.sync(ProductStore, () => {
  const entries = new Map<number, Entry>()
  let lastProductId = 0
  let lastGroupId = 0
  let lastOptionId = 0

  const live = (storeId: Ids.StoreId, id: Ids.ProductId) => {
    const entry = entries.get(id)
    return entry !== undefined && entry.storeId === storeId && !entry.deleted ? entry : undefined
  }

  const groupsOf = (groups: ReadonlyArray<VariantGroupInput>) =>
    groups.map(
      (group) =>
        new VariantGroup({
          id: ++lastGroupId,
          name: group.name,
          type: group.type,
          options: group.options.map((option) => new VariantOption({ id: ++lastOptionId, ...option }))
        })
    )

  return ProductStore.of({
    list: (storeId, query) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter(
            (entry) =>
              entry.storeId === storeId &&
              !entry.deleted &&
              (query.afterId === undefined || entry.product.id < query.afterId) &&
              (query.status === undefined || entry.product.status === query.status)
          )
          .sort((a, b) => b.product.id - a.product.id)
          .slice(0, query.limit)
          .map(({ product }) => toSummary(product))
      ),
    get: (storeId, id) => Effect.sync(() => Option.fromNullishOr(live(storeId, id)?.product)),
    exists: (storeId, id) => Effect.sync(() => live(storeId, id) !== undefined),
    insert: Effect.fnUntraced(function* (storeId, { variant_groups, ...input }) {
      const now = yield* DateTime.now
      const product = new Product({
        id: Ids.ProductId.make(++lastProductId),
        ...input,
        sales_count: 0,
        variant_groups: groupsOf(variant_groups),
        created_at: now,
        updated_at: now
      })
      entries.set(product.id, { storeId, product, deleted: false })
      return product
    }),
    update: Effect.fnUntraced(function* (storeId, id, { variant_groups, ...patch }) {
      const now = yield* DateTime.now
      const entry = live(storeId, id)
      if (entry === undefined) return Option.none()
      const product = new Product({
        ...entry.product,
        ...patch,
        variant_groups: variant_groups === undefined ? entry.product.variant_groups : groupsOf(variant_groups),
        updated_at: now
      })
      entries.set(id, { ...entry, product })
      return Option.some(product)
    }),
    remove: (storeId, id) =>
      Effect.sync(() => {
        const entry = live(storeId, id)
        if (entry === undefined) return false
        entries.set(id, { ...entry, deleted: true })
        return true
      })
  })
})
