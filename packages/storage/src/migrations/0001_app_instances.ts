import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Every start of the HTTP app leaves a row: operators see restarts, and tests see committed writes survive. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE app_instances (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      started_at timestamptz NOT NULL DEFAULT now(),
      hostname text NOT NULL,
      pid integer NOT NULL,
      version text NOT NULL
    )`
})
