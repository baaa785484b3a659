import { Promos } from "@tawsil/promos"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { RequestBody } from "../Endpoint.ts"
import { answer, store, writer } from "../Handler.ts"
import { reasons } from "./Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "promoCodes",
  Effect.fn(function* (handlers) {
    const promos = yield* Promos.Promos
    return handlers
      .handle(
        "listPromoCodes",
        Effect.fn(function* ({ query }) {
          return yield* answer(promos.list(yield* store, query), reasons)
        })
      )
      .handleRaw(
        "createPromoCode",
        Effect.fn(function* () {
          return yield* answer(promos.create(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updatePromoCode",
        Effect.fn(function* ({ params }) {
          return yield* answer(promos.update(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deletePromoCode",
        Effect.fn(function* ({ params }) {
          return yield* answer(promos.remove(yield* writer, params.id), reasons)
        })
      )
  })
)
