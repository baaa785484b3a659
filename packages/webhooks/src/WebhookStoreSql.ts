/**
 * The webhook store on PostgreSQL (tables `webhook_subscriptions`, `webhook_events`, `webhook_deliveries`,
 * `webhook_attempts` of storage migration 0005), needing only `SqlClient`. Statements on a store's rows filter on
 * `store_id`; times are the database's `now()`, so every instance agrees on what is due.
 *
 * - `recordEvent` is one statement in the caller's transaction (the outbox): the event and its deliveries commit or
 *   roll back with the order they describe. `afterCommit` wakes this process's dispatcher once that commit is done
 *   (`SqlClient.afterCommit`); other instances find the delivery when they next poll.
 * - `claim` is one statement: `FOR UPDATE SKIP LOCKED` picks due, unleased deliveries that no concurrent claimer is
 *   picking and that no older due or leased delivery of their subscription holds back (a subscription's events go
 *   in order, one at a time), and leases them (`leased_until`, `lease_token`) in the same statement, which commits
 *   at once; the HTTP call happens outside any transaction. A dispatcher that dies leaves its leases to run out, and the deliveries
 *   are claimed again (at least once).
 * - `finishAttempt` writes only where `lease_token` is still the claim's own.
 * - the subscription limit locks the store's row (`FOR NO KEY UPDATE`) before counting, as keys do.
 */
import { Ids } from "@tawsil/domain"
import { DateTime, Duration, Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { MAX_ATTEMPTS } from "./RetryPolicy.ts"
import * as WebhookEvent from "./WebhookEvent.ts"
import {
  type Claimed,
  type DeliveryRecord,
  SubscriptionLimitReached,
  type SubscriptionRecord,
  WebhookStore
} from "./WebhookStore.ts"

const EventName = Schema.Literals(WebhookEvent.names)

const SubscriptionRow = Schema.Struct({
  id: Schema.Number,
  store_id: Ids.StoreId,
  url: Schema.String,
  events: Schema.Array(EventName),
  active: Schema.Boolean,
  description: Schema.NullOr(Schema.String),
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String),
  previous_secret_expires_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const ClaimedRow = Schema.Struct({
  id: Schema.Number,
  store_id: Ids.StoreId,
  subscription_id: Schema.Number,
  event_id: Schema.String,
  event: EventName,
  payload: Schema.String,
  attempt: Schema.Number,
  max_attempts: Schema.Number,
  url: Schema.String,
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String)
})

const AttemptJson = Schema.Struct({
  attempt: Schema.Number,
  started_at_ms: Schema.Number,
  outcome: Schema.Literals(["succeeded", "failed", "refused"]),
  status_code: Schema.NullOr(Schema.Number),
  latency_ms: Schema.Number,
  error: Schema.NullOr(Schema.String)
})

const DeliveryRow = Schema.Struct({
  id: Schema.Number,
  subscription_id: Schema.Number,
  event_id: Schema.String,
  event: EventName,
  status: Schema.Literals(["pending", "succeeded", "failed"]),
  attempts: Schema.Number,
  max_attempts: Schema.Number,
  next_attempt_at: Schema.Date,
  created_at: Schema.Date,
  updated_at: Schema.Date,
  attempt_log: Schema.Array(AttemptJson)
})

const decodeRows = <S extends Schema.Top>(schema: S) =>
  Schema.decodeUnknownEffect(Schema.Array(schema)) as (
    rows: unknown
  ) => Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError, S["DecodingServices"]>

const toSubscription = (row: typeof SubscriptionRow.Type): SubscriptionRecord => ({
  id: row.id,
  storeId: row.store_id,
  url: row.url,
  events: row.events,
  active: row.active,
  description: row.description,
  secret: Redacted.make(row.secret),
  previousSecret: row.previous_secret === null ? null : Redacted.make(row.previous_secret),
  previousSecretExpiresAt:
    row.previous_secret_expires_at === null ? null : DateTime.fromDateUnsafe(row.previous_secret_expires_at),
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  updatedAt: DateTime.fromDateUnsafe(row.updated_at)
})

const toDelivery = (row: typeof DeliveryRow.Type): DeliveryRecord => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  eventId: row.event_id,
  event: row.event,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  nextAttemptAt: DateTime.fromDateUnsafe(row.next_attempt_at),
  createdAt: DateTime.fromDateUnsafe(row.created_at),
  updatedAt: DateTime.fromDateUnsafe(row.updated_at),
  attemptLog: row.attempt_log.map((attempt) => ({
    attempt: attempt.attempt,
    startedAt: DateTime.makeUnsafe(attempt.started_at_ms),
    outcome: attempt.outcome,
    statusCode: attempt.status_code,
    latencyMs: attempt.latency_ms,
    error: attempt.error
  }))
})

const seconds = (duration: Duration.Duration) => Duration.toMillis(duration) / 1000

export const layer: Layer.Layer<WebhookStore, never, SqlClient.SqlClient> = Layer.effect(
  WebhookStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const subscriptionColumns = sql.literal(
      "id, store_id, url, events, active, description, secret, previous_secret, previous_secret_expires_at, " +
        "created_at, updated_at"
    )

    /** Deliveries with their event's kind and their attempt log, by a filter on `d`. */
    const deliveries = (filter: Statement.Fragment, limit: number) =>
      sql`
      SELECT d.id, d.subscription_id, d.event_id, e.event, d.status, d.attempts, d.max_attempts, d.next_attempt_at,
        d.created_at, d.updated_at,
        coalesce((
          SELECT json_agg(json_build_object(
            'attempt', a.attempt, 'started_at_ms', (extract(epoch FROM a.started_at) * 1000)::float8,
            'outcome', a.outcome, 'status_code', a.status_code, 'latency_ms', a.latency_ms, 'error', a.error)
            ORDER BY a.attempt)
          FROM webhook_attempts a WHERE a.delivery_id = d.id
        ), '[]'::json) AS attempt_log
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE ${filter}
      ORDER BY d.id DESC
      LIMIT ${limit}`.pipe(Effect.flatMap(decodeRows(DeliveryRow)), Effect.orDie)

    const insertSubscription = (
      storeId: Ids.StoreId,
      subscription: Parameters<WebhookStore["Service"]["insertSubscription"]>[1],
      max: number
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`.pipe(Effect.orDie)
            const rows = yield* sql`
              INSERT INTO webhook_subscriptions (store_id, url, events, active, description, secret)
              SELECT ${storeId}, ${subscription.url}, ${subscription.events}::text[], ${subscription.active},
                ${subscription.description}, ${Redacted.value(subscription.secret)}
              WHERE (SELECT count(*) FROM webhook_subscriptions WHERE store_id = ${storeId}) < ${max}
              RETURNING ${subscriptionColumns}`.pipe(Effect.flatMap(decodeRows(SubscriptionRow)), Effect.orDie)
            const row = rows[0]
            if (row === undefined) return yield* new SubscriptionLimitReached({ max })
            return toSubscription(row)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return WebhookStore.of({
      listSubscriptions: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`
          SELECT ${subscriptionColumns} FROM webhook_subscriptions WHERE store_id = ${storeId} ORDER BY id`.pipe(
          Effect.flatMap(decodeRows(SubscriptionRow)),
          Effect.orDie
        )
        return rows.map(toSubscription)
      }),
      findSubscription: Effect.fnUntraced(function* (storeId, id) {
        const rows = yield* sql`
          SELECT ${subscriptionColumns} FROM webhook_subscriptions WHERE store_id = ${storeId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeRows(SubscriptionRow)),
          Effect.orDie
        )
        return rows[0] === undefined ? undefined : toSubscription(rows[0])
      }),
      insertSubscription,
      updateSubscription: Effect.fnUntraced(function* (storeId, id, patch) {
        const rotate = patch.rotate
        const rows = yield* sql`
          UPDATE webhook_subscriptions SET
            url = coalesce(${patch.url ?? null}::text, url),
            events = coalesce(${patch.events ?? null}::text[], events),
            active = coalesce(${patch.active ?? null}::boolean, active),
            description = CASE WHEN ${patch.description !== undefined} THEN ${patch.description ?? null}::text
              ELSE description END,
            previous_secret = CASE WHEN ${rotate !== undefined} THEN secret ELSE previous_secret END,
            previous_secret_expires_at = CASE WHEN ${rotate !== undefined}
              THEN now() + make_interval(secs => ${rotate === undefined ? 0 : seconds(rotate.grace)})
              ELSE previous_secret_expires_at END,
            secret = coalesce(${rotate === undefined ? null : Redacted.value(rotate.secret)}::text, secret),
            updated_at = now()
          WHERE store_id = ${storeId} AND id = ${id}
          RETURNING ${subscriptionColumns}`.pipe(Effect.flatMap(decodeRows(SubscriptionRow)), Effect.orDie)
        return rows[0] === undefined ? undefined : toSubscription(rows[0])
      }),
      deleteSubscription: Effect.fnUntraced(function* (storeId, id) {
        const rows = yield* sql`
          DELETE FROM webhook_subscriptions WHERE store_id = ${storeId} AND id = ${id} RETURNING id`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      recordEvent: Effect.fnUntraced(function* (event) {
        const [row] = yield* sql<{ readonly queued: number }>`
          WITH wanted AS (
            SELECT id FROM webhook_subscriptions
            WHERE store_id = ${event.storeId} AND active AND ${event.event} = ANY (events)
          ), recorded AS (
            INSERT INTO webhook_events (id, store_id, event, payload)
            SELECT ${event.id}, ${event.storeId}, ${event.event}, ${event.payload}
            WHERE EXISTS (SELECT 1 FROM wanted)
            RETURNING id
          ), queued AS (
            INSERT INTO webhook_deliveries (store_id, subscription_id, event_id, max_attempts)
            SELECT ${event.storeId}, wanted.id, recorded.id, ${MAX_ATTEMPTS} FROM wanted, recorded
            RETURNING 1
          )
          SELECT count(*)::int AS queued FROM queued`.pipe(Effect.orDie)
        return row?.queued ?? 0
      }),
      afterCommit: (effect) => sql.afterCommit(effect),
      claim: Effect.fnUntraced(function* (limit, lease, token) {
        const rows = yield* sql`
          WITH due AS (
            SELECT d.id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= now()
              AND (d.leased_until IS NULL OR d.leased_until <= now())
              AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries o
                WHERE o.subscription_id = d.subscription_id AND o.id < d.id AND o.status = 'pending'
                  AND (o.next_attempt_at <= now() OR o.leased_until > now())
              )
            ORDER BY d.next_attempt_at, d.id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          ), leased AS (
            UPDATE webhook_deliveries d
            SET leased_until = now() + make_interval(secs => ${seconds(lease)}), lease_token = ${token}
            FROM due WHERE d.id = due.id
            RETURNING d.id, d.store_id, d.subscription_id, d.event_id, d.attempts, d.max_attempts
          )
          SELECT l.id, l.store_id, l.subscription_id, l.event_id, e.event, e.payload, l.attempts + 1 AS attempt,
            l.max_attempts, s.url, s.secret,
            CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret END AS previous_secret
          FROM leased l
          JOIN webhook_subscriptions s ON s.id = l.subscription_id
          JOIN webhook_events e ON e.id = l.event_id
          ORDER BY l.id`.pipe(Effect.flatMap(decodeRows(ClaimedRow)), Effect.orDie)
        return rows.map(
          (row): Claimed => ({
            id: row.id,
            storeId: row.store_id,
            subscriptionId: row.subscription_id,
            eventId: row.event_id,
            event: row.event,
            payload: row.payload,
            attempt: row.attempt,
            maxAttempts: row.max_attempts,
            url: row.url,
            secrets:
              row.previous_secret === null
                ? [Redacted.make(row.secret)]
                : [Redacted.make(row.secret), Redacted.make(row.previous_secret)],
            token
          })
        )
      }),
      finishAttempt: Effect.fnUntraced(function* (result) {
        const attempt = result.attempt
        const [row] = yield* sql<{ readonly written: number }>`
          WITH finished AS (
            UPDATE webhook_deliveries SET
              attempts = ${attempt.attempt},
              status = ${result.status},
              next_attempt_at = CASE WHEN ${result.retryInMillis !== null}
                THEN now() + make_interval(secs => ${(result.retryInMillis ?? 0) / 1000}) ELSE next_attempt_at END,
              leased_until = NULL,
              lease_token = NULL,
              updated_at = now()
            WHERE id = ${result.deliveryId} AND lease_token = ${result.token}
            RETURNING id
          ), logged AS (
            INSERT INTO webhook_attempts (delivery_id, attempt, started_at, outcome, status_code, latency_ms, error)
            SELECT id, ${attempt.attempt}, ${DateTime.toDateUtc(attempt.startedAt)}, ${attempt.outcome},
              ${attempt.statusCode}::int, ${attempt.latencyMs}, ${attempt.error}
            FROM finished
            ON CONFLICT (delivery_id, attempt) DO UPDATE SET started_at = excluded.started_at,
              outcome = excluded.outcome, status_code = excluded.status_code, latency_ms = excluded.latency_ms,
              error = excluded.error
            RETURNING 1
          )
          SELECT count(*)::int AS written FROM logged`.pipe(Effect.orDie)
        return (row?.written ?? 0) > 0
      }),
      listDeliveries: (storeId, subscriptionId, page) =>
        Effect.map(
          deliveries(
            page.afterId === undefined
              ? sql`d.store_id = ${storeId} AND d.subscription_id = ${subscriptionId}`
              : sql`d.store_id = ${storeId} AND d.subscription_id = ${subscriptionId} AND d.id < ${page.afterId}`,
            page.limit
          ),
          (rows) => rows.map(toDelivery)
        ),
      retryDelivery: Effect.fnUntraced(function* (storeId, subscriptionId, deliveryId) {
        const updated = yield* sql`
          UPDATE webhook_deliveries SET status = 'pending', max_attempts = greatest(max_attempts, attempts + 1),
            next_attempt_at = now(), updated_at = now()
          WHERE store_id = ${storeId} AND subscription_id = ${subscriptionId} AND id = ${deliveryId}
          RETURNING id`.pipe(Effect.orDie)
        if (updated.length === 0) return undefined
        const [row] = yield* deliveries(sql`d.id = ${deliveryId}`, 1)
        return row === undefined ? undefined : toDelivery(row)
      }),
      purgeFinished: Effect.fnUntraced(function* (age) {
        const [row] = yield* sql<{ readonly purged: number }>`
          WITH purged AS (
            DELETE FROM webhook_events e
            WHERE e.created_at < now() - make_interval(secs => ${seconds(age)})
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
            RETURNING 1
          )
          SELECT count(*)::int AS purged FROM purged`.pipe(Effect.orDie)
        return row?.purged ?? 0
      }),
      backlog: Effect.gen(function* () {
        const [row] = yield* sql<{ readonly pending: number; readonly lag_seconds: number }>`
          SELECT count(*)::int AS pending,
            COALESCE(EXTRACT(EPOCH FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)::float8
              AS lag_seconds
          FROM webhook_deliveries WHERE status = 'pending'`.pipe(Effect.orDie)
        return { pending: row?.pending ?? 0, lagSeconds: Number(row?.lag_seconds ?? 0) }
      })
    })
  })
)
