import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/products/Api"
import { Products } from "@tawsil/catalogue"
import { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

/** A path id as the package takes it, unchecked: one no row can have (`0`) is the package's not found, not a defect. */
const productId = (id: number) => Ids.ProductId.make(id, { disableChecks: true })

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "products",
  Effect.fnUntraced(function* (handlers) {
    const products = yield* Products.Products
    return handlers
      .handle(
        "listProducts",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(products.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getProduct",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(products.get(yield* store, productId(params.id)), reasons)
        })
      )
      .handleRaw(
        "createProduct",
        Effect.fnUntraced(function* () {
          return yield* answer(products.create(yield* store, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateProduct",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(products.update(yield* store, productId(params.id), yield* RequestBody), reasons)
        })
      )
      .handle(
        "deleteProduct",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(products.remove(yield* store, productId(params.id)), reasons)
        })
      )
  })
)
