import { StoreApi } from "@tawsil/api/store/Api"
import { Caller, CallNonce, RequestBody } from "@tawsil/api/store/Endpoint"
import { type BatchAccepted, reasons } from "@tawsil/api/store/tracker/Api"
import { Tracker, type TrackerBodies, type TrackerError } from "@tawsil/tracker"
import { Context, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer } from "../Handler.ts"

/** The signed call's store, key and nonce, as the tracker deduplicates and counts them, and its body. */
const signed = <A, E, R>(
  run: (caller: TrackerBodies.Caller, body: unknown) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Caller | CallNonce | RequestBody> =>
  Effect.contextWith((context: Context.Context<Caller | CallNonce | RequestBody>) => {
    const principal = Context.get(context, Caller)
    return run(
      { storeId: principal.store.id, keyId: principal.keyId, nonce: Context.get(context, CallNonce) },
      Context.get(context, RequestBody)
    )
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
      .handleRaw("trackSignup", () => answer(signed(tracker.signup), reasons))
      .handleRaw("trackEvent", () => answer(signed(tracker.event), reasons))
      .handleRaw("trackSignups", () => answer(Effect.map(signed(tracker.signups), batchAnswer), reasons))
      .handleRaw("trackEvents", () => answer(Effect.map(signed(tracker.events), batchAnswer), reasons))
  })
)
