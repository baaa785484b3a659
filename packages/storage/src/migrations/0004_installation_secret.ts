import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * This installation's secret, the key of the hashes that stand for a caller's credentials: idempotency scopes and
 * fingerprints (`@tawsil/idempotency`) and the courier account digests the rate limits count by
 * (`@tawsil/courier`). Without it a stored hash cannot be checked against guessed credentials or bodies. One row,
 * made by the first process that needs it, shared by every instance on the database. Idempotency rows hashed
 * before it existed (plain SHA-256) simply match nothing: their 24 hours run out.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE installation_secret (
      id smallint PRIMARY KEY CHECK (id = 1),
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
