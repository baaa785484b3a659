import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Idempotency keys (`@tawsil/idempotency`): one row per scope and key, in flight or completed with the answer to
 * replay, until `expires_at` (a lease while in flight, the replay window once completed); an expired row counts
 * as absent. The scope and the fingerprint are hashes: no credential or request body is kept. `token` names the
 * claim that may complete or release the row. The index serves the purge of expired rows.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
      token text NOT NULL,
      status integer,
      headers jsonb,
      body text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (scope, key),
      CHECK ((state = 'completed') = (status IS NOT NULL AND headers IS NOT NULL AND body IS NOT NULL))
    )`
  yield* sql`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
})
