/**
 * What an adapter may remember between calls when no courier remembers it: the sandbox, which calls no courier and
 * derives a parcel from its tracking number, remembers the parcels it was asked to cancel. The host hands each
 * adapter its own space (its keys under the adapter's platform), shared by the host's instances where it has a shared
 * store (Redis), else kept in its process; an adapter run without a host (its own tests, the conformance kit) gets
 * one in this process. A value is the adapter's own small text, kept for `timeToLive`: never credentials, never
 * anything of the caller's that the courier would not keep.
 */
import { Context, Duration, Effect } from "effect"

export interface AdapterMemory {
  /** The value kept under `key`, or undefined (never kept, or past its time to live). */
  readonly get: (key: string) => Effect.Effect<string | undefined>
  readonly set: (key: string, value: string, timeToLive: Duration.Duration) => Effect.Effect<void>
}

/** A memory in this process: values expire at `timeToLive` on the `Clock` of the call that reads them. */
export const makeMemory = (): AdapterMemory => {
  const values = new Map<string, { readonly value: string; readonly until: number }>()
  return {
    get: (key) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const kept = values.get(key)
          if (kept === undefined) return undefined
          if (kept.until <= clock.currentTimeMillisUnsafe()) {
            values.delete(key)
            return undefined
          }
          return kept.value
        })
      ),
    set: (key, value, timeToLive) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          values.set(key, { value, until: clock.currentTimeMillisUnsafe() + Duration.toMillis(timeToLive) })
        })
      )
  }
}

/** The adapter's memory for the call: the host's, or one in this process where no host provides it. */
export const AdapterMemory = Context.Reference<AdapterMemory>("@tawsil/courier/AdapterMemory", {
  defaultValue: makeMemory
})
