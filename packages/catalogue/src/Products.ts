/**
 * The store API's products: list, read, create, PATCH and delete, over a `ProductStore`.
 *
 * - Lists are newest first in cursor pages (`@tawsil/domain` `Pagination`); an unknown `status` filter is ignored.
 * - Bodies decode with `ProductCreateBody` / `ProductUpdateBody`; a failure is `InvalidProduct` with the field's
 *   message. A PATCH that sends `variant_groups` replaces them all.
 * - A delete is soft: the row stays for the orders that reference it, and the product is `ProductNotFound` from then on,
 *   like another store's product.
 */
import { Ids, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option } from "effect"
import { identity } from "effect/Function"
import { decodeBody } from "./internal/body.ts"
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

const notFound = () => ProductError.fail(new ProductError.ProductNotFound({ message: "Product not found" }))

const orNotFound = <A>(found: Option.Option<A>) =>
  Option.match(found, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })

export class Products extends Context.Service<
  Products,
  {
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<Pagination.Page<ProductSummary>>
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
const decodeCreate = decodeBody(ProductCreateBody, invalid)
const decodeUpdate = decodeBody(ProductUpdateBody, invalid)

export const layer: Layer.Layer<Products, never, ProductStore> = Layer.effect(
  Products,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* ProductStore

    const get = method("Products.get")(function* (storeId: Ids.StoreId, id: Ids.ProductId) {
      if (!Ids.isStorableId(id)) return yield* notFound()
      return yield* store.get(storeId, id).pipe(Effect.flatMap(orNotFound))
    })

    return Products.of({
      list: method("Products.list")(function* (storeId, params = {}) {
        const query = listQuery(params, ProductStatus.literals)
        const rows = yield* store.list(storeId, { ...query, limit: query.limit + 1 })
        return Pagination.page(rows, query.limit, (row) => row.id, identity)
      }),
      get,
      create: method("Products.create")(function* (storeId, body) {
        return yield* store.insert(storeId, yield* decodeCreate(body))
      }),
      update: method("Products.update")(function* (storeId, id, body) {
        const current = yield* get(storeId, id)
        const patch = yield* decodeUpdate(body)
        if (Object.keys(patch).length === 0) return current
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
