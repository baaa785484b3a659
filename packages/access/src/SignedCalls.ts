/**
 * What a verified signed call writes before it is answered: its nonce's single use (`@tawsil/signing`'s
 * `NonceStore` rule) and, only when the nonce is fresh, the call counted in its store's minute window
 * (`UsageStore.meterWindow`'s rule), so a replay is refused without spending the store's budget. `layer` takes the
 * two ports one after the other (memory, tests); `SignedCallsSql` writes both in one statement for the calls of a
 * few milliseconds (decision 0026), so a call waits on one statement, not two.
 */
import type { Ids } from "@tawsil/domain"
import { NonceStore } from "@tawsil/signing"
import { Context, Effect, Layer } from "effect"
import { UsageStore, type WindowCount } from "./UsageStore.ts"

/** A verified call to record. */
export interface SignedCall {
  readonly keyId: string
  /** As `RequestSignature.verify` returns it (normalised). */
  readonly nonce: string
  readonly storeId: Ids.StoreId
  /** Whether a fresh call is counted in its store's minute window (`PublicAccess.admit`), or only its nonce kept. */
  readonly meter: boolean
}

/** The nonce was fresh: the call's count in its store's window (undefined when not metered). */
export interface Fresh {
  readonly _tag: "Fresh"
  readonly window: WindowCount | undefined
}

/** The nonce was already used by the key within its lifetime: nothing was counted. */
export interface Replay {
  readonly _tag: "Replay"
}

export const REPLAY: Replay = { _tag: "Replay" }
export const FRESH_UNMETERED: Fresh = { _tag: "Fresh", window: undefined }

export class SignedCalls extends Context.Service<
  SignedCalls,
  {
    /**
     * Records the call's nonce and, when it is fresh and `meter` is set, counts the call in its store's window.
     * Call it outside any transaction of your own (the SQL store's group statement would join it).
     */
    readonly record: (call: SignedCall) => Effect.Effect<Fresh | Replay>
  }
>()("@tawsil/access/SignedCalls") {}

/** Over the two ports, one after the other: `NonceStore.consume`, then `UsageStore.meterWindow` for a fresh nonce. */
export const layer: Layer.Layer<SignedCalls, never, NonceStore.NonceStore | UsageStore> = Layer.effect(
  SignedCalls,
  Effect.gen(function* () {
    const nonces = yield* NonceStore.NonceStore
    const usage = yield* UsageStore
    return SignedCalls.of({
      record: (call) =>
        Effect.flatMap(
          nonces.consume(call.keyId, call.nonce),
          (fresh): Effect.Effect<Fresh | Replay> =>
            !fresh
              ? Effect.succeed(REPLAY)
              : call.meter
                ? Effect.map(usage.meterWindow(call.storeId), (window): Fresh => ({ _tag: "Fresh", window }))
                : Effect.succeed(FRESH_UNMETERED)
        )
    })
  })
)
