/**
 * What the issue 30 benchmarks share: `npm start`'s app on a scratch database (pinned to CPU 0), the store, its courier
 * accounts made through the API (their credentials sealed by the app, checked at the loopback courier), and the
 * parcels seeded straight in SQL: a template order made through the API, then `parcels` copies of it, shipped, each
 * with its shipment, the shipment's first event and its poller's check, in one transaction of `INSERT … SELECT
 * generate_series` (seconds for 100 000).
 *
 * A seeded parcel is what `POST /v1/orders/{id}/shipment` leaves: the order `shipped`, the shipment in the status the
 * courier's create answers (Ecotrack's `prete_a_expedier`, Yalidine's `En préparation`) since a week ago, its first
 * event (`source = 'create'`) in the timeline, and a check row — due never, until a benchmark makes it due. Accounts
 * take the parcels in turn (parcel n goes to account n mod accounts), as orders of a store's couriers interleave.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Path from "node:path"
import { admin } from "../adminCli.ts"
import { freePort, onCpu0 } from "../host.ts"
import { loggedStatements, psql, SERVER_LOG, shapeOf } from "../store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../../..")

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface App {
  readonly child: ChildProcess
  readonly url: string
}

/** The key sealing the accounts' credentials: one per run, never printed. */
export const secretKey = () => randomBytes(32).toString("hex")

/** The app on `databaseUrl` with `env` besides the defaults here; ready when `/v1/ping` answers. */
export const startApp = async (
  databaseUrl: string,
  env: Readonly<Record<string, string>>,
  nodeOptions: ReadonlyArray<string> = []
): Promise<App> => {
  const port = await freePort()
  const [command, ...argv] = [
    ...onCpu0,
    process.execPath,
    ...nodeOptions,
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/http/src/main.ts")
  ]
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      STORE_PORT: String(port),
      SHIPPING_PORT: "0",
      METRICS_PORT: "off",
      LOG_LEVEL: "warn",
      ...env
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`)
    const ok = await fetch(`${url}/v1/ping`).then(
      (response) => response.ok,
      () => false
    )
    if (ok) return { child, url }
    await sleep(100)
  }
  child.kill("SIGKILL")
  throw new Error("the app did not answer /v1/ping within 60 s")
}

export const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGTERM")
  await exited
}

/** A store API call that must answer 2xx: its `data`. */
export const call = async (url: string, token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      "idempotency-key": `bench-${randomBytes(8).toString("hex")}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON is read field by field
  return (JSON.parse(text) as any).data
}

export interface Store {
  readonly id: number
  readonly token: string
  /** The order the seeded parcels are copies of (itself left pending, without a shipment). */
  readonly templateOrderId: number
}

/** A store with no per-minute limit, a product, and the template order, made as a merchant would. */
export const setUpStore = async (databaseUrl: string, app: App): Promise<Store> => {
  const created = admin(databaseUrl, "store", "create", "--name", "Colis en masse")
  const id = created.store.id as number
  const token = created.platform_key.bearer_token as string
  admin(databaseUrl, "quota", "set", "--store", String(id), "--requests-per-minute", "-1")
  const product = await call(app.url, token, "POST", "/v1/products", { name: "Gandoura", price: 1800, stock: null })
  const order = await call(app.url, token, "POST", "/v1/orders", {
    customer: { name: "Nadia Ouali", phone: "0550 00 11 22", wilaya_id: 16, commune: "Hydra", address: "Rue 2" },
    items: [{ product_id: product.id, quantity: 1 }],
    payment_method: "cod"
  })
  return { id, token, templateOrderId: order.id as number }
}

/** Courier accounts made through `POST /v1/shipping/accounts` (the courier's credential check included): their ids. */
export const createAccounts = async (
  app: App,
  store: Store,
  bodies: ReadonlyArray<Readonly<Record<string, unknown>>>
): Promise<ReadonlyArray<number>> => {
  const ids: Array<number> = []
  for (const body of bodies) ids.push((await call(app.url, store.token, "POST", "/v1/shipping/accounts", body)).id)
  return ids
}

export interface Seed {
  readonly store: Store
  readonly accounts: ReadonlyArray<number>
  /** The courier key the accounts were made for (`dhd`, `yalidine`). */
  readonly courier: string
  readonly parcels: number
  /** Parcel n's tracking number is this prefix and n on 10 digits. */
  readonly trackingPrefix: string
  /** The raw status the courier's create answers (`prete_a_expedier` at Ecotrack, `En préparation` at Yalidine). */
  readonly rawStatus: string
  /** Its canonical status, by the adapter's table. */
  readonly status: "created" | "pending_pickup"
}

/** Parcel n's tracking number. */
export const trackingOf = (seed: Pick<Seed, "trackingPrefix">, n: number) =>
  `${seed.trackingPrefix}${String(n).padStart(10, "0")}`

/** SQL text literal. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * Seeds the parcels (see the module's comment) in one transaction, then `ANALYZE`s what it wrote; the ms it took. The
 * orders take the ids after the highest (the identity moved past them), so no copy is looked up again.
 */
export const seedParcels = (databaseUrl: string, seed: Seed): number => {
  const started = performance.now()
  const { store } = seed
  const tracking = `${literal(seed.trackingPrefix)} || lpad(s.n::text, 10, '0')`
  // The create's event as `Orders.attachShipment` records it: its dedupe key is kind, time in ms and raw status.
  const at = "date_trunc('second', now() - interval '7 days')"
  psql(
    databaseUrl,
    `
    CREATE TEMP TABLE seed ON COMMIT DROP AS
      SELECT n, (SELECT max(id) FROM orders) + n AS order_id,
        ('{${seed.accounts.join(",")}}'::int[])[1 + (n - 1) % ${seed.accounts.length}] AS account_id
      FROM generate_series(1, ${seed.parcels}) AS n;
    ANALYZE seed;
    INSERT INTO orders (id, store_id, order_number, source, status, stock_committed, payment_status, payment_method,
      customer_id, customer_name, customer_phone, customer_email, wilaya_id, commune, address, delivery_type, desk_id,
      desk_name, subtotal, shipping_cost, discount, payment_fee, total, notes, created_at, updated_at)
    SELECT s.order_id, t.store_id,
      'ORD-' || t.store_id || '-' || to_char(now() AT TIME ZONE 'Africa/Algiers', 'YYYYMMDD') || '-'
        || upper(lpad(to_hex(s.n), 8, '0')),
      t.source, 'shipped', true, t.payment_status, t.payment_method, t.customer_id, t.customer_name, t.customer_phone,
      t.customer_email, t.wilaya_id, t.commune, t.address, t.delivery_type, t.desk_id, t.desk_name, t.subtotal,
      t.shipping_cost, t.discount, t.payment_fee, t.total, t.notes, now() - interval '8 days', ${at}
    FROM seed s, orders t WHERE t.id = ${store.templateOrderId};
    SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT max(id) FROM orders));
    INSERT INTO order_items (order_id, product_id, price, quantity, position)
    SELECT s.order_id, i.product_id, i.price, i.quantity, i.position
    FROM seed s, order_items i WHERE i.order_id = ${store.templateOrderId};
    INSERT INTO order_shipments (order_id, store_id, account_id, courier, tracking_number, status, raw_status,
      status_at, dispatched, created_at, updated_at)
    SELECT s.order_id, ${store.id}, s.account_id, ${literal(seed.courier)}, ${tracking}, ${literal(seed.status)},
      ${literal(seed.rawStatus)}, ${at}, true, ${at}, ${at}
    FROM seed s;
    INSERT INTO order_shipment_events (order_id, dedupe_key, kind, status, raw_status, occurred_at, source, received_at)
    SELECT s.order_id,
      'movement:' || (extract(epoch FROM ${at}) * 1000)::bigint || ':' || ${literal(seed.rawStatus)},
      'movement', ${literal(seed.status)}, ${literal(seed.rawStatus)}, ${at}, 'create', ${at}
    FROM seed s;
    INSERT INTO shipment_checks (order_id, store_id, account_id, tracking_number, status, due_at)
    SELECT s.order_id, ${store.id}, s.account_id, ${tracking}, ${literal(seed.status)}, 'infinity'
    FROM seed s;`
  )
  psql(databaseUrl, "ANALYZE orders, order_items, order_shipments, order_shipment_events, shipment_checks")
  const seeded = Number(
    psql(databaseUrl, `SELECT count(*) FROM shipment_checks WHERE account_id IN (${seed.accounts.join(",")})`)
  )
  if (seeded !== seed.parcels) throw new Error(`seeded ${seeded} parcels, not ${seed.parcels}`)
  return performance.now() - started
}

/** The PostgreSQL backends the app (or a baseline, through the same storage layer) has open on the database. */
export const backends = (databaseUrl: string) =>
  psql(
    databaseUrl,
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tawsil'"
  )
    .split("\n")
    .filter((line) => line !== "")
    .map(Number)

export const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/**
 * The statements `database` logged since `offset` (`log_statement = 'all'` on it), by shape, per `units` of work;
 * those matching `own` (the bench's own queries) left out.
 */
export const statementsPer = (
  database: string,
  offset: number | undefined,
  units: number,
  unit: string,
  own: ReadonlyArray<RegExp> = []
) => {
  if (offset === undefined) return `(no server log at ${SERVER_LOG}: statements not counted)`
  const shapes = new Map<string, number>()
  let total = 0
  for (const statement of loggedStatements(database, offset)) {
    const shape = shapeOf(statement)
    if (own.some((pattern) => pattern.test(shape))) continue
    total++
    shapes.set(shape.slice(0, 110), (shapes.get(shape.slice(0, 110)) ?? 0) + 1)
  }
  return [
    `${(total / units).toFixed(2)} statements ${unit}:`,
    ...[...shapes].sort((a, b) => b[1] - a[1]).map(([shape, n]) => `  ${(n / units).toFixed(3)} × ${shape}`)
  ].join("\n")
}
