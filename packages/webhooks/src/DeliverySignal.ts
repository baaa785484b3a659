/**
 * Wakes this process's dispatcher: when an event it must deliver has just been committed, when a delivery was
 * retried by hand, when a delivery slot freed up. A hint, never the only way work is found: the dispatcher also
 * polls, which is how it finds the retries that come due and the events other instances committed.
 */
import { Context, Duration, Effect, Layer, Queue } from "effect"

export class DeliverySignal extends Context.Service<
  DeliverySignal,
  {
    /** Wakes the dispatcher (several notices before it wakes count as one). */
    readonly notify: Effect.Effect<void>
    /** Waits for a notice, or at most `timeout`. */
    readonly wait: (timeout: Duration.Input) => Effect.Effect<void>
  }
>()("@tawsil/webhooks/DeliverySignal") {}

export const layer: Layer.Layer<DeliverySignal> = Layer.effect(
  DeliverySignal,
  Effect.map(Queue.sliding<void>(1), (notices) =>
    DeliverySignal.of({
      notify: Effect.asVoid(Queue.offer(notices, undefined)),
      wait: (timeout) => Effect.asVoid(Effect.timeoutOption(Queue.take(notices), Duration.fromInputUnsafe(timeout)))
    })
  )
)
