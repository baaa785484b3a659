import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Courier push acknowledged once recorded, applied behind the answer (`@tawsil/shipments`' `PushApplier`,
 * docs/cod-loop.md "Push"): the receiver only inserts the events; appliers claim the unapplied ones.
 *
 * - `tried_at`: when an applier last took the event up (null: never; its backlog).
 * - `next_try_at`: when an applier may claim it: now for a new event; a claim moves it a lease ahead (a killed
 *   applier's claims are taken over when it passes), an event whose parcel is not attached yet further, the longer it
 *   has waited (it is applied when the shipment is attached; the retry is a safety net).
 * - `courier_push_events_unapplied`: the appliers' claim and the backlog gauges read the unapplied events only.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE courier_push_events
      ADD COLUMN tried_at timestamptz,
      ADD COLUMN next_try_at timestamptz NOT NULL DEFAULT now()`
  yield* sql`
    CREATE INDEX courier_push_events_unapplied ON courier_push_events (next_try_at)
    WHERE applied_at IS NULL`
})
