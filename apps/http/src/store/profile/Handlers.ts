import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/profile/Api"
import { Settings } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "store",
  Effect.fnUntraced(function* (handlers) {
    const settings = yield* Settings.Settings
    return handlers
      .handle(
        "getStore",
        Effect.fnUntraced(function* () {
          return yield* answer(settings.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateStore",
        Effect.fnUntraced(function* () {
          return yield* answer(settings.update(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
