/**
 * The nonce store on PostgreSQL (table `signing_nonces`, storage migration 0006), needing only `SqlClient`. Expiry
 * is on the database clock, so every instance agrees on it.
 *
 * `consume` records nonces by group commit (`NonceGroupCommit`, decision 0026): the calls of a few milliseconds are
 * one statement that inserts their nonces, or takes over a row that has expired, and returns the rows it wrote; a
 * call's nonce is fresh when its row came back. The primary key on (key, nonce) makes concurrent statements holding
 * one nonce — on any number of instances — queue on it, and exactly one of them gets the row back. A failed
 * statement fails every call of its group.
 *
 * A group's statement runs in the context of the call that opened the group: call `consume` outside any transaction
 * of your own (the store API verifies signed calls before anything opens one), or the group's nonces would be
 * written, and rolled back, with that transaction.
 */
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Nonce from "./Nonce.ts"
import * as NonceGroupCommit from "./NonceGroupCommit.ts"
import { NonceStore } from "./NonceStore.ts"

const LIFETIME_SECONDS = Duration.toMillis(Nonce.LIFETIME) / 1000

/** The SQL store, its group commit tuned by `options` (`layer` takes the defaults: 2 ms, 500 nonces). */
export const make = (options: NonceGroupCommit.Options = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // The group travels as one JSON parameter (as the tracker's rows): a fixed parameter count whatever its size.
    // Rows are taken in key order, so two statements sharing nonces (other instances) lock them in the same order.
    const recordAll: NonceGroupCommit.RecordAll = (entries) =>
      sql<{ readonly key_id: string; readonly nonce: string }>`
        INSERT INTO signing_nonces AS n (key_id, nonce, expires_at)
        SELECT key_id, nonce, now() + make_interval(secs => ${LIFETIME_SECONDS})
        FROM jsonb_to_recordset(${JSON.stringify(entries.map((entry) => ({ key_id: entry.keyId, nonce: entry.nonce })))}::jsonb)
          AS i (key_id text, nonce text)
        ORDER BY key_id, nonce
        ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at
          WHERE n.expires_at <= now()
        RETURNING key_id, nonce`.pipe(
        Effect.map((rows) => {
          const fresh = new Set(rows.map((row) => `${row.key_id} ${row.nonce}`))
          return entries.map((entry) => fresh.has(`${entry.keyId} ${entry.nonce}`))
        }),
        Effect.orDie
      )
    return NonceStore.of({
      consume: NonceGroupCommit.make(recordAll, options),
      purgeExpired: sql<{ readonly purged: number }>`
        WITH purged AS (DELETE FROM signing_nonces WHERE expires_at <= now() RETURNING 1)
        SELECT count(*)::int AS purged FROM purged`.pipe(
        Effect.map(([row]) => row?.purged ?? 0),
        Effect.orDie,
        Effect.withSpan("NonceStoreSql.purgeExpired")
      )
    })
  })

export const layer: Layer.Layer<NonceStore, never, SqlClient.SqlClient> = Layer.effect(NonceStore, make())
