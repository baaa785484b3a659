import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Orders' shipments (`@tawsil/orders`, docs/cod-loop.md): the parcel a courier carries for an order, and its
 * timeline.
 *
 * - `order_shipments`: at most one per order. The courier account it went through (`account_id`, a row of
 *   `courier_accounts`: kept when the account is deleted, so the order still shows who carried it), the courier's
 *   names for it, its canonical and raw status with the time of the event that set them, its cash-on-delivery status,
 *   and whether it was handed to the courier (`dispatched`).
 * - `order_shipment_events`: every event that reached a shipment, once: by the courier's event id, else by its raw
 *   status and time (`dedupe_key`), and never twice with the same kind, raw status and time whatever the source.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE order_shipments (
      order_id integer PRIMARY KEY REFERENCES orders (id) ON DELETE CASCADE,
      store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      account_id integer NOT NULL,
      courier text NOT NULL,
      tracking_number text NOT NULL,
      courier_reference text,
      status text NOT NULL,
      raw_status text NOT NULL,
      reason text,
      status_at timestamptz NOT NULL,
      cod_status text CHECK (cod_status IN ('not_collected', 'collected', 'remitted')),
      cod_at timestamptz,
      dispatched boolean NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Not unique: a courier that hands out one number twice must not make our write fail; the newest wins a lookup.
  yield* sql`CREATE INDEX order_shipments_tracking ON order_shipments (account_id, tracking_number)`
  yield* sql`CREATE INDEX order_shipments_reference ON order_shipments (account_id, courier_reference)`
  yield* sql`CREATE INDEX order_shipments_store ON order_shipments (store_id, courier, status)`
  yield* sql`
    CREATE TABLE order_shipment_events (
      order_id integer NOT NULL REFERENCES order_shipments (order_id) ON DELETE CASCADE,
      dedupe_key text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('movement', 'cod')),
      status text NOT NULL,
      raw_status text NOT NULL,
      reason text,
      occurred_at timestamptz NOT NULL,
      source text NOT NULL CHECK (source IN ('create', 'dispatch', 'cancel', 'poll', 'push')),
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (order_id, dedupe_key),
      UNIQUE (order_id, kind, raw_status, occurred_at)
    )`
})
