import { StoreApi } from "@tawsil/api/store/Api"
import { Caller, CallNonce, RequestBody } from "@tawsil/api/store/Endpoint"
import { type BatchAccepted, reasons } from "@tawsil/api/store/tracker/Api"
import { Ids } from "@tawsil/domain"
import { Tracker, type TrackerError } from "@tawsil/tracker"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer } from "../Handler.ts"

/** The signed call's store, key and nonce, as the tracker deduplicates and counts them. */
const call = Effect.gen(function* () {
  const caller = yield* Caller
  return { storeId: Ids.StoreId.make(caller.store.id), keyId: caller.keyId, nonce: yield* CallNonce }
})

/** A batch's answer: each refused item's reason as the error its single call would have answered. */
const batchAnswer = (batch: Tracker.BatchAccepted<TrackerError.InvalidSignup | TrackerError.InvalidEvent>) =>
  ({
    accepted: batch.accepted,
    rejected: batch.rejected.map(({ index, reason }) => ({
      index,
      error: { code: reasons.codes[reason._tag], message: reason.message }
    }))
  }) satisfies BatchAccepted

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "tracker",
  Effect.fnUntraced(function* (handlers) {
    const tracker = yield* Tracker.Tracker
    return handlers
      .handleRaw(
        "trackSignup",
        Effect.fnUntraced(function* () {
          return yield* answer(tracker.signup(yield* call, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "trackEvent",
        Effect.fnUntraced(function* () {
          return yield* answer(tracker.event(yield* call, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "trackSignups",
        Effect.fnUntraced(function* () {
          return yield* answer(Effect.map(tracker.signups(yield* call, yield* RequestBody), batchAnswer), reasons)
        })
      )
      .handleRaw(
        "trackEvents",
        Effect.fnUntraced(function* () {
          return yield* answer(Effect.map(tracker.events(yield* call, yield* RequestBody), batchAnswer), reasons)
        })
      )
  })
)
