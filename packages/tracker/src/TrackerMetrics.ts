/**
 * What the tracker shows, as effect `Metric`s in the default registry (the host exports them): the rows accepted
 * (answered 202) and not yet written, read when the metrics are collected.
 */
import { Effect, Metric } from "effect"

export const queueRows = Metric.gauge("tawsil_tracker_queue_rows", {
  description: "Signups and events accepted (202) and not yet written to the database"
})

/** Reports `read()` as the queue's depth for as long as the scope is open. */
export const observeQueue = (read: () => number) =>
  Effect.flatMap(Effect.context<never>(), (context) =>
    Effect.acquireRelease(
      Effect.sync(() =>
        Metric.registerUnsafe(queueRows, context, {
          get: () => ({ value: read() }),
          update: () => {},
          modify: () => {}
        })
      ),
      (registration) => Effect.sync(() => registration.remove())
    )
  )
