/**
 * The risk store on PostgreSQL (tables `customer_bans`, `order_risk_flags`, `store_risk_settings` of storage
 * migration 0022), needing only `SqlClient`; it reads `customers`, `orders`, `order_shipments` and
 * `order_shipment_events`. A customer's facts are one statement; the outcomes report one statement over the period's
 * shipments. Every statement filters on the store id.
 */
import { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BannedOrders, DEFAULT_BANNED_ORDERS, OrderFlag, RiskStore } from "./RiskStore.ts"

const Timestamp = Schema.DateTimeUtcFromDate

const BanRow = Schema.Struct({
  id: Schema.Int,
  phone: Schema.String,
  reason: Schema.String,
  created_at: Timestamp,
  customer_id: Schema.NullOr(Schema.Int)
})
const decodeBans = Schema.decodeUnknownEffect(Schema.Array(BanRow))
const SettingsRow = Schema.Struct({ banned_orders: BannedOrders, updated_at: Timestamp })
const decodeSettings = Schema.decodeUnknownEffect(Schema.Array(SettingsRow))
const decodeFlags = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ flag: OrderFlag, created_at: Timestamp })))
const decodeFacts = Schema.decodeUnknownEffect(
  Schema.Struct({
    delivered: Schema.Int,
    returned: Schema.Int,
    orders_last_24h: Schema.Int,
    other_phones: Schema.Int,
    fake_confirmations: Schema.Int,
    cancelled_confirmations: Schema.Int
  })
)
const decodeOutcomes = Schema.decodeUnknownEffect(
  Schema.Array(
    Schema.Struct({
      courier: Schema.String,
      wilaya_id: Schema.Int,
      status: CanonicalStatus,
      first_at: Timestamp,
      status_at: Timestamp
    })
  )
)

export const layer: Layer.Layer<RiskStore, never, SqlClient.SqlClient> = Layer.effect(
  RiskStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // A ban with the store's customer of its phone (customers are unique by store and phone).
    const banColumns = sql.literal(
      "b.id, b.phone, b.reason, b.created_at, " +
        "(SELECT c.id FROM customers c WHERE c.store_id = b.store_id AND c.phone = b.phone) AS customer_id"
    )

    return RiskStore.of({
      findBan: Effect.fnUntraced(function* (storeId, phone) {
        const [ban] = yield* sql`
          SELECT ${banColumns} FROM customer_bans b WHERE b.store_id = ${storeId} AND b.phone = ${phone}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeBans),
          Effect.orDie
        )
        return ban
      }),
      putBan: Effect.fnUntraced(function* (storeId, phone, reason) {
        const [ban] = yield* sql`
          INSERT INTO customer_bans AS b (store_id, phone, reason) VALUES (${storeId}, ${phone}, ${reason})
          ON CONFLICT (store_id, phone) DO UPDATE SET reason = EXCLUDED.reason
          RETURNING ${banColumns}`.pipe(Effect.orDie, Effect.flatMap(decodeBans), Effect.orDie)
        return ban!
      }),
      removeBan: Effect.fnUntraced(function* (storeId, phone) {
        const rows = yield* sql`
          DELETE FROM customer_bans WHERE store_id = ${storeId} AND phone = ${phone} RETURNING id`.pipe(Effect.orDie)
        return rows.length > 0
      }),
      listBans: Effect.fnUntraced(function* (storeId, page) {
        const after = page.afterId === undefined ? sql`` : sql`AND b.id < ${page.afterId}`
        return yield* sql`
          SELECT ${banColumns} FROM customer_bans b WHERE b.store_id = ${storeId} ${after}
          ORDER BY b.id DESC LIMIT ${page.limit}`.pipe(Effect.orDie, Effect.flatMap(decodeBans), Effect.orDie)
      }),
      settings: Effect.fnUntraced(function* (storeId) {
        const [row] = yield* sql`
          SELECT banned_orders, updated_at FROM store_risk_settings WHERE store_id = ${storeId}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeSettings),
          Effect.orDie
        )
        return row ?? { banned_orders: DEFAULT_BANNED_ORDERS, updated_at: null }
      }),
      putSettings: Effect.fnUntraced(function* (storeId, bannedOrders) {
        const [row] = yield* sql`
          INSERT INTO store_risk_settings (store_id, banned_orders) VALUES (${storeId}, ${bannedOrders})
          ON CONFLICT (store_id) DO UPDATE SET banned_orders = EXCLUDED.banned_orders, updated_at = now()
          RETURNING banned_orders, updated_at`.pipe(Effect.orDie, Effect.flatMap(decodeSettings), Effect.orDie)
        return row!
      }),
      flagOrder: (storeId, orderId, flag) =>
        sql`
          INSERT INTO order_risk_flags (order_id, store_id, flag) VALUES (${orderId}, ${storeId}, ${flag})
          ON CONFLICT DO NOTHING`.pipe(Effect.orDie, Effect.asVoid),
      flagsOf: (storeId, orderId) =>
        sql`
          SELECT flag, created_at FROM order_risk_flags WHERE store_id = ${storeId} AND order_id = ${orderId}
          ORDER BY created_at, flag`.pipe(Effect.orDie, Effect.flatMap(decodeFlags), Effect.orDie),
      customerFacts: Effect.fnUntraced(function* (storeId, customer) {
        // The address as `RiskStore.addressKey` folds it (and as the `customers_address` index holds it).
        const [row] = yield* sql`
          WITH own AS (
            SELECT o.created_at, s.status FROM orders o LEFT JOIN order_shipments s ON s.order_id = o.id
            WHERE o.store_id = ${storeId} AND o.customer_id = ${customer.id}
          ),
          me AS (
            SELECT wilaya_id, lower(btrim(commune)) AS commune,
              lower(btrim(regexp_replace(address, '\\s+', ' ', 'g'))) AS address
            FROM customers WHERE store_id = ${storeId} AND id = ${customer.id}
          ),
          -- The customer's orders a confirmation call or link found fake, or the customer cancelled.
          confirmations AS (
            SELECT count(DISTINCT a.order_id) FILTER (WHERE a.outcome = 'fake')::int AS fake,
              count(DISTINCT a.order_id) FILTER (WHERE a.outcome = 'customer_cancelled')::int AS cancelled
            FROM order_confirmation_attempts a JOIN orders o ON o.id = a.order_id
            WHERE a.store_id = ${storeId} AND o.customer_id = ${customer.id}
              AND a.outcome IN ('fake', 'customer_cancelled')
          )
          SELECT
            (SELECT count(*) FROM own WHERE status = 'delivered')::int AS delivered,
            (SELECT count(*) FROM own WHERE status IN ('returned', 'returning'))::int AS returned,
            (SELECT count(*) FROM own WHERE created_at > now() - interval '24 hours')::int AS orders_last_24h,
            (SELECT count(DISTINCT c.phone) FROM customers c, me
              WHERE me.address <> '' AND c.store_id = ${storeId} AND c.id <> ${customer.id}
                AND c.wilaya_id = me.wilaya_id AND lower(btrim(c.commune)) = me.commune
                AND lower(btrim(regexp_replace(c.address, '\\s+', ' ', 'g'))) = me.address)::int AS other_phones,
            confirmations.fake AS fake_confirmations, confirmations.cancelled AS cancelled_confirmations
          FROM confirmations`.pipe(Effect.orDie)
        const facts = yield* decodeFacts(row).pipe(Effect.orDie)
        return {
          delivered: facts.delivered,
          returned: facts.returned,
          fakeConfirmations: facts.fake_confirmations,
          cancelledConfirmations: facts.cancelled_confirmations,
          otherPhonesAtAddress: facts.other_phones,
          ordersLast24h: facts.orders_last_24h
        }
      }),
      shipmentOutcomes: (storeId, period) => {
        const from =
          period.from === undefined ? sql`` : sql`AND s.created_at >= ${DateTime.formatIso(period.from)}::timestamptz`
        const to =
          period.to === undefined ? sql`` : sql`AND s.created_at < ${DateTime.formatIso(period.to)}::timestamptz`
        return sql`
          SELECT s.courier, o.wilaya_id, s.status, s.status_at,
            coalesce((SELECT min(e.occurred_at) FROM order_shipment_events e
              WHERE e.order_id = s.order_id AND e.kind = 'movement'), s.created_at) AS first_at
          FROM order_shipments s JOIN orders o ON o.id = s.order_id
          WHERE s.store_id = ${storeId} ${from} ${to}`.pipe(Effect.orDie, Effect.flatMap(decodeOutcomes), Effect.orDie)
      }
    })
  })
)
