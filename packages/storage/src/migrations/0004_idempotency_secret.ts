import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * This installation's secret for the idempotency hashes (`@tawsil/idempotency`): scopes and fingerprints are HMACs
 * keyed by it, so a row of `idempotency_keys` cannot be matched against guessed credentials or bodies without it.
 * One row, made by the first process that needs it (every instance on the database then shares it). Rows hashed
 * before it existed (plain SHA-256) simply match nothing: their 24 hours run out.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE idempotency_secret (
      id smallint PRIMARY KEY CHECK (id = 1),
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
