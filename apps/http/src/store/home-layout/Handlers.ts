import { HomeLayout } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { RequestBody } from "../Endpoint.ts"
import { answer, store, writer } from "../Handler.ts"
import { reasons } from "../profile/Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "homeLayout",
  Effect.fn(function* (handlers) {
    const layout = yield* HomeLayout.HomeLayout
    return handlers
      .handle(
        "getHomeLayout",
        Effect.fn(function* () {
          return yield* answer(layout.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "addLayoutSection",
        Effect.fn(function* () {
          return yield* answer(layout.add(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateLayoutSection",
        Effect.fn(function* ({ params }) {
          return yield* answer(layout.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "removeLayoutSection",
        Effect.fn(function* ({ params }) {
          return yield* answer(layout.remove(yield* writer, params.id), reasons)
        })
      )
      .handleRaw(
        "moveLayoutSection",
        Effect.fn(function* () {
          return yield* answer(layout.move(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
