/**
 * The tracking store on PostgreSQL (tables `shipment_checks` and `courier_push_events` of storage migrations 0017 and
 * 0019), needing only `SqlClient`. Due times are the database's clock, so every instance agrees on what is due; a
 * claim is one statement (`FOR UPDATE SKIP LOCKED` over the due rows, then the lease written), so two claimers never
 * take the same check or pushed event. Marking pushed events applied locks them in the caller's unit and skips those
 * another unit marked first: an event is applied once even when a lease ran out under a slow applier.
 */

import { type PaymentReport, readPayment } from "@tawsil/courier/Shipment"
import { DateTime, Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { type PushedRow, TrackingStore } from "./TrackingStore.ts"

const CheckRow = Schema.Struct({
  order_id: Schema.Int,
  store_id: Schema.Int,
  account_id: Schema.Int,
  tracking_number: Schema.String,
  status: Schema.String,
  checks: Schema.Int
})

const PushRow = Schema.Struct({
  event_key: Schema.String,
  tracking_number: Schema.NullOr(Schema.String),
  courier_reference: Schema.NullOr(Schema.String),
  reference: Schema.NullOr(Schema.String),
  raw_status: Schema.String,
  reason: Schema.NullOr(Schema.String),
  occurred_at: Schema.DateTimeUtcFromDate,
  payment: Schema.NullOr(Schema.Unknown)
})

const decodeChecks = Schema.decodeUnknownEffect(Schema.Array(CheckRow))
const decodePushed = Schema.decodeUnknownEffect(Schema.Array(PushRow))
const decodeKeys = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ event_key: Schema.String })))
const decodeClaimed = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ ...PushRow.fields, account_id: Schema.Int }))
)
const decodeBacklog = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ pending: Schema.Int, waiting: Schema.Int, lag_seconds: Schema.Unknown }))
)
const decodeCount = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ count: Schema.Int })))

const pushedOf = (row: typeof PushRow.Type): PushedRow => ({
  key: row.event_key,
  trackingNumber: row.tracking_number,
  courierReference: row.courier_reference,
  reference: row.reference,
  rawStatus: row.raw_status,
  reason: row.reason,
  occurredAt: row.occurred_at,
  // Written from a checked payment (`PushIntake`); read back through the same check.
  payment: readPayment((row.payment as PaymentReport | null) ?? undefined) ?? null
})

/** An interval literal for `now() + …`: whole milliseconds. */
const interval = (duration: Duration.Duration) => `${Math.round(Duration.toMillis(duration))} milliseconds`

export const layer: Layer.Layer<TrackingStore, never, SqlClient.SqlClient> = Layer.effect(
  TrackingStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return TrackingStore.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          Option.isSome(open)
            ? effect
            : sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(error)))
        ) as typeof effect,
      schedule: (check, dueIn) =>
        sql`
          INSERT INTO shipment_checks (order_id, store_id, account_id, tracking_number, status, due_at)
          VALUES (${check.orderId}, ${check.storeId}, ${check.accountId}, ${check.trackingNumber}, ${check.status},
            now() + ${interval(dueIn)}::interval)
          ON CONFLICT (order_id) DO UPDATE SET status = excluded.status, due_at = excluded.due_at,
            lease_until = NULL`.pipe(Effect.orDie, Effect.asVoid),
      claimDue: (limit, lease, perAccount = limit) =>
        sql`
          WITH accounts AS (
            SELECT account_id FROM shipment_checks
            WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
            GROUP BY account_id ORDER BY min(due_at) LIMIT ${limit}
          ), due AS (
            SELECT claimable.order_id FROM accounts a CROSS JOIN LATERAL (
              SELECT c.order_id FROM shipment_checks c
              WHERE c.account_id = a.account_id AND c.due_at <= now()
                AND (c.lease_until IS NULL OR c.lease_until < now())
              ORDER BY c.due_at LIMIT ${Math.min(limit, perAccount)}
              FOR UPDATE SKIP LOCKED
            ) claimable
            LIMIT ${limit}
          )
          UPDATE shipment_checks c SET lease_until = now() + ${interval(lease)}::interval
          FROM due WHERE c.order_id = due.order_id
          RETURNING c.order_id, c.store_id, c.account_id, c.tracking_number, c.status, c.checks`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => Effect.orDie(decodeChecks(rows))),
          Effect.map((rows) =>
            rows.map((row) => ({
              orderId: row.order_id,
              storeId: row.store_id,
              accountId: row.account_id,
              trackingNumber: row.tracking_number,
              status: row.status,
              checks: row.checks
            }))
          )
        ),
      checked: (orderId, status, dueIn) =>
        sql`
          UPDATE shipment_checks SET status = ${status}, checks = checks + 1,
            due_at = now() + ${interval(dueIn)}::interval, lease_until = NULL
          WHERE order_id = ${orderId}`.pipe(Effect.orDie, Effect.asVoid),
      release: (orderIds) =>
        orderIds.length === 0
          ? Effect.void
          : sql`
              UPDATE shipment_checks SET lease_until = NULL
              WHERE order_id IN ${sql.in(orderIds)}`.pipe(Effect.orDie, Effect.asVoid),
      finish: (orderId) =>
        sql`DELETE FROM shipment_checks WHERE order_id = ${orderId}`.pipe(Effect.orDie, Effect.asVoid),
      following: (accountId) =>
        sql`SELECT count(*)::int AS count FROM shipment_checks WHERE account_id = ${accountId}`.pipe(
          Effect.orDie,
          Effect.flatMap((rows) => Effect.orDie(decodeCount(rows))),
          Effect.map((rows) => rows[0]?.count ?? 0)
        ),
      recordPushed: (accountId, rows) => {
        if (rows.length === 0) return Effect.succeed([])
        const byKey = new Map(rows.map((row) => [row.key, row] as const))
        const json = JSON.stringify(
          [...byKey.values()].map((row) => ({
            event_key: row.key,
            tracking_number: row.trackingNumber,
            courier_reference: row.courierReference,
            reference: row.reference,
            raw_status: row.rawStatus,
            reason: row.reason,
            occurred_at: DateTime.formatIso(row.occurredAt),
            payment: row.payment
          }))
        )
        return sql`
          INSERT INTO courier_push_events (account_id, event_key, tracking_number, courier_reference, reference,
            raw_status, reason, occurred_at, payment)
          SELECT ${accountId}, e.event_key, e.tracking_number, e.courier_reference, e.reference, e.raw_status,
            e.reason, e.occurred_at, e.payment
          FROM jsonb_to_recordset(${json}::jsonb) AS e(event_key text, tracking_number text, courier_reference text,
            reference text, raw_status text, reason text, occurred_at timestamptz, payment jsonb)
          ON CONFLICT (account_id, event_key) DO NOTHING
          RETURNING event_key`.pipe(
          Effect.orDie,
          Effect.flatMap((found) => Effect.orDie(decodeKeys(found))),
          Effect.map((found) => found.map((row) => byKey.get(row.event_key)!))
        )
      },
      pendingPushed: (accountId, names) =>
        sql`
          SELECT event_key, tracking_number, courier_reference, reference, raw_status, reason, occurred_at, payment
          FROM courier_push_events
          WHERE account_id = ${accountId} AND applied_at IS NULL
            AND (tracking_number = ${names.trackingNumber} OR courier_reference = ${names.courierReference}::text
              OR reference = ${names.reference})
          ORDER BY occurred_at`.pipe(
          Effect.orDie,
          Effect.flatMap((found) => Effect.orDie(decodePushed(found))),
          Effect.map((found) => found.map(pushedOf))
        ),
      // The rows are found by their primary key alone and `applied_at` read once locked: with `applied_at IS NULL`
      // in the WHERE, a planner without statistics yet (a table filling in a burst) chose the account's
      // tracking-number index and filtered every event of the account, per event (docs/benchmarks.md, issue 30).
      markApplied: (accountId, keys, orderId) =>
        keys.length === 0
          ? Effect.succeed([])
          : sql`
              WITH locked AS (
                SELECT event_key, applied_at FROM courier_push_events
                WHERE account_id = ${accountId} AND event_key IN ${sql.in(keys)}
                ORDER BY event_key
                FOR UPDATE
              )
              UPDATE courier_push_events e SET order_id = ${orderId}, applied_at = now()
              FROM locked WHERE e.account_id = ${accountId} AND e.event_key = locked.event_key
                AND locked.applied_at IS NULL
              RETURNING e.event_key`.pipe(
              Effect.orDie,
              Effect.flatMap((found) => Effect.orDie(decodeKeys(found))),
              Effect.map((found) => found.map((row) => row.event_key))
            ),
      claimPushed: (limit, lease) =>
        sql`
          WITH due AS (
            SELECT account_id, event_key FROM courier_push_events
            WHERE applied_at IS NULL AND next_try_at <= now()
            ORDER BY next_try_at
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          UPDATE courier_push_events e SET tried_at = now(), next_try_at = now() + ${interval(lease)}::interval
          FROM due WHERE e.account_id = due.account_id AND e.event_key = due.event_key
          RETURNING e.account_id, e.event_key, e.tracking_number, e.courier_reference, e.reference, e.raw_status,
            e.reason, e.occurred_at, e.payment`.pipe(
          Effect.orDie,
          Effect.flatMap((found) => Effect.orDie(decodeClaimed(found))),
          Effect.map((found) => found.map((row) => ({ ...pushedOf(row), accountId: row.account_id })))
        ),
      deferPushed: (accountId, keys, wait) =>
        keys.length === 0
          ? Effect.void
          : sql`
              UPDATE courier_push_events
              SET next_try_at = now() + least(${interval(wait.max)}::interval,
                greatest(${interval(wait.min)}::interval, now() - received_at))
              WHERE account_id = ${accountId} AND event_key IN ${sql.in(keys)} AND applied_at IS NULL`.pipe(
              Effect.orDie,
              Effect.asVoid
            ),
      pushBacklog: sql`
        SELECT count(*) FILTER (WHERE tried_at IS NULL)::int AS pending,
          count(*) FILTER (WHERE tried_at IS NOT NULL)::int AS waiting,
          COALESCE(EXTRACT(EPOCH FROM now() - min(received_at) FILTER (WHERE tried_at IS NULL)), 0)::float8
            AS lag_seconds
        FROM courier_push_events WHERE applied_at IS NULL`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => Effect.orDie(decodeBacklog(rows))),
        Effect.map((rows) => ({
          pending: rows[0]?.pending ?? 0,
          waiting: rows[0]?.waiting ?? 0,
          lagSeconds: Math.max(0, Number(rows[0]?.lag_seconds ?? 0))
        }))
      )
    })
  })
)
