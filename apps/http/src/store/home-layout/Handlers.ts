import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/profile/Api"
import { HomeLayout } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "homeLayout",
  Effect.fnUntraced(function* (handlers) {
    const layout = yield* HomeLayout.HomeLayout
    return handlers
      .handle(
        "getHomeLayout",
        Effect.fnUntraced(function* () {
          return yield* answer(layout.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "addLayoutSection",
        Effect.fnUntraced(function* () {
          return yield* answer(layout.add(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateLayoutSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(layout.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "removeLayoutSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(layout.remove(yield* writer, params.id), reasons)
        })
      )
      .handleRaw(
        "moveLayoutSection",
        Effect.fnUntraced(function* () {
          return yield* answer(layout.move(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
