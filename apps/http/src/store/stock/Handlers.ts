import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/stock/Api"
import { Inventory } from "@tawsil/catalogue"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "stock",
  Effect.fnUntraced(function* (handlers) {
    const inventory = yield* Inventory.Inventory
    return handlers
      .handle(
        "getStock",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(inventory.get(yield* store, params.id), reasons)
        })
      )
      .handleRaw(
        "setStock",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(inventory.set(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
  })
)
