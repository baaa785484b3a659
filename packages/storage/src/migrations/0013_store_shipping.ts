import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A store's shipping configuration (`@tawsil/store-shipping`).
 *
 * - `shipping_settings`: one row per store that changed a setting or wrote a rate (a store without one reads the
 *   defaults). `rates_revision` counts the store's rate writes; a rate write locks this row first, so the rate
 *   writes of one store run one at a time.
 * - `shipping_rates`: a store's price of home and of stop-desk delivery per wilaya (1 to 58); a wilaya with neither
 *   price has no row.
 * - `shipping_rate_sync_undos`: the revisions from which a rate write undid a courier rate sync (that undo's own
 *   undo has nothing to apply).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE shipping_settings (
      store_id integer PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
      origin_wilaya smallint CHECK (origin_wilaya BETWEEN 1 AND 58),
      default_courier text,
      free_shipping_threshold numeric CHECK (free_shipping_threshold >= 0),
      default_delivery_type text NOT NULL DEFAULT 'home' CHECK (default_delivery_type IN ('home', 'desk')),
      cod_fee_payer text NOT NULL DEFAULT 'merchant' CHECK (cod_fee_payer IN ('merchant', 'customer')),
      cod_fee_percent numeric NOT NULL DEFAULT 0 CHECK (cod_fee_percent BETWEEN 0 AND 100),
      updated_at timestamptz,
      rates_revision integer NOT NULL DEFAULT 0
    )`
  yield* sql`
    CREATE TABLE shipping_rates (
      store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      wilaya_id smallint NOT NULL CHECK (wilaya_id BETWEEN 1 AND 58),
      home_price numeric CHECK (home_price >= 0),
      desk_price numeric CHECK (desk_price >= 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (store_id, wilaya_id),
      CHECK (home_price IS NOT NULL OR desk_price IS NOT NULL)
    )`
  yield* sql`
    CREATE TABLE shipping_rate_sync_undos (
      store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      revision integer NOT NULL,
      PRIMARY KEY (store_id, revision)
    )`
})
