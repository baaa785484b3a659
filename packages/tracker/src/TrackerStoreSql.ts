/**
 * The tracker store on PostgreSQL (tables `tracked_events`, `tracked_signups`, `tracked_signup_users` of storage
 * migration 0007), needing only `SqlClient`. A batch is one statement per kind, whatever its size: the rows travel as
 * one JSON parameter read by `jsonb_to_recordset`, so the statement has a fixed number of parameters.
 *
 * - Events: `INSERT … ON CONFLICT (store_id, nonce) DO NOTHING RETURNING`: what comes back was recorded; a nonce the
 *   store already holds, or one repeated in the batch, is not.
 * - Signups: the users' first signups go into `tracked_signup_users` (`ON CONFLICT DO NOTHING`: concurrent batches of
 *   any instance agree on which was first), then every signup into `tracked_signups` with `billable` set on each
 *   user's first, in the same statement.
 */
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { EventRow, SignupRow } from "./TrackerBodies.ts"
import { TrackerStore } from "./TrackerStore.ts"

const Recorded = Schema.Array(Schema.Struct({ ord: Schema.Union([Schema.Number, Schema.BigInt, Schema.String]) }))
const decodeRecorded = Schema.decodeUnknownEffect(Recorded)

const iso = (dt: { readonly epochMilliseconds: number }) => new Date(dt.epochMilliseconds).toISOString()

/** A batch as one JSON parameter (`jsonb_to_recordset`): a fixed parameter count whatever its size, nulls typed. */
const eventsJson = (rows: ReadonlyArray<EventRow>) =>
  JSON.stringify(
    rows.map((row, index) => ({
      ord: index + 1,
      store_id: row.storeId,
      nonce: row.nonce,
      key_id: row.keyId,
      event: row.event,
      user_id: row.userId,
      properties: row.properties,
      occurred_at: iso(row.occurredAt),
      received_at: iso(row.receivedAt)
    }))
  )

const signupsJson = (rows: ReadonlyArray<SignupRow>) =>
  JSON.stringify(
    rows.map((row, index) => ({
      ord: index + 1,
      store_id: row.storeId,
      key_id: row.keyId,
      nonce: row.nonce,
      user_id: row.userId,
      email: row.email,
      phone: row.phone,
      name: row.name,
      source: row.source,
      properties: row.properties,
      signed_up_at: iso(row.signedUpAt),
      received_at: iso(row.receivedAt)
    }))
  )

/** Which of `count` rows (1-based `ord`s) the statement returned. */
const marked = (count: number, rows: ReadonlyArray<{ readonly ord: number | bigint | string }>) => {
  const set = new Set(rows.map((row) => Number(row.ord)))
  return Array.from({ length: count }, (_, index) => set.has(index + 1))
}

export const layer: Layer.Layer<TrackerStore, never, SqlClient.SqlClient> = Layer.effect(
  TrackerStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const recordEvents = Effect.fnUntraced(function* (rows: ReadonlyArray<EventRow>) {
      if (rows.length === 0) return []
      const recorded = yield* sql`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${eventsJson(rows)}::jsonb) AS i (ord int, store_id int, nonce text,
            key_id text, event text, user_id text, properties jsonb, occurred_at timestamptz, received_at timestamptz)
        ), inserted AS (
          INSERT INTO tracked_events (store_id, nonce, key_id, event, user_id, properties, occurred_at, received_at)
          SELECT store_id, nonce, key_id, event, user_id, properties, occurred_at, received_at
          FROM input ORDER BY ord
          ON CONFLICT (store_id, nonce) DO NOTHING
          RETURNING store_id, nonce
        )
        SELECT min(i.ord) AS ord FROM input i JOIN inserted USING (store_id, nonce) GROUP BY i.store_id, i.nonce`.pipe(
        Effect.flatMap(decodeRecorded),
        Effect.orDie
      )
      return marked(rows.length, recorded)
    })

    const recordSignups = Effect.fnUntraced(function* (rows: ReadonlyArray<SignupRow>) {
      if (rows.length === 0) return []
      const firsts = yield* sql`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${signupsJson(rows)}::jsonb) AS i (ord int, store_id int, key_id text,
            nonce text, user_id text, email text, phone text, name text, source text, properties jsonb,
            signed_up_at timestamptz, received_at timestamptz)
        ), new_users AS (
          INSERT INTO tracked_signup_users (store_id, user_id, first_signed_up_at)
          SELECT DISTINCT ON (store_id, user_id) store_id, user_id, signed_up_at
          FROM input ORDER BY store_id, user_id, ord
          ON CONFLICT (store_id, user_id) DO NOTHING
          RETURNING store_id, user_id
        ), firsts AS (
          SELECT min(i.ord) AS ord FROM input i JOIN new_users USING (store_id, user_id) GROUP BY i.store_id, i.user_id
        ), inserted AS (
          INSERT INTO tracked_signups (store_id, key_id, nonce, user_id, email, phone, name, source, properties,
            signed_up_at, received_at, billable)
          SELECT i.store_id, i.key_id, i.nonce, i.user_id, i.email, i.phone, i.name, i.source, i.properties,
            i.signed_up_at, i.received_at, firsts.ord IS NOT NULL
          FROM input i LEFT JOIN firsts ON firsts.ord = i.ord
          ORDER BY i.ord
          RETURNING 1
        )
        SELECT ord FROM firsts`.pipe(Effect.flatMap(decodeRecorded), Effect.orDie)
      return marked(rows.length, firsts)
    })

    return TrackerStore.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          Option.isSome(open)
            ? effect
            : sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(error)))
        ) as typeof effect,
      recordEvents,
      recordSignups
    })
  })
)
