import { StoreProfile } from "@tawsil/catalogue"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import { StoreApi } from "../Api.ts"
import * as Errors from "../Errors.ts"
import { answer, store } from "../Handler.ts"
import { RESERVED, reasons } from "./Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "store",
  Effect.fn(function* (handlers) {
    const profile = yield* StoreProfile.StoreProfile
    return handlers
      .handle(
        "getStore",
        Effect.fn(function* () {
          return yield* answer(profile.get(yield* store), reasons)
        })
      )
      .handle(
        "updateStore",
        Effect.fn(function* () {
          return yield* Effect.fail(Errors.make("method_not_allowed", yield* RequestId, RESERVED))
        })
      )
  })
)
