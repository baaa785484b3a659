/**
 * The order store on PostgreSQL (tables `customers`, `orders`, `order_items`, `order_item_variants` of storage
 * migration 0003), needing only `SqlClient`. It reads the catalogue's tables (`products`, `variant_groups`,
 * `variant_options`) and locks `stores` rows, and writes to the catalogue only the stock and sales counts an order
 * commits or restores. Every statement filters on the store id. Times are the database's (`now()`, the
 * transaction's start), so every instance agrees on days and months; they are shown in Algiers time.
 *
 * Round trips, the create path being benchmarked:
 * - create: one read (the products, their options, the clock and for a capped plan the month's count) preceded by
 *   a lock of the store row for a capped plan, then one insert statement (customer upsert, order, lines, variants).
 *   The month's count must be read by a statement that starts after the lock is granted, so that it sees the orders
 *   of the transaction that held the lock before: the lock is its own statement. `FOR NO KEY UPDATE` queues the
 *   store's capped creates without blocking the foreign-key checks of other inserts that name the store.
 * - the create's Idempotency-Key: the read carries the key's pending claim in front of it
 *   (`Idempotency.carryPending`, the `ClaimCarrier` port, decision 0027), one round trip for both; the capped
 *   plan's lock, which must not be taken for a replay, is preceded by the claim on its own
 *   (`Idempotency.claimPending`).
 * - order number collision: the insert does nothing (`ON CONFLICT DO NOTHING`, so the caller's transaction is not
 *   aborted) and says so; `Orders` retries with another number.
 * - status move: one compare-and-set statement, with its stock effect in the same statement. A move with a stock
 *   effect first locks the store row, so the stock moves of one store run one at a time and two orders sharing
 *   products can never lock them in opposite orders (a deadlock would fail a status change over stock).
 */

import { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import { type Ids, StoreAmount } from "@tawsil/domain"
import { Idempotency } from "@tawsil/idempotency"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as CustomerMatch from "./CustomerMatch.ts"
import { DeliveryType, PaymentMethod, type Product } from "./OrderCreate.ts"
import * as OrderShipment from "./OrderShipment.ts"
import { OrderStatus } from "./OrderStatus.ts"
import {
  type CustomerRecord,
  type ItemRecord,
  type OrderRecord,
  OrderStore,
  type OrderSummaryRecord,
  PaymentStatus
} from "./OrderStore.ts"

const Amount = StoreAmount.FromString
const Timestamp = Schema.DateTimeUtcFromDate

const ProductRow = Schema.Struct({
  id: Schema.Int,
  digital: Schema.Boolean,
  price: Amount,
  options: Schema.Array(
    Schema.Struct({ group_name: Schema.String, option_name: Schema.String, price_adjustment: Amount })
  )
})

const SnapshotRow = Schema.Struct({
  now: Timestamp,
  /** What the Idempotency-Key's claim found, when the read carried it. */
  claim: Schema.optionalKey(Schema.Unknown),
  orders_this_month: Schema.Int,
  products: Schema.Array(ProductRow)
})

const InsertedRow = Schema.Struct({
  id: Schema.Int,
  customer_id: Schema.Int,
  created_at: Timestamp,
  items: Schema.Array(Schema.Struct({ id: Schema.Int, position: Schema.Int }))
})

const summaryFields = {
  id: Schema.Int,
  order_number: Schema.String,
  status: OrderStatus,
  payment_status: PaymentStatus,
  payment_method: PaymentMethod,
  total: Amount,
  customer_name: Schema.String,
  customer_phone: Schema.String,
  wilaya_id: Schema.Int,
  commune: Schema.String,
  delivery_type: DeliveryType,
  created_at: Timestamp
}

const JsonTime = Schema.DateTimeUtcFromString

const SummaryRow = Schema.Struct({
  ...summaryFields,
  shipment: Schema.NullOr(
    Schema.Struct({ courier: Schema.String, tracking_number: Schema.String, status: CanonicalStatus })
  )
})

const shipmentFields = {
  account_id: Schema.Int,
  courier: Schema.String,
  tracking_number: Schema.String,
  courier_reference: Schema.NullOr(Schema.String),
  status: CanonicalStatus,
  raw_status: Schema.String,
  reason: Schema.NullOr(Schema.String),
  status_at: JsonTime,
  cod_status: Schema.NullOr(CodStatus),
  cod_at: Schema.NullOr(JsonTime),
  dispatched: Schema.Boolean,
  created_at: JsonTime,
  updated_at: JsonTime
}

const ShipmentRow = Schema.Struct({
  ...shipmentFields,
  timeline: Schema.Array(
    Schema.Struct({
      kind: Schema.Literals(["movement", "cod"]),
      status: Schema.String,
      raw_status: Schema.String,
      reason: Schema.NullOr(Schema.String),
      occurred_at: JsonTime,
      source: OrderShipment.EventSource,
      amount: Schema.NullOr(Schema.Number),
      fee: Schema.NullOr(Schema.Number),
      statement: Schema.NullOr(Schema.String)
    })
  )
})

const LockedRow = Schema.Struct({
  ...shipmentFields,
  status_at: Timestamp,
  cod_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
  order_status: OrderStatus
})

const OrderRow = Schema.Struct({
  ...summaryFields,
  stock_committed: Schema.Boolean,
  customer_id: Schema.Int,
  customer_email: Schema.NullOr(Schema.String),
  address: Schema.String,
  desk_id: Schema.NullOr(Schema.Int),
  desk_name: Schema.NullOr(Schema.String),
  subtotal: Amount,
  shipping_cost: Amount,
  discount: Amount,
  payment_fee: Amount,
  updated_at: Timestamp,
  shipment: Schema.NullOr(ShipmentRow),
  items: Schema.Array(
    Schema.Struct({
      id: Schema.Int,
      product_id: Schema.Int,
      price: Amount,
      quantity: Schema.Int,
      variants: Schema.Array(
        Schema.Struct({
          group_name: Schema.String,
          option_name: Schema.String,
          color_code: Schema.NullOr(Schema.String),
          price_adjustment: Amount
        })
      )
    })
  )
})

const CustomerRow = Schema.Struct({
  id: Schema.Int,
  first_name: Schema.String,
  last_name: Schema.String,
  phone: Schema.String,
  email: Schema.NullOr(Schema.String),
  wilaya_id: Schema.Int,
  commune: Schema.String,
  address: Schema.String,
  notes: Schema.NullOr(Schema.String),
  total_orders: Schema.Int,
  total_spent: Amount,
  is_banned: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
})

const UpdatedRow = Schema.Struct({ updated_at: Timestamp })

const decodeRows = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => Effect.orDie(decode(rows))
}

const decodeSnapshot = decodeRows(SnapshotRow)
const decodeInserted = decodeRows(InsertedRow)
const decodeSummaries = decodeRows(SummaryRow)
const decodeOrders = decodeRows(OrderRow)
const decodeCustomers = decodeRows(CustomerRow)
const decodeUpdated = decodeRows(UpdatedRow)
const decodeLocked = decodeRows(LockedRow)
const decodeNames = decodeRows(Schema.Struct({ id: Schema.Int, name: Schema.String }))
const decodeFresh = decodeRows(Schema.Struct({ dedupe_key: Schema.String }))
const decodeFound = decodeRows(Schema.Struct({ store_id: Schema.Int, order_id: Schema.Int }))

const amountText = StoreAmount.format

/** An `integer[]` literal of ids that are integers already. */
const intArray = (ids: ReadonlyArray<number>) => `{${ids.join(",")}}`

export const layer: Layer.Layer<OrderStore, never, SqlClient.SqlClient> = Layer.effect(
  OrderStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const summaryColumns = sql.literal(
      "o.id, o.order_number, o.status, o.payment_status, o.payment_method, o.total, o.customer_name, " +
        "o.customer_phone, o.wilaya_id, o.commune, o.delivery_type, o.created_at"
    )

    /** An order's shipment with its timeline, as one JSON value (null without one). */
    const shipmentJson = sql.literal(`(
      SELECT json_build_object(
        'account_id', s.account_id, 'courier', s.courier, 'tracking_number', s.tracking_number,
        'courier_reference', s.courier_reference, 'status', s.status, 'raw_status', s.raw_status, 'reason', s.reason,
        'status_at', s.status_at, 'cod_status', s.cod_status, 'cod_at', s.cod_at, 'dispatched', s.dispatched,
        'created_at', s.created_at, 'updated_at', s.updated_at,
        'timeline', coalesce((
          SELECT json_agg(json_build_object(
            'kind', e.kind, 'status', e.status, 'raw_status', e.raw_status, 'reason', e.reason,
            'occurred_at', e.occurred_at, 'source', e.source, 'amount', e.amount, 'fee', e.fee,
            'statement', e.statement)
            ORDER BY e.occurred_at, e.received_at, e.kind DESC, e.raw_status)
          FROM order_shipment_events e WHERE e.order_id = s.order_id
        ), '[]'::json))
      FROM order_shipments s WHERE s.order_id = o.id)`)

    const customerColumns = sql.literal(
      "id, first_name, last_name, phone, email, wilaya_id, commune, address, notes, total_orders, total_spent, " +
        "is_banned, created_at, updated_at"
    )

    return OrderStore.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          Option.isSome(open)
            ? effect
            : sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(error)))
        ) as typeof effect,

      prepareCreate: Effect.fnUntraced(function* (storeId, productIds, options) {
        if (options.countThisMonth) {
          yield* Idempotency.claimPending
          yield* sql`SELECT 1 FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE`.pipe(Effect.orDie)
        }
        const claim = yield* Idempotency.carryPending
        const monthCount = options.countThisMonth
          ? sql`(
              SELECT count(*)::int FROM orders
              WHERE store_id = ${storeId}
                AND created_at >= date_trunc('month', now() AT TIME ZONE 'Africa/Algiers') AT TIME ZONE 'Africa/Algiers'
            )`
          : sql`0`
        const products =
          productIds.length === 0
            ? sql`'[]'::json`
            : sql`coalesce((
                SELECT json_agg(json_build_object(
                  'id', p.id, 'digital', p.digital, 'price', p.price::text,
                  'options', coalesce((
                    SELECT json_agg(json_build_object(
                      'group_name', g.name, 'option_name', o.value, 'price_adjustment', o.price_adjustment::text))
                    FROM variant_groups g JOIN variant_options o ON o.group_id = g.id
                    WHERE g.product_id = p.id
                  ), '[]'::json)))
                FROM products p
                WHERE p.store_id = ${storeId} AND p.deleted_at IS NULL AND p.id = ANY(${intArray(productIds)}::int[])
              ), '[]'::json)`
        const [row] = yield* (
          claim === undefined
            ? sql`SELECT now() AS now, ${monthCount} AS orders_this_month, ${products} AS products`
            : sql`WITH ${claim.ctes}
                SELECT now() AS now, ${monthCount} AS orders_this_month, ${products} AS products, ${claim.found} AS claim`
        ).pipe(Effect.orDie, Effect.flatMap(decodeSnapshot))
        // Nothing below runs unless the key is this create's.
        if (claim !== undefined) yield* claim.settle(row!.claim)
        const snapshot = row!
        return {
          now: snapshot.now,
          ordersThisMonth: snapshot.orders_this_month,
          products: new Map<number, Product>(
            snapshot.products.map((p) => [p.id, { ...p, id: p.id as Ids.ProductId }] as const)
          )
        }
      }),

      insertOrder: Effect.fnUntraced(function* (storeId, order) {
        const c = order.customer
        const phone = CustomerMatch.phoneKey(c.phone)
        const address = c.address ?? null
        const items = JSON.stringify(
          order.items.map((item, position) => ({
            position,
            product_id: item.product_id,
            price: amountText(item.price),
            quantity: item.quantity
          }))
        )
        const variants = JSON.stringify(
          order.items.flatMap((item, itemPosition) =>
            item.variants.map((variant, position) => ({
              item: itemPosition,
              position,
              group_name: variant.group_name,
              option_name: variant.option_name,
              color_code: variant.color_code,
              price_adjustment: amountText(variant.price_adjustment)
            }))
          )
        )
        const rows = yield* sql`
          WITH customer AS (
            INSERT INTO customers AS c (store_id, first_name, last_name, phone, email, wilaya_id, commune, address)
            VALUES (${storeId}, ${c.name}, '', ${phone}, ${c.email}::text, ${c.wilaya_id}, ${c.commune},
              coalesce(${address}::text, ''))
            ON CONFLICT (store_id, phone) DO UPDATE SET
              first_name = excluded.first_name, wilaya_id = excluded.wilaya_id, commune = excluded.commune,
              address = coalesce(${address}::text, c.address), email = coalesce(excluded.email, c.email),
              updated_at = now()
            RETURNING c.id
          ), placed AS (
            INSERT INTO orders (store_id, order_number, source, status, payment_method, customer_id, customer_name,
              customer_phone, customer_email, wilaya_id, commune, address, delivery_type, desk_id, desk_name,
              subtotal, shipping_cost, discount, payment_fee, total, notes)
            SELECT ${storeId}, ${order.order_number}, 'api', 'pending', ${order.payment_method}, customer.id,
              ${c.name}, ${phone}, ${c.email}::text, ${c.wilaya_id}, ${c.commune}, coalesce(${address}::text, ''),
              ${order.delivery.type}, ${order.delivery.desk_id}::int, ${order.delivery.desk_name}::text,
              ${amountText(order.subtotal)}::numeric, ${amountText(order.shipping_cost)}::numeric,
              ${amountText(order.discount)}::numeric, ${amountText(order.payment_fee)}::numeric,
              ${amountText(order.total)}::numeric, ${order.notes}::text
            FROM customer
            ON CONFLICT (order_number) DO NOTHING
            RETURNING id, customer_id, created_at
          ), items AS (
            INSERT INTO order_items (order_id, product_id, price, quantity, position)
            SELECT placed.id, i.product_id, i.price, i.quantity, i.position
            FROM placed, jsonb_to_recordset(${items}::jsonb) AS i(position int, product_id int, price numeric, quantity int)
            RETURNING id, position
          ), variants AS (
            INSERT INTO order_item_variants (order_item_id, position, group_name, option_name, color_code,
              price_adjustment)
            SELECT items.id, v.position, v.group_name, v.option_name, v.color_code, v.price_adjustment
            FROM items JOIN jsonb_to_recordset(${variants}::jsonb)
              AS v(item int, position int, group_name text, option_name text, color_code text, price_adjustment numeric)
              ON v.item = items.position
          )
          SELECT placed.id, placed.customer_id, placed.created_at,
            (SELECT json_agg(json_build_object('id', items.id, 'position', items.position)) FROM items) AS items
          FROM placed`.pipe(Effect.orDie, Effect.flatMap(decodeInserted))
        const inserted = rows[0]
        if (inserted === undefined) return undefined
        const itemIds = new Map(inserted.items.map((item) => [item.position, item.id]))
        const record: OrderRecord = {
          id: inserted.id,
          order_number: order.order_number,
          status: "pending",
          stock_committed: false,
          payment_status: "pending",
          payment_method: order.payment_method,
          total: order.total,
          customer_id: inserted.customer_id,
          customer_name: c.name,
          customer_phone: phone,
          customer_email: c.email,
          wilaya_id: c.wilaya_id,
          commune: c.commune,
          address: c.address ?? "",
          delivery_type: order.delivery.type,
          desk_id: order.delivery.desk_id,
          desk_name: order.delivery.desk_name,
          subtotal: order.subtotal,
          shipping_cost: order.shipping_cost,
          discount: order.discount,
          payment_fee: order.payment_fee,
          created_at: inserted.created_at,
          updated_at: inserted.created_at,
          items: order.items.map((item, position): ItemRecord => ({ ...item, id: itemIds.get(position)! })),
          shipment: null
        }
        return record
      }),

      findOrder: Effect.fnUntraced(function* (storeId, id) {
        const [row] = yield* sql`
          SELECT ${summaryColumns}, o.stock_committed, o.customer_id, o.customer_email, o.address, o.desk_id,
            o.desk_name, o.subtotal, o.shipping_cost, o.discount, o.payment_fee, o.updated_at,
            ${shipmentJson} AS shipment,
            coalesce((
              SELECT json_agg(json_build_object(
                'id', i.id, 'product_id', i.product_id, 'price', i.price::text, 'quantity', i.quantity,
                'variants', coalesce((
                  SELECT json_agg(json_build_object(
                    'group_name', v.group_name, 'option_name', v.option_name, 'color_code', v.color_code,
                    'price_adjustment', v.price_adjustment::text) ORDER BY v.position)
                  FROM order_item_variants v WHERE v.order_item_id = i.id
                ), '[]'::json)) ORDER BY i.position)
              FROM order_items i WHERE i.order_id = o.id
            ), '[]'::json) AS items
          FROM orders o
          WHERE o.store_id = ${storeId} AND o.id = ${id}`.pipe(Effect.orDie, Effect.flatMap(decodeOrders))
        return row satisfies OrderRecord | undefined
      }),

      moveOrder: Effect.fnUntraced(function* (storeId, id, move) {
        if (move.stock === "none") {
          const [row] = yield* sql`
            UPDATE orders SET status = ${move.to}, updated_at = now()
            WHERE store_id = ${storeId} AND id = ${id} AND status = ${move.from}
            RETURNING updated_at`.pipe(Effect.orDie, Effect.flatMap(decodeUpdated))
          return row?.updated_at
        }
        // commit: stock goes down and sales up; restore: the reverse.
        const sign = move.stock === "commit" ? -1 : 1
        const [row] = yield* sql`
          WITH store AS (
            SELECT id FROM stores WHERE id = ${storeId} FOR NO KEY UPDATE
          ), moved AS (
            UPDATE orders o SET status = ${move.to}, stock_committed = ${move.stock === "commit"}, updated_at = now()
            FROM store
            WHERE o.store_id = store.id AND o.id = ${id} AND o.status = ${move.from}
            RETURNING o.id, o.updated_at
          ), lines AS (
            SELECT i.product_id, sum(i.quantity)::int AS quantity
            FROM order_items i JOIN moved ON i.order_id = moved.id
            GROUP BY i.product_id
          ), products_moved AS (
            UPDATE products p SET
              stock = CASE WHEN p.stock IS NULL THEN NULL ELSE greatest(p.stock + ${sign} * lines.quantity, 0) END,
              sales_count = greatest(p.sales_count - ${sign} * lines.quantity, 0)
            FROM lines
            WHERE p.id = lines.product_id AND p.store_id = ${storeId}
          ), chosen AS (
            SELECT vo.id, sum(i.quantity)::int AS quantity
            FROM order_items i
            JOIN moved ON i.order_id = moved.id
            JOIN order_item_variants v ON v.order_item_id = i.id
            JOIN products p ON p.id = i.product_id AND p.store_id = ${storeId}
            JOIN variant_groups g ON g.product_id = p.id AND g.name = v.group_name
            JOIN variant_options vo ON vo.group_id = g.id AND vo.value = v.option_name
            WHERE vo.stock IS NOT NULL
            GROUP BY vo.id
          ), options_moved AS (
            UPDATE variant_options vo SET stock = greatest(vo.stock + ${sign} * chosen.quantity, 0)
            FROM chosen WHERE vo.id = chosen.id
          )
          SELECT updated_at FROM moved`.pipe(Effect.orDie, Effect.flatMap(decodeUpdated))
        return row?.updated_at
      }),

      listOrders: Effect.fnUntraced(function* (storeId, filter, page) {
        const conditions = [sql`o.store_id = ${storeId}`]
        if (filter.status !== undefined) conditions.push(sql`o.status = ${filter.status}`)
        if (filter.since !== undefined)
          conditions.push(sql`o.created_at >= ${DateTime.formatIso(filter.since)}::timestamptz`)
        if (filter.customerPhone !== undefined) conditions.push(sql`o.customer_phone = ${filter.customerPhone}`)
        if (filter.customerId !== undefined) conditions.push(sql`o.customer_id = ${filter.customerId}`)
        if (filter.courier !== undefined) conditions.push(sql`s.courier = ${filter.courier}`)
        if (filter.shipmentStatus !== undefined) conditions.push(sql`s.status = ${filter.shipmentStatus}`)
        if (page.afterId !== undefined) conditions.push(sql`o.id < ${page.afterId}`)
        const rows = yield* sql`
          SELECT ${summaryColumns},
            CASE WHEN s.order_id IS NULL THEN NULL ELSE json_build_object(
              'courier', s.courier, 'tracking_number', s.tracking_number, 'status', s.status) END AS shipment
          FROM orders o LEFT JOIN order_shipments s ON s.order_id = o.id
          WHERE ${sql.and(conditions)}
          ORDER BY o.id DESC LIMIT ${page.limit}`.pipe(Effect.orDie, Effect.flatMap(decodeSummaries))
        return rows satisfies ReadonlyArray<OrderSummaryRecord>
      }),

      productNames: Effect.fnUntraced(function* (storeId, ids) {
        if (ids.length === 0) return new Map<number, string>()
        const rows = yield* sql`
          SELECT id, name FROM products WHERE store_id = ${storeId} AND id = ANY(${intArray(ids)}::int[])`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeNames)
        )
        return new Map(rows.map((row) => [row.id, row.name] as const))
      }),

      insertShipment: Effect.fnUntraced(function* (storeId, orderId, shipment, first) {
        const rows = yield* sql`
          WITH added AS (
            INSERT INTO order_shipments (order_id, store_id, account_id, courier, tracking_number, courier_reference,
              status, raw_status, status_at, dispatched)
            SELECT o.id, o.store_id, ${shipment.accountId}, ${shipment.courier}, ${shipment.trackingNumber},
              ${shipment.courierReference ?? null}::text, ${shipment.status}, ${shipment.rawStatus},
              ${DateTime.formatIso(shipment.at)}::timestamptz, ${shipment.dispatched}
            FROM orders o WHERE o.store_id = ${storeId} AND o.id = ${orderId}
            ON CONFLICT (order_id) DO NOTHING
            RETURNING order_id
          ), first AS (
            INSERT INTO order_shipment_events (order_id, dedupe_key, kind, status, raw_status, reason, occurred_at,
              source)
            SELECT added.order_id, ${OrderShipment.dedupeKey(first)}, ${first.kind}, ${first.status},
              ${first.rawStatus}, ${first.reason ?? null}::text, ${DateTime.formatIso(first.occurredAt)}::timestamptz,
              ${first.source}
            FROM added
          )
          SELECT order_id FROM added`.pipe(Effect.orDie)
        return rows.length > 0
      }),

      lockShipment: Effect.fnUntraced(function* (storeId, orderId) {
        const [row] = yield* sql`
          SELECT s.account_id, s.courier, s.tracking_number, s.courier_reference, s.status, s.raw_status, s.reason,
            s.status_at, s.cod_status, s.cod_at, s.dispatched, s.created_at, s.updated_at, o.status AS order_status
          FROM order_shipments s JOIN orders o ON o.id = s.order_id
          WHERE s.store_id = ${storeId} AND s.order_id = ${orderId}
          FOR UPDATE OF s, o`.pipe(Effect.orDie, Effect.flatMap(decodeLocked))
        if (row === undefined) return undefined
        const { order_status, ...shipment } = row
        return { ...shipment, orderStatus: order_status }
      }),

      recordEvents: Effect.fnUntraced(function* (storeId, orderId, events) {
        if (events.length === 0) return []
        const byKey = new Map(events.map((event) => [OrderShipment.dedupeKey(event), event] as const))
        const rows = JSON.stringify(
          [...byKey].map(([key, event]) => ({
            dedupe_key: key,
            kind: event.kind,
            status: event.status,
            raw_status: event.rawStatus,
            reason: event.reason ?? null,
            occurred_at: DateTime.formatIso(event.occurredAt),
            source: event.source,
            amount: event.payment?.amount ?? null,
            fee: event.payment?.fee ?? null,
            statement: event.payment?.statement ?? null
          }))
        )
        const fresh = yield* sql`
          INSERT INTO order_shipment_events (order_id, dedupe_key, kind, status, raw_status, reason, occurred_at,
            source, amount, fee, statement)
          SELECT s.order_id, e.dedupe_key, e.kind, e.status, e.raw_status, e.reason, e.occurred_at, e.source,
            e.amount, e.fee, e.statement
          FROM order_shipments s, jsonb_to_recordset(${rows}::jsonb) AS e(dedupe_key text, kind text, status text,
            raw_status text, reason text, occurred_at timestamptz, source text, amount bigint, fee bigint,
            statement text)
          WHERE s.store_id = ${storeId} AND s.order_id = ${orderId}
          ON CONFLICT DO NOTHING
          RETURNING dedupe_key`.pipe(Effect.orDie, Effect.flatMap(decodeFresh))
        return fresh.map((row) => byKey.get(row.dedupe_key)!)
      }),

      updateShipment: Effect.fnUntraced(function* (storeId, orderId, state) {
        const [row] = yield* sql`
          UPDATE order_shipments SET status = ${state.status}, raw_status = ${state.raw_status},
            reason = ${state.reason}::text, status_at = ${DateTime.formatIso(state.status_at)}::timestamptz,
            cod_status = ${state.cod_status}::text,
            cod_at = ${state.cod_at === null ? null : DateTime.formatIso(state.cod_at)}::timestamptz,
            dispatched = coalesce(${state.dispatched ?? null}::boolean, dispatched), updated_at = now()
          WHERE store_id = ${storeId} AND order_id = ${orderId}
          RETURNING updated_at`.pipe(Effect.orDie, Effect.flatMap(decodeUpdated))
        return row!.updated_at
      }),

      findByParcel: Effect.fnUntraced(function* (accountId, parcel) {
        const tracking = parcel.trackingNumber ?? null
        const reference = parcel.courierReference ?? null
        const number = parcel.reference ?? null
        // The courier's tracking number first, then its own reference, then ours (the order number).
        const [found] = yield* sql`
          SELECT s.store_id, s.order_id FROM order_shipments s JOIN orders o ON o.id = s.order_id
          WHERE s.account_id = ${accountId} AND (s.tracking_number = ${tracking}::text
            OR s.courier_reference = ${reference}::text OR o.order_number = ${number}::text)
          ORDER BY s.tracking_number = ${tracking}::text DESC NULLS LAST,
            s.courier_reference = ${reference}::text DESC NULLS LAST
          LIMIT 1`.pipe(Effect.orDie, Effect.flatMap(decodeFound))
        return found === undefined ? undefined : { storeId: found.store_id as Ids.StoreId, orderId: found.order_id }
      }),

      findCustomer: Effect.fnUntraced(function* (storeId, id) {
        const [row] = yield* sql`
          SELECT ${customerColumns} FROM customers WHERE store_id = ${storeId} AND id = ${id}`.pipe(
          Effect.orDie,
          Effect.flatMap(decodeCustomers)
        )
        return row satisfies CustomerRecord | undefined
      }),

      listCustomers: Effect.fnUntraced(function* (storeId, filter, page) {
        const conditions = [sql`store_id = ${storeId}`]
        if (filter.phone !== undefined) conditions.push(sql`lower(phone) = lower(${filter.phone})`)
        if (filter.email !== undefined) conditions.push(sql`lower(email) = lower(${filter.email})`)
        if (page.afterId !== undefined) conditions.push(sql`id < ${page.afterId}`)
        const rows = yield* sql`
          SELECT ${customerColumns} FROM customers
          WHERE ${sql.and(conditions)}
          ORDER BY id DESC LIMIT ${page.limit}`.pipe(Effect.orDie, Effect.flatMap(decodeCustomers))
        return rows satisfies ReadonlyArray<CustomerRecord>
      }),

      setBanned: Effect.fnUntraced(function* (storeId, phone, banned) {
        const [row] = yield* sql<{ readonly id: number }>`
          UPDATE customers SET is_banned = ${banned}, updated_at = now()
          WHERE store_id = ${storeId} AND phone = ${phone} RETURNING id`.pipe(Effect.orDie)
        return row?.id
      })
    })
  })
)
