import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/promo-codes/Api"
import { Promos } from "@tawsil/promos"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "promoCodes",
  Effect.fnUntraced(function* (handlers) {
    const promos = yield* Promos.Promos
    return handlers
      .handle(
        "listPromoCodes",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(promos.list(yield* store, query), reasons)
        })
      )
      .handleRaw(
        "createPromoCode",
        Effect.fnUntraced(function* () {
          return yield* answer(promos.create(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updatePromoCode",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(promos.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deletePromoCode",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(promos.remove(yield* writer, params.id), reasons)
        })
      )
  })
)
