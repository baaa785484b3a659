/**
 * How long webhook events are kept: `RETENTION` (30 days) after they were recorded, for the delivery log
 * (`GET /v1/webhooks/{id}/deliveries`), and never while one of their deliveries is still pending; then `purge`
 * deletes them with their deliveries and attempt logs. The host schedules `purge` (the bundled app: hourly);
 * correctness never depends on it running.
 */
import { Duration, Effect } from "effect"
import { WebhookStore } from "./WebhookStore.ts"

/** How long an event and its delivery log are kept once recorded. */
export const RETENTION = Duration.days(30)

/** Deletes the events past `RETENTION` none of whose deliveries is pending, and says how many went. */
export const purge: Effect.Effect<number, never, WebhookStore> = Effect.gen(function* () {
  const store = yield* WebhookStore
  const deleted = yield* store.purgeFinished(RETENTION)
  if (deleted > 0) yield* Effect.logInfo("old webhook events deleted").pipe(Effect.annotateLogs({ deleted }))
  return deleted
})
