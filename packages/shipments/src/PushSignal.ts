/**
 * Wakes this process's push applier when the receiver has just recorded events. A hint, never the only way work is
 * found: the applier also looks on a timer, which is how it finds what other instances recorded, what a killed
 * instance left claimed and the events whose parcel it waits for.
 */
import { Context, Duration, Effect, Layer, Queue } from "effect"

export class PushSignal extends Context.Service<
  PushSignal,
  {
    /** Wakes the applier (several notices before it wakes count as one). */
    readonly notify: Effect.Effect<void>
    /** Waits for a notice, or at most `timeout`. */
    readonly wait: (timeout: Duration.Input) => Effect.Effect<void>
  }
>()("@tawsil/shipments/PushSignal") {}

export const layer: Layer.Layer<PushSignal> = Layer.effect(
  PushSignal,
  Effect.map(Queue.sliding<void>(1), (notices) =>
    PushSignal.of({
      notify: Effect.asVoid(Queue.offer(notices, undefined)),
      wait: (timeout) => Effect.asVoid(Effect.timeoutOption(Queue.take(notices), Duration.fromInputUnsafe(timeout)))
    })
  )
)
