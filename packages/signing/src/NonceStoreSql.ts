/**
 * The nonce store on PostgreSQL (table `signing_nonces`, storage migration 0006), needing only `SqlClient`. Expiry
 * is on the database clock, so every instance agrees on it.
 *
 * `consume` is one statement: insert the nonce, or take over its row when that row has expired; the primary key on
 * (key, nonce) makes concurrent consumers of one nonce queue on it, and exactly one of them gets a row back.
 */
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Nonce from "./Nonce.ts"
import { NonceStore } from "./NonceStore.ts"

const LIFETIME_SECONDS = Duration.toMillis(Nonce.LIFETIME) / 1000

export const layer: Layer.Layer<NonceStore, never, SqlClient.SqlClient> = Layer.effect(
  NonceStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return NonceStore.of({
      consume: Effect.fnUntraced(function* (keyId, nonce) {
        const rows = yield* sql`
          INSERT INTO signing_nonces AS n (key_id, nonce, expires_at)
          VALUES (${keyId}, ${Nonce.normalize(nonce)}, now() + make_interval(secs => ${LIFETIME_SECONDS}))
          ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = excluded.expires_at
            WHERE n.expires_at <= now()
          RETURNING 1 AS used`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      purgeExpired: sql<{ readonly purged: number }>`
        WITH purged AS (DELETE FROM signing_nonces WHERE expires_at <= now() RETURNING 1)
        SELECT count(*)::int AS purged FROM purged`.pipe(
        Effect.map(([row]) => row?.purged ?? 0),
        Effect.orDie,
        Effect.withSpan("NonceStoreSql.purgeExpired")
      )
    })
  })
)
