/**
 * What `Idempotency` counts, as effect `Metric`s in the default registry (the host exports them): answers replayed
 * for a repeated key, and keys refused because they were first used for another request. No label carries a key,
 * a scope or a caller.
 */
import { Effect, Metric } from "effect"

export const replays = Metric.counter("tawsil_idempotency_replays_total", {
  description: "Requests answered with the recorded answer of their Idempotency-Key",
  incremental: true
})

export const keyReused = Metric.counter("tawsil_idempotency_key_reused_total", {
  description: "Requests refused because their Idempotency-Key was first used for another request",
  incremental: true
})

/** Both series at zero, so the families are on `/metrics` from the start, before any replay or reuse. */
export const zero = Effect.all([Metric.value(replays), Metric.value(keyReused)], { discard: true })
