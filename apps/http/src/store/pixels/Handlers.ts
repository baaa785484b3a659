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
  Effect.fn(function* (handlers) {
    const pixels = yield* Pixels.Pixels
    return handlers
      .handle(
        "listPixels",
        Effect.fn(function* ({ query }) {
          return yield* answer(pixels.list(yield* store, query), reasons)
        })
      )
      .handleRaw(
        "createPixel",
        Effect.fn(function* () {
          return yield* answer(pixels.create(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updatePixel",
        Effect.fn(function* ({ params }) {
          return yield* answer(pixels.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deletePixel",
        Effect.fn(function* ({ params }) {
          return yield* answer(pixels.remove(yield* writer, params.id), reasons)
        })
      )
  })
)
