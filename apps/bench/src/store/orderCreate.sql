-- One `POST /v1/orders` of the store API as the app sends it to PostgreSQL, for pgbench (`-M prepared`, like the
-- app's driver). Read from the server log of one create with `log_statement = 'all'` (docs/benchmarks.md, "Store
-- API"); `storeOrders.ts` checks on every run that the app still sends this sequence. Where the app binds a
-- parameter, this script uses a pgbench variable (given with -D, or drawn below), so the statements are prepared
-- with the same parameters; the app's NULL parameters are NULL literals.
--
-- Steady state: the key lookup and the store's overrides are cached in the app for 5 s, the key's last use is
-- written every 10 s, so a create sends none of them.

\set key random(1, 9223372036854775806)
\set phone random(500000000, 799999999)

-- 1. Metering (Access.meter), on its own outside the transaction: usage hour and the store's minute window.
WITH hour AS (
  INSERT INTO usage_hourly AS u (store_id, period_hour, endpoint_group, count, billable_count)
  VALUES (:store, date_trunc('hour', now(), :zone), :grp, 1, 0)
  ON CONFLICT (store_id, period_hour, endpoint_group) DO UPDATE SET count = u.count + 1
  RETURNING u.count, u.period_hour
), minute AS (
  INSERT INTO rate_windows AS w (store_id, window_start, count)
  VALUES (:store, date_trunc('minute', now()), 1)
  ON CONFLICT (store_id, window_start) DO UPDATE SET count = w.count + 1
  RETURNING w.count, w.window_start
)
SELECT minute.count AS window_count,
  ceil(extract(epoch FROM minute.window_start + interval '1 minute' - now()))::int AS reset_seconds,
  CASE WHEN :month THEN hour.count + (
    SELECT coalesce(sum(e.count), 0) FROM usage_hourly e
    WHERE e.store_id = :store AND e.endpoint_group = :grp
      AND e.period_hour >= date_trunc('month', now(), :zone) AND e.period_hour < hour.period_hour
  ) END::int8 AS month_count
FROM hour, minute;

-- 2. The write's transaction. Its first statement carries the idempotency claim (advisory lock taken without
-- waiting and, only with it, the in-flight row under the token the app draws; decision 0027) in front of the order
-- write's read (OrderStoreSql): the clock and the products with their options, and what the claim found.
\set token random(1, 9223372036854775806)
BEGIN;
WITH idempotency_lock AS MATERIALIZED (
  SELECT pg_try_advisory_xact_lock(hashtextextended(:scope::text || ' ' || :key::text, 0))
    AS locked
), idempotency_claim AS (
  INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, token, expires_at)
  SELECT :scope, :key, :fingerprint, 'in_flight', :token,
    now() + make_interval(secs => :lease)
  FROM idempotency_lock WHERE idempotency_lock.locked
  ON CONFLICT (scope, key) DO UPDATE SET
    fingerprint = excluded.fingerprint, state = excluded.state, token = excluded.token, status = NULL,
    headers = NULL, body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE k.expires_at <= now()
  RETURNING k.token
)
SELECT now() AS now, 0 AS orders_this_month, coalesce((
  SELECT json_agg(json_build_object(
    'id', p.id, 'digital', p.digital, 'price', p.price::text,
    'options', coalesce((
      SELECT json_agg(json_build_object(
        'group_name', g.name, 'option_name', o.value, 'price_adjustment', o.price_adjustment::text))
      FROM variant_groups g JOIN variant_options o ON o.group_id = g.id
      WHERE g.product_id = p.id
    ), '[]'::json)))
  FROM products p
  WHERE p.store_id = :store AND p.deleted_at IS NULL AND p.id = ANY(:product_ids::int[])
), '[]'::json) AS products, coalesce(
  (SELECT json_build_object('token', token) FROM idempotency_claim),
  (SELECT json_build_object('fingerprint', fingerprint, 'status', status, 'headers', headers, 'body', body)
    FROM idempotency_keys WHERE scope = :scope AND key = :key AND expires_at > now()),
  '{}'::json) AS claim;

-- 3. The customer's ban, if the store banned the phone (RiskStoreSql.findBan, issue 36): a banned customer's order
-- is refused before it is written.
SELECT b.id, b.phone, b.reason, b.created_at,
  (SELECT c.id FROM customers c WHERE c.store_id = b.store_id AND c.phone = b.phone) AS customer_id
FROM customer_bans b WHERE b.store_id = :store AND b.phone = :phone;

-- 4. The order write (OrderStoreSql): the customer upsert, the order, its lines and the line's variant in one
-- statement.
WITH customer AS (
  INSERT INTO customers AS c (store_id, first_name, last_name, phone, email, wilaya_id, commune, address)
  VALUES (:store, :name, '', :phone, NULL::text, :wilaya, :commune, coalesce(:address::text, ''))
  ON CONFLICT (store_id, phone) DO UPDATE SET
    first_name = excluded.first_name, wilaya_id = excluded.wilaya_id, commune = excluded.commune,
    address = coalesce(:address::text, c.address), email = coalesce(excluded.email, c.email),
    updated_at = now()
  RETURNING c.id
), placed AS (
  INSERT INTO orders (store_id, order_number, source, status, payment_method, customer_id, customer_name,
    customer_phone, customer_email, wilaya_id, commune, address, delivery_type, desk_id, desk_name,
    subtotal, shipping_cost, discount, payment_fee, total, notes)
  SELECT :store, :key, 'api', 'pending', :payment_method, customer.id,
    :name, :phone, NULL::text, :wilaya, :commune, coalesce(:address::text, ''),
    :delivery_type, NULL::int, NULL::text,
    :subtotal::numeric, :shipping_cost::numeric,
    :discount::numeric, :payment_fee::numeric,
    :total::numeric, NULL::text
  FROM customer
  ON CONFLICT (order_number) DO NOTHING
  RETURNING id, customer_id, created_at
), items AS (
  INSERT INTO order_items (order_id, product_id, price, quantity, position)
  SELECT placed.id, i.product_id, i.price, i.quantity, i.position
  FROM placed, jsonb_to_recordset(:items::jsonb) AS i(position int, product_id int, price numeric, quantity int)
  RETURNING id, position
), variants AS (
  INSERT INTO order_item_variants (order_item_id, position, group_name, option_name, color_code,
    price_adjustment)
  SELECT items.id, v.position, v.group_name, v.option_name, v.color_code, v.price_adjustment
  FROM items JOIN jsonb_to_recordset(:variants::jsonb)
    AS v(item int, position int, group_name text, option_name text, color_code text, price_adjustment numeric)
    ON v.item = items.position
)
SELECT placed.id, placed.customer_id, placed.created_at,
  (SELECT json_agg(json_build_object('id', items.id, 'position', items.position)) FROM items) AS items
FROM placed;

-- 5. The outbox (the webhooks' listener of the order's events, in the same transaction): the event and its
-- deliveries, written only when the store has a subscription to it (the bench store has none, as most have not).
WITH wanted AS (
  SELECT id FROM webhook_subscriptions
  WHERE store_id = :store AND active AND :event = ANY (events)
), recorded AS (
  INSERT INTO webhook_events (id, store_id, event, payload)
  SELECT :key, :store, :event, :payload
  WHERE EXISTS (SELECT 1 FROM wanted)
  RETURNING id
), queued AS (
  INSERT INTO webhook_deliveries (store_id, subscription_id, event_id, max_attempts)
  SELECT :store, wanted.id, recorded.id, :max_attempts FROM wanted, recorded
  RETURNING 1
)
SELECT count(*)::int AS queued FROM queued;

-- 6. The idempotency record completed with the answer, then the commit.
UPDATE idempotency_keys SET state = 'completed', status = :status,
  headers = :headers::jsonb, body = :body,
  expires_at = now() + make_interval(secs => :ttl)
WHERE scope = :scope AND key = :key AND token = :token AND state = 'in_flight'
RETURNING 1 AS recorded;
COMMIT;
