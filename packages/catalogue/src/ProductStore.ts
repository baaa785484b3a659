/**
 * Where products live: the port, and its in-memory implementation (tests, one-process development).
 *
 * Every operation is scoped to one store: another store's product, like a deleted one, is simply absent. A store
 * applies no rule of the API: `Products` validates bodies, pages lists and turns absence into `NotFound`.
 *
 * The port also keeps which categories a product is in (written with the product, or per category by `Categories`),
 * and the stock writes of `Inventory`: `lockStock` reads a product's stock and holds every other stock write of the
 * store — an order's commit or restore included — until the caller's transaction ends, so a read-compute-write of
 * stock never loses an update.
 */
import { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { CategoryId } from "./Category.ts"
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
import * as Stock from "./Stock.ts"

export interface ListQuery {
  /** How many rows to return at most. */
  readonly limit: number
  /** Only products with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
  readonly status: ProductStatus | undefined
  /** Only products in this category. */
  readonly categoryId: number | undefined
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
    /** The store's (not deleted) products in a category, ascending. */
    readonly productsIn: (storeId: Ids.StoreId, categoryId: CategoryId) => Effect.Effect<ReadonlyArray<Ids.ProductId>>
    /** Takes every product of the store out of a category. */
    readonly detachCategory: (storeId: Ids.StoreId, categoryId: CategoryId) => Effect.Effect<void>
    /** Puts the store's products among `productIds` that still exist into a category. */
    readonly attachCategory: (
      storeId: Ids.StoreId,
      categoryId: CategoryId,
      productIds: ReadonlyArray<number>
    ) => Effect.Effect<void>
    /**
     * The product's stock, holding every other stock write of the store until the caller's transaction ends (SQL:
     * the store's row, as an order's stock move takes it, then the product's and its options'). None when absent.
     */
    readonly lockStock: (storeId: Ids.StoreId, id: Ids.ProductId) => Effect.Effect<Option.Option<Stock.ProductStock>>
    /** Sets the product's own quantity when `stock` is present, and each option's of `options` by id. */
    readonly writeStock: (storeId: Ids.StoreId, id: Ids.ProductId, write: Stock.StockWrite) => Effect.Effect<void>
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

  /** Replaces a live product's record with `change` of it (stock and memberships leave `updated_at`, as orders do). */
  const modify = (storeId: Ids.StoreId, id: number, change: (product: Product) => Product) => {
    const entry = live(storeId, id as Ids.ProductId)
    if (entry !== undefined) entries.set(id, { ...entry, product: change(entry.product) })
  }

  return ProductStore.of({
    list: (storeId, query) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter(
            (entry) =>
              entry.storeId === storeId &&
              !entry.deleted &&
              (query.afterId === undefined || entry.product.id < query.afterId) &&
              (query.status === undefined || entry.product.status === query.status) &&
              (query.categoryId === undefined || entry.product.category_ids.some((id) => id === query.categoryId))
          )
          .sort((a, b) => b.product.id - a.product.id)
          .slice(0, query.limit)
          .map(({ product }) => toSummary(product))
      ),
    get: (storeId, id) => Effect.sync(() => Option.fromNullishOr(live(storeId, id)?.product)),
    exists: (storeId, id) => Effect.sync(() => live(storeId, id) !== undefined),
    insert: Effect.fnUntraced(function* (storeId, { variant_groups, category_ids, ...input }) {
      const now = yield* DateTime.now
      const product = new Product({
        id: Ids.ProductId.make(++lastProductId),
        ...input,
        category_ids: sorted(category_ids),
        sales_count: 0,
        variant_groups: groupsOf(variant_groups),
        created_at: now,
        updated_at: now
      })
      entries.set(product.id, { storeId, product, deleted: false })
      return product
    }),
    update: Effect.fnUntraced(function* (storeId, id, { variant_groups, category_ids, ...patch }) {
      const now = yield* DateTime.now
      const entry = live(storeId, id)
      if (entry === undefined) return Option.none()
      const product = new Product({
        ...entry.product,
        ...patch,
        category_ids: category_ids === undefined ? entry.product.category_ids : sorted(category_ids),
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
      }),
    productsIn: (storeId, categoryId) =>
      Effect.sync(() =>
        [...entries.values()]
          .filter(
            (entry) => entry.storeId === storeId && !entry.deleted && entry.product.category_ids.includes(categoryId)
          )
          .map((entry) => entry.product.id)
          .sort((a, b) => a - b)
      ),
    detachCategory: (storeId, categoryId) =>
      Effect.sync(() => {
        for (const entry of entries.values()) {
          if (entry.storeId !== storeId || !entry.product.category_ids.includes(categoryId)) continue
          const category_ids = entry.product.category_ids.filter((id) => id !== categoryId)
          entries.set(entry.product.id, { ...entry, product: new Product({ ...entry.product, category_ids }) })
        }
      }),
    attachCategory: (storeId, categoryId, productIds) =>
      Effect.sync(() => {
        for (const id of productIds) {
          modify(storeId, id, (product) =>
            product.category_ids.includes(categoryId)
              ? product
              : new Product({ ...product, category_ids: sorted([...product.category_ids, categoryId]) })
          )
        }
      }),
    lockStock: (storeId, id) =>
      Effect.sync(() => Option.map(Option.fromNullishOr(live(storeId, id)?.product), Stock.of)),
    writeStock: (storeId, id, write) =>
      Effect.sync(() =>
        modify(
          storeId,
          id,
          (product) =>
            new Product({
              ...product,
              stock: write.stock === undefined ? product.stock : write.stock,
              variant_groups: product.variant_groups.map(
                (group) =>
                  new VariantGroup({
                    ...group,
                    options: group.options.map((option) => {
                      const set = write.options.find((entry) => entry.id === option.id)
                      return set === undefined ? option : new VariantOption({ ...option, stock: set.stock })
                    })
                  })
              )
            })
        )
      )
  })
})

/** Category ids ascending (a body's were checked by `Products`). */
const sorted = (ids: ReadonlyArray<number>): ReadonlyArray<CategoryId> =>
  [...ids].sort((a, b) => a - b).map((id) => CategoryId.make(id))
