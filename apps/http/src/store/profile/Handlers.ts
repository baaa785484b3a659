import { Settings } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { RequestBody } from "../Endpoint.ts"
import { answer, store, writer } from "../Handler.ts"
import { reasons } from "./Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "store",
  Effect.fn(function* (handlers) {
    const settings = yield* Settings.Settings
    return handlers
      .handle(
        "getStore",
        Effect.fn(function* () {
          return yield* answer(settings.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateStore",
        Effect.fn(function* () {
          return yield* answer(settings.update(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
