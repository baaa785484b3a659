import { Products } from "@tawsil/catalogue"
import { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { RequestBody } from "../Endpoint.ts"
import { answer, store } from "../Handler.ts"
import { reasons } from "./Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "products",
  Effect.fn(function* (handlers) {
    const products = yield* Products.Products
    return handlers
      .handle(
        "listProducts",
        Effect.fn(function* ({ query }) {
          return yield* answer(products.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getProduct",
        Effect.fn(function* ({ params }) {
          return yield* answer(products.get(yield* store, Ids.ProductId.make(params.id)), reasons)
        })
      )
      .handleRaw(
        "createProduct",
        Effect.fn(function* () {
          return yield* answer(products.create(yield* store, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateProduct",
        Effect.fn(function* ({ params }) {
          return yield* answer(
            products.update(yield* store, Ids.ProductId.make(params.id), yield* RequestBody),
            reasons
          )
        })
      )
      .handle(
        "deleteProduct",
        Effect.fn(function* ({ params }) {
          return yield* answer(products.remove(yield* store, Ids.ProductId.make(params.id)), reasons)
        })
      )
  })
)
