import { StoreApi } from "@tawsil/api/store/Api"
import { reasons } from "@tawsil/api/store/categories/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { Categories } from "@tawsil/catalogue"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "categories",
  Effect.fnUntraced(function* (handlers) {
    const categories = yield* Categories.Categories
    return handlers
      .handle(
        "listCategories",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(categories.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getCategory",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(categories.get(yield* store, params.id), reasons)
        })
      )
      .handleRaw(
        "createCategory",
        Effect.fnUntraced(function* () {
          return yield* answer(categories.create(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateCategory",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(categories.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deleteCategory",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(categories.remove(yield* writer, params.id), reasons)
        })
      )
  })
)
