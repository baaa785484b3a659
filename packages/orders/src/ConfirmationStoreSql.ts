/**
 * `ConfirmationStore` on PostgreSQL (migration 0021: `order_confirmation_attempts`, `order_confirmation_links`,
 * `store_confirmation_settings`), needing only `SqlClient`. Its statements join the unit `OrderStore.transaction`
 * opened, so an attempt commits with the order move it causes. Infrastructure failures are defects.
 */
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { ConfirmationStore, type LinkRecord } from "./ConfirmationStore.ts"
import { Outcome, Source, TimeoutAction } from "./ConfirmationViews.ts"

const Timestamp = Schema.DateTimeUtcFromDate

const AttemptRow = Schema.Struct({
  outcome: Outcome,
  source: Source,
  note: Schema.NullOr(Schema.String),
  postponed_until: Schema.NullOr(Timestamp),
  created_at: Timestamp
})

const SettingsRow = Schema.Struct({
  timeout_minutes: Schema.NullOr(Schema.Int),
  timeout_action: TimeoutAction,
  timeout_since: Schema.NullOr(Timestamp),
  updated_at: Timestamp
})

const LinkRow = Schema.Struct({
  id: Schema.String,
  store_id: Schema.Int,
  order_id: Schema.Int,
  expires_at: Timestamp,
  created_at: Timestamp,
  used_at: Schema.NullOr(Timestamp),
  answer: Schema.NullOr(Schema.Literals(["confirmed", "customer_cancelled"]))
})

const DueRow = Schema.Struct({ store_id: Schema.Int, order_id: Schema.Int, action: TimeoutAction })

const decodeRows = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.orDie(decode(rows))
}

const decodeAttempts = decodeRows(AttemptRow)
const decodeSettings = decodeRows(SettingsRow)
const decodeLinks = decodeRows(LinkRow)
const decodeDue = decodeRows(DueRow)
const decodeNames = decodeRows(Schema.Struct({ id: Schema.Int, name: Schema.String }))

const time = (at: DateTime.Utc) => DateTime.toDateUtc(at)
const timeOrNull = (at: DateTime.Utc | null) => (at === null ? null : time(at))

export const layer: Layer.Layer<ConfirmationStore, never, SqlClient.SqlClient> = Layer.effect(
  ConfirmationStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return ConfirmationStore.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          Option.isSome(open)
            ? effect
            : sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(error)))
        ) as typeof effect,

      productNames: (storeId, ids) =>
        ids.length === 0
          ? Effect.succeed(new Map())
          : sql`SELECT id, name FROM products WHERE store_id = ${storeId} AND id IN ${sql.in(ids)}`.pipe(
              Effect.orDie,
              Effect.flatMap(decodeNames),
              Effect.map((rows) => new Map(rows.map((row) => [row.id, row.name])))
            ),

      attempts: (storeId, orderId) =>
        sql`
          SELECT outcome, source, note, postponed_until, created_at
          FROM order_confirmation_attempts
          WHERE store_id = ${storeId} AND order_id = ${orderId}
          ORDER BY id`.pipe(Effect.orDie, Effect.flatMap(decodeAttempts)),

      insertAttempt: (storeId, orderId, attempt) =>
        sql`
          INSERT INTO order_confirmation_attempts
            (store_id, order_id, outcome, source, note, postponed_until, customer_phone, created_at)
          VALUES (${storeId}, ${orderId}, ${attempt.outcome}, ${attempt.source}, ${attempt.note},
            ${timeOrNull(attempt.postponed_until)}, ${attempt.customer_phone}, ${time(attempt.created_at)})`.pipe(
          Effect.orDie,
          Effect.asVoid
        ),

      insertTimeout: (storeId, orderId, attempt) =>
        sql<{ readonly id: unknown }>`
          INSERT INTO order_confirmation_attempts
            (store_id, order_id, outcome, source, note, postponed_until, customer_phone, created_at)
          VALUES (${storeId}, ${orderId}, 'timed_out', 'timeout', ${attempt.note}, NULL, ${attempt.customer_phone},
            ${time(attempt.created_at)})
          ON CONFLICT (store_id, order_id) WHERE outcome = 'timed_out' DO NOTHING
          RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length === 1)
        ),

      settings: (storeId) =>
        sql`
          SELECT timeout_minutes, timeout_action, timeout_since, updated_at
          FROM store_confirmation_settings WHERE store_id = ${storeId}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeSettings),
          Effect.map((rows) => rows[0])
        ),

      saveSettings: (storeId, settings) =>
        sql`
          INSERT INTO store_confirmation_settings (store_id, timeout_minutes, timeout_action, timeout_since, updated_at)
          VALUES (${storeId}, ${settings.timeout_minutes}, ${settings.timeout_action},
            ${timeOrNull(settings.timeout_since)}, ${time(settings.updated_at)})
          ON CONFLICT (store_id) DO UPDATE SET
            timeout_minutes = excluded.timeout_minutes,
            timeout_action = excluded.timeout_action,
            timeout_since = excluded.timeout_since,
            updated_at = excluded.updated_at`.pipe(Effect.orDie, Effect.asVoid),

      insertLink: (link) =>
        sql`
          INSERT INTO order_confirmation_links (id, store_id, order_id, expires_at, created_at)
          VALUES (${link.id}, ${link.store_id}, ${link.order_id}, ${time(link.expires_at)},
            ${time(link.created_at)})`.pipe(Effect.orDie, Effect.asVoid),

      findLink: (id) =>
        sql`
          SELECT id, store_id, order_id, expires_at, created_at, used_at, answer
          FROM order_confirmation_links WHERE id = ${id}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeLinks),
          Effect.map((rows) =>
            rows[0] === undefined
              ? undefined
              : ({ ...rows[0], store_id: Ids.StoreId.make(rows[0].store_id) } satisfies LinkRecord)
          )
        ),

      useLink: (id, answer, at) =>
        sql<{ readonly id: string }>`
          UPDATE order_confirmation_links SET used_at = ${time(at)}, answer = ${answer}
          WHERE id = ${id} AND used_at IS NULL
          RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((rows) => rows.length === 1)
        ),

      due: (at, limit) =>
        sql`
          SELECT o.store_id, o.id AS order_id, s.timeout_action AS action
          FROM store_confirmation_settings s
          JOIN orders o ON o.store_id = s.store_id AND o.status = 'pending'
          WHERE s.timeout_minutes IS NOT NULL
            AND o.created_at >= s.timeout_since
            AND o.created_at <= ${time(at)}::timestamptz - make_interval(mins => s.timeout_minutes)
            AND NOT EXISTS (
              SELECT 1 FROM order_confirmation_attempts a
              WHERE a.store_id = o.store_id AND a.order_id = o.id
                AND (a.outcome = 'timed_out' OR a.postponed_until > ${time(at)}::timestamptz))
          ORDER BY o.id
          LIMIT ${limit}
          FOR UPDATE OF o SKIP LOCKED`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeDue),
          Effect.map((rows) =>
            rows.map((row) => ({ storeId: Ids.StoreId.make(row.store_id), orderId: row.order_id, action: row.action }))
          )
        )
    })
  })
)
