import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/profile/Api"
import { HomeSections } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "homeSections",
  Effect.fnUntraced(function* (handlers) {
    const sections = yield* HomeSections.HomeSections
    return handlers
      .handle(
        "getHomeSections",
        Effect.fnUntraced(function* () {
          return yield* answer(sections.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateHomeSections",
        Effect.fnUntraced(function* () {
          return yield* answer(sections.update(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
