import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Nonces of signed (`TW-Public`) calls (`@tawsil/signing`): one row per key and nonce, remembered until
 * `expires_at` (an hour after first use), when the nonce may be used again. The primary key makes a nonce's single
 * use atomic across instances; the index serves the hourly purge of expired rows.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE signing_nonces (
      key_id text NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (key_id, nonce)
    )`
  yield* sql`CREATE INDEX signing_nonces_expires_at ON signing_nonces (expires_at)`
})
