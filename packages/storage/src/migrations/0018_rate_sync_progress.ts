import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A store's courier rate sync as it runs (`@tawsil/store-shipping`, `GET /v1/shipping/rates/sync`): one row per
 * store, its latest sync — the courier, how many destinations it prices and how many are done, when it started,
 * last moved and finished, the change it recorded or why it failed. A sync paced under its courier's limits can run
 * for minutes; this is how a dashboard follows it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE shipping_rate_syncs (
      store_id integer PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      courier text NOT NULL,
      total integer NOT NULL,
      done integer NOT NULL DEFAULT 0,
      started_at timestamptz NOT NULL DEFAULT now(),
      moved_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      change_id integer,
      error text
    )`
})
