import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/pixels/Api"
import { Pixels } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "pixels",
  Effect.fnUntraced(function* (handlers) {
    const pixels = yield* Pixels.Pixels
    return handlers
      .handle(
        "listPixels",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(pixels.list(yield* store, query), reasons)
        })
      )
      .handleRaw(
        "createPixel",
        Effect.fnUntraced(function* () {
          return yield* answer(pixels.create(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updatePixel",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pixels.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deletePixel",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pixels.remove(yield* writer, params.id), reasons)
        })
      )
  })
)
