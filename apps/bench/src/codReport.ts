/**
 * The COD reconciliation report at scale (issue 36): `GET /v1/reports/cod` over `--shipments` shipments of one store
 * on a real PostgreSQL, as JSON (the figures folded as the rows stream, the first 1 000 discrepancies) and as CSV
 * (`Accept: text/csv`: a line per shipment, streamed from the server's cursor to the socket) — the wall time of each,
 * the bytes, and the app's resident memory sampled every 20 ms while it answers, against its memory before: the CSV
 * of a million shipments must not hold them.
 *
 * The shipments are seeded in SQL, set-based (`INSERT … SELECT generate_series`, in one transaction): copies of a
 * template order made through the API, shipped over three couriers in turn on days spread over the 29 days before
 * today, in the mix a COD store sees — 70 % delivered, 15 % returned, 10 % on their way, 5 % cancelled; of the
 * delivered, half remitted (a cash event with the amount paid, one in 50 short by 100 DZD), a third collected by the
 * courier (with its fee), the rest not paid yet — with each shipment's first event, and a statement whose 1 % of
 * lines name no shipment.
 *
 * `--rounds` requests of each form, after one of each to warm up. The app runs pinned to CPU 0 and this process on
 * CPU 1 when `taskset` exists.
 *
 *   npm run bench:cod -- [--shipments 1000000] [--rounds 3]
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import * as Fs from "node:fs"
import { parseArgs } from "node:util"
import { memoryOf, pinSelfToCpu1 } from "./host.ts"
import { secretKey, setUpStore, sleep, startApp, stopChild } from "./shipments/setup.ts"
import { psql, scratchDatabase } from "./store/postgres.ts"

const { values } = parseArgs({
  options: {
    shipments: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "3" }
  }
})
const shipments = Number(values.shipments)
const rounds = Number(values.rounds)
if (!Number.isSafeInteger(shipments) || shipments < 1) throw new Error("--shipments must be a positive integer")
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer")

const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Seeds the shipments (see the module's comment) in one transaction, then `ANALYZE`s; the ms it took. */
const seed = (databaseUrl: string, store: { readonly id: number; readonly templateOrderId: number }) => {
  const started = performance.now()
  psql(
    databaseUrl,
    `
    BEGIN;
    CREATE TEMP TABLE seed ON COMMIT DROP AS
      SELECT n, (SELECT max(id) FROM orders) + n AS order_id,
        (ARRAY['yalidine', 'dhd', 'zrexpress'])[1 + n % 3] AS courier,
        CASE WHEN n % 20 < 14 THEN 'delivered' WHEN n % 20 < 17 THEN 'returned'
          WHEN n % 20 < 19 THEN 'in_transit' ELSE 'cancelled' END AS status,
        CASE WHEN n % 20 >= 14 THEN NULL WHEN n % 6 < 3 THEN 'remitted' WHEN n % 6 < 5 THEN 'collected' END
          AS cod_status,
        date_trunc('second', now() - (n % 29) * interval '1 day' - (n % 86400) * interval '1 second') AS shipped_at
      FROM generate_series(1, ${shipments}) AS n;
    INSERT INTO orders (id, store_id, order_number, source, status, stock_committed, payment_status, payment_method,
      customer_id, customer_name, customer_phone, customer_email, wilaya_id, commune, address, delivery_type, desk_id,
      desk_name, subtotal, shipping_cost, discount, payment_fee, total, notes, created_at, updated_at)
    SELECT s.order_id, t.store_id, 'ORD-COD-' || lpad(s.n::text, 8, '0'), t.source,
      CASE s.status WHEN 'in_transit' THEN 'shipped' ELSE s.status END, true, t.payment_status, t.payment_method,
      t.customer_id, t.customer_name, t.customer_phone, t.customer_email, t.wilaya_id, t.commune, t.address,
      t.delivery_type, t.desk_id, t.desk_name, t.subtotal, t.shipping_cost, t.discount, t.payment_fee,
      t.total + (s.n % 50) * 100, t.notes, s.shipped_at, s.shipped_at
    FROM seed s, orders t WHERE t.id = ${store.templateOrderId};
    SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT max(id) FROM orders));
    INSERT INTO order_shipments (order_id, store_id, account_id, courier, tracking_number, status, raw_status,
      status_at, cod_status, cod_at, dispatched, created_at, updated_at)
    SELECT s.order_id, ${store.id}, 1, s.courier, 'TRK' || lpad(s.n::text, 10, '0'), s.status, s.status,
      s.shipped_at + interval '2 days', s.cod_status,
      CASE WHEN s.cod_status IS NULL THEN NULL ELSE s.shipped_at + interval '5 days' END, true, s.shipped_at,
      s.shipped_at
    FROM seed s;
    INSERT INTO order_shipment_events (order_id, dedupe_key, kind, status, raw_status, occurred_at, source)
    SELECT s.order_id, 'movement:created', 'movement', 'pending_pickup', 'created', s.shipped_at, 'create'
    FROM seed s;
    INSERT INTO order_shipment_events (order_id, dedupe_key, kind, status, raw_status, occurred_at, source, amount,
      fee, statement)
    SELECT s.order_id, 'cod:' || s.cod_status, 'cod', s.cod_status, s.cod_status, s.shipped_at + interval '5 days',
      'poll', round(o.total)::bigint - CASE WHEN s.n % 50 = 0 AND s.cod_status = 'remitted' THEN 100 ELSE 0 END,
      CASE WHEN s.cod_status = 'collected' THEN 200 END,
      CASE WHEN s.cod_status = 'remitted' THEN 'PAY-' || (s.n / 1000) END
    FROM seed s JOIN orders o ON o.id = s.order_id WHERE s.cod_status IS NOT NULL;
    INSERT INTO cod_statements (id, store_id, courier, lines, total) VALUES (1, ${store.id}, 'dhd', 0, 0);
    INSERT INTO cod_statement_lines (statement_id, line, store_id, tracking_number, amount, paid_on, courier,
      outcome)
    SELECT 1, s.n + 1, ${store.id}, 'UNKNOWN-' || s.n, 1500, (now() AT TIME ZONE 'Africa/Algiers')::date, 'dhd',
      'unmatched'
    FROM seed s WHERE s.n % 100 = 0;
    COMMIT;`
  )
  psql(databaseUrl, "ANALYZE orders, order_shipments, order_shipment_events, cod_statement_lines")
  const seeded = Number(psql(databaseUrl, `SELECT count(*) FROM order_shipments WHERE store_id = ${store.id}`))
  if (seeded !== shipments) throw new Error(`seeded ${seeded} shipments, not ${shipments}`)
  return performance.now() - started
}

/** One report request: its wall time, its bytes, and the app's peak resident memory while it answered. */
const measure = async (url: string, token: string, pid: number, csv: boolean) => {
  const before = memoryOf(pid)
  let peak = before.rss
  const sampler = setInterval(() => {
    // A process that has exited and is not reaped yet has no resident memory to read: its exit is reported.
    if (Fs.readFileSync(`/proc/${pid}/status`, "utf8").includes("VmRSS")) peak = Math.max(peak, memoryOf(pid).rss)
  }, 20)
  const started = performance.now()
  const response = await fetch(`${url}/v1/reports/cod`, {
    headers: { authorization: `Bearer ${token}`, ...(csv ? { accept: "text/csv" } : {}) }
  })
  let bytes = 0
  let first: number | undefined
  const reader = response.body!.getReader()
  let tail = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    first ??= performance.now() - started
    bytes += value.byteLength
    tail = (tail + Buffer.from(value).toString("utf8")).slice(-400)
  }
  const ms = performance.now() - started
  clearInterval(sampler)
  peak = Math.max(peak, memoryOf(pid).rss)
  if (response.status !== 200) throw new Error(`the report answered ${response.status}: ${tail}`)
  return { ms, firstByteMs: first ?? ms, bytes, rssBeforeMb: before.rss, rssPeakMb: peak, tail }
}

const main = async () => {
  pinSelfToCpu1()
  const database = scratchDatabase(adminUrl)
  let app: Awaited<ReturnType<typeof startApp>> | undefined
  try {
    app = await startApp(database.url, { TAWSIL_SECRET_KEY: secretKey() })
    const store = await setUpStore(database.url, app)
    const seedMs = seed(database.url, store)
    // The seed blocks this process (psql runs synchronously), so the connection the store's set-up kept alive was
    // closed by the app meanwhile without this process seeing it: let it see that before the first report request.
    await sleep(200)
    console.log(JSON.stringify({ shipments, seedMs: Math.round(seedMs) }))
    const pid = app.child.pid!
    const results: Array<Record<string, unknown>> = []
    for (const csv of [false, true]) {
      await measure(app.url, store.token, pid, csv)
      for (let round = 1; round <= rounds; round++) {
        await sleep(500)
        const { tail, ...result } = await measure(app.url, store.token, pid, csv)
        // The CSV's last line is its total; the JSON's totals close its body.
        const summary = csv ? tail.trim().split("\r\n").at(-1) : undefined
        results.push({
          form: csv ? "csv" : "json",
          round,
          ms: Math.round(result.ms),
          firstByteMs: Math.round(result.firstByteMs),
          bytes: result.bytes,
          rssBeforeMb: Math.round(result.rssBeforeMb),
          rssPeakMb: Math.round(result.rssPeakMb),
          rssGrowthMb: Math.round(result.rssPeakMb - result.rssBeforeMb),
          ...(summary === undefined ? {} : { totalLine: summary })
        })
        console.log(JSON.stringify(results.at(-1)))
      }
    }
  } finally {
    if (app !== undefined) await stopChild(app.child)
    database.drop()
  }
}

await main()
