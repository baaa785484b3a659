/**
 * What webhook delivery counts and shows, as effect `Metric`s in the default registry (the host exports them):
 * attempts by outcome and their latency, the outbox's pending deliveries and how late its oldest due one is. No
 * label names a store, a subscription, a URL or an event id.
 */
import { Effect, Metric } from "effect"
import type { AttemptOutcome, Backlog } from "./WebhookStore.ts"

export const attempts = Metric.counter("tawsil_webhook_attempts_total", {
  description:
    "Webhook delivery attempts by outcome: succeeded (2xx), failed (another answer or none), refused (URL rules)",
  incremental: true
})

export const attemptSeconds = Metric.histogram("tawsil_webhook_attempt_duration_seconds", {
  description: "Webhook delivery attempt latency in seconds, URL check included",
  boundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30]
})

export const outboxPending = Metric.gauge("tawsil_webhook_outbox_pending", {
  description: "Webhook deliveries pending in the outbox (due now or waiting for a retry), on the whole database"
})

export const outboxLag = Metric.gauge("tawsil_webhook_outbox_lag_seconds", {
  description: "How long ago the oldest due webhook delivery came due, in seconds (0: none is waiting)"
})

/** Records one attempt. */
export const recordAttempt = (outcome: AttemptOutcome, seconds: number) =>
  Effect.andThen(Metric.update(Metric.withAttributes(attempts, { outcome }), 1), Metric.update(attemptSeconds, seconds))

/** Shows the outbox as last read. */
export const recordBacklog = (backlog: Backlog) =>
  Effect.andThen(Metric.update(outboxPending, backlog.pending), Metric.update(outboxLag, backlog.lagSeconds))

const outcomes: ReadonlyArray<AttemptOutcome> = ["succeeded", "failed", "refused"]

/** The families at zero, so they are on `/metrics` from the start, before the first delivery and the first read. */
export const zero = Effect.all(
  [
    Effect.forEach(outcomes, (outcome) => Metric.value(Metric.withAttributes(attempts, { outcome })), {
      discard: true
    }),
    Metric.value(attemptSeconds),
    Metric.value(outboxPending),
    Metric.value(outboxLag)
  ],
  { discard: true }
)
