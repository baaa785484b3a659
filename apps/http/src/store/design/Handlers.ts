import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/profile/Api"
import { Design } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "design",
  Effect.fnUntraced(function* (handlers) {
    const design = yield* Design.Design
    return handlers
      .handle(
        "getDesign",
        Effect.fnUntraced(function* () {
          return yield* answer(design.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateDesign",
        Effect.fnUntraced(function* () {
          return yield* answer(design.update(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
