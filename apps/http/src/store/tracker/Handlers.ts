import { Ids } from "@tawsil/domain"
import { Tracker } from "@tawsil/tracker"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { Caller, CallNonce, RequestBody } from "../Endpoint.ts"
import { answer } from "../Handler.ts"
import { reasons } from "./Api.ts"

/** The signed call's store, key and nonce, as the tracker deduplicates and counts them. */
const call = Effect.gen(function* () {
  const caller = yield* Caller
  return { storeId: Ids.StoreId.make(caller.store.id), keyId: caller.keyId, nonce: yield* CallNonce }
})

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "tracker",
  Effect.fn(function* (handlers) {
    const tracker = yield* Tracker.Tracker
    return handlers
      .handleRaw(
        "trackSignup",
        Effect.fn(function* () {
          return yield* answer(tracker.signup(yield* call, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "trackEvent",
        Effect.fn(function* () {
          return yield* answer(tracker.event(yield* call, yield* RequestBody), reasons)
        })
      )
  })
)
