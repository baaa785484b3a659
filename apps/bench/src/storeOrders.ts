/**
 * Store API benchmarks (issue 4) on a real PostgreSQL, each against a baseline in the same run:
 * - `POST /v1/orders` through the whole app (platform key, metering with the per-minute limit, gates, the
 *   Idempotency-Key claim and the order write in one transaction; 2 lines, one with a variant, a fresh key and a new
 *   customer phone per request) against pgbench sending the same SQL (`store/orderCreate.sql`, checked against the
 *   server log of one create at the start of every run) on the same database, with as many connections as the
 *   app's pool: what our HTTP and Effect stack costs on top of the database work.
 * - `GET /v1/products` from the read cache (same key and query: `X-Cache: HIT`) against the same list missing it
 *   (a new query string per request on the same listener: `X-Cache: MISS`, so metering and the products query run).
 *
 * Rounds alternate the app and pgbench (the app restarted for each round), so drift on a noisy machine hits both
 * alike; the two product variants alternate their order. The app and pgbench run pinned to CPU 0, autocannon (this
 * process) to CPU 1, when `taskset` is available; PostgreSQL is not pinned. Besides rates and latencies, each
 * measured run reports the CPU time per answer of the client (the app or pgbench), of the PostgreSQL backends
 * serving it and of autocannon (`/proc`), which a machine shared with other work disturbs less than rates. Every
 * create is counted in SQL afterwards: the app's new orders must be its 2xx answers (plus the creates in flight when
 * autocannon stopped that the app completed), pgbench's its transactions.
 *
 *   npm run bench:store -- [--duration 10] [--warmup 20] [--connections 10] [--pool 10] [--rounds 3]
 *                          [--log-level warn] [--only orders|products] [--cpu-prof <dir>]
 *                          [--node-option <flag>]... [--callgrind <creates>] [--rate <requests/s>]
 *
 * Needs `psql` and `pgbench`, and a server where it may create a scratch database (dropped at the end):
 * `DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { admin } from "./adminCli.ts"
import { callgrind, freePort, hasTaskset, median, onCpu0, pinSelfToCpu1, sampler } from "./host.ts"
import {
  loggedStatements,
  logOffset,
  pgbench,
  psql,
  SERVER_LOG,
  scratchDatabase,
  scriptStatements,
  shapeOf
} from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const SCRIPT = Path.join(import.meta.dirname, "store/orderCreate.sql")

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    // V8 is still optimising the create path 15 s into a run (its code log: `--node-option=--log-code`); 20 s of
    // warm-up measures the app as it runs once warm, as pgbench (no JIT) always does.
    warmup: { type: "string", default: "20" },
    connections: { type: "string", default: "10" },
    pool: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    "log-level": { type: "string", default: "warn" },
    "cpu-prof": { type: "string" },
    "node-option": { type: "string", multiple: true, default: [] },
    callgrind: { type: "string" },
    only: { type: "string" },
    rate: { type: "string" }
  }
})
const duration = Number(values.duration)
const warmup = Number(values.warmup)
const connections = Number(values.connections)
const pool = Number(values.pool)
const rounds = Number(values.rounds)
const cpuProf = values["cpu-prof"] === undefined ? undefined : Path.resolve(values["cpu-prof"])
const only = values.only
/** `--rate`: the app's measured run sends at most this many requests a second in all (its latency at a set load). */
const rate = values.rate === undefined ? undefined : Number(values.rate)
if (only !== undefined && only !== "orders" && only !== "products") throw new Error("--only takes orders or products")
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Far above what a run reaches: the limit is still checked on every call, so it stays in the measured path. */
const PER_MINUTE_LIMIT = 100_000_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------------------------
// The app

interface App {
  readonly child: ChildProcess
  readonly url: string
}

/** `npm start`'s entry point on the scratch database, pinned to CPU 0; ready when `/v1/ping` answers. */
const startApp = async (
  databaseUrl: string,
  profile: boolean,
  prefix: ReadonlyArray<string> = onCpu0,
  nodeOptions: ReadonlyArray<string> = []
): Promise<App> => {
  const port = await freePort()
  const node = [
    process.execPath,
    ...nodeOptions,
    ...(profile && cpuProf !== undefined ? ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] : []),
    ...(values["node-option"] ?? []),
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/http/src/main.ts")
  ]
  const [command, ...argv] = [...prefix, ...node]
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(pool),
      STORE_PORT: String(port),
      SHIPPING_PORT: "0",
      // No Prometheus listener: the bench reads none, and two benches at once would both take its default port.
      METRICS_PORT: "off",
      LOG_LEVEL: values["log-level"]
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 6000; attempt++) {
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

const stopApp = (app: App) =>
  new Promise<void>((resolve) => {
    if (app.child.exitCode !== null) return resolve()
    app.child.once("exit", () => resolve())
    app.child.kill("SIGTERM")
  })

const call = async (url: string, token: string, method: string, path: string, key?: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(key === undefined ? {} : { "idempotency-key": key }),
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON is read field by field
  return JSON.parse(text) as any
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

const product = (name: string) => ({
  name,
  price: 4500,
  stock: null,
  variant_groups: [
    {
      name: "Taille",
      type: "text",
      options: [
        { value: "M", price_adjustment: 0 },
        { value: "XL", price_adjustment: 500 }
      ]
    }
  ]
})

const customer = { name: "Amina Benali", wilaya_id: 16, commune: "Bab Ezzouar", address: "Cité 5 juillet, bât. 3" }

/** A new customer per order (a shared phone would queue every create on one customer row). */
const randomPhone = () => `0${500_000_000 + Math.floor(Math.random() * 300_000_000)}`

const orderBody = (products: readonly [number, number], phone: string) => ({
  customer: { ...customer, phone },
  items: [
    {
      product_id: products[0],
      quantity: 2,
      variants: [{ group_name: "Taille", option_name: "XL", color_code: null, price_adjustment: 500 }]
    },
    { product_id: products[1], quantity: 1 }
  ],
  delivery: { type: "home" },
  shipping_cost: 400,
  payment_method: "cod"
})

interface Setup {
  readonly storeId: number
  readonly token: string
  readonly products: readonly [number, number]
}

/** An Enterprise store with its platform key and a per-minute limit far above the run, and 2 products. */
const setUp = async (databaseUrl: string, app: App): Promise<Setup> => {
  const created = admin(databaseUrl, "store", "create", "--name", "Bench Store")
  const storeId = created.store.id as number
  const token = created.platform_key.bearer_token as string
  admin(databaseUrl, "quota", "set", "--store", String(storeId), "--requests-per-minute", String(PER_MINUTE_LIMIT))
  const first = await call(app.url, token, "POST", "/v1/products", "setup-product-1", product("Robe kabyle"))
  const second = await call(app.url, token, "POST", "/v1/products", "setup-product-2", product("Gandoura"))
  return { storeId, token, products: [first.data.id, second.data.id] }
}

const amount = (value: number) => value.toFixed(2)

/**
 * One create traced in the server log (`log_statement = 'all'` on the scratch database for the app's connections
 * opened here): its statements, compared with the pgbench script's, and the values the script binds.
 */
const trace = async (databaseUrl: string, database: string, app: App, setup: Setup) => {
  // The first create fills the app's 5-second key and override caches; the second is the steady state.
  await call(app.url, setup.token, "POST", "/v1/orders", "trace-1", orderBody(setup.products, randomPhone()))
  const offset = logOffset()
  const answer = await call(
    app.url,
    setup.token,
    "POST",
    "/v1/orders",
    "trace-2",
    orderBody(setup.products, "0555123456")
  )
  await sleep(500)
  const logged = offset === undefined ? undefined : loggedStatements(database, offset)
  const [scope, fingerprint, body] = psql(
    databaseUrl,
    "SELECT scope || chr(31) || fingerprint || chr(31) || body FROM idempotency_keys WHERE key = 'trace-2'"
  ).split("\u001f")
  const order = answer.data
  // biome-ignore lint/suspicious/noExplicitAny: the order's JSON is read field by field
  const items = order.items as Array<any>
  const variables: Record<string, string> = {
    store: String(setup.storeId),
    zone: "Africa/Algiers",
    grp: "request",
    month: "f",
    scope: scope!,
    fingerprint: fingerprint!,
    lease: "60",
    product_ids: `{${setup.products.join(",")}}`,
    name: customer.name,
    wilaya: String(customer.wilaya_id),
    commune: customer.commune,
    address: customer.address,
    payment_method: order.payment_method,
    delivery_type: order.delivery.type,
    subtotal: amount(order.amounts.subtotal),
    shipping_cost: amount(order.amounts.shipping_cost),
    discount: amount(order.amounts.discount),
    payment_fee: amount(order.amounts.payment_fee),
    total: amount(order.amounts.total),
    items: JSON.stringify(
      items.map((item, position) => ({
        position,
        product_id: item.product_id,
        price: amount(item.price),
        quantity: item.quantity
      }))
    ),
    variants: JSON.stringify(
      items.flatMap((item, itemPosition) =>
        // biome-ignore lint/suspicious/noExplicitAny: as above
        (item.variants as Array<any>).map((variant, position) => ({
          item: itemPosition,
          position,
          group_name: variant.group_name,
          option_name: variant.option_name,
          color_code: variant.color_code,
          price_adjustment: amount(Number(variant.price_adjustment))
        }))
      )
    ),
    event: "order.created",
    // The outbox writes nothing for the bench store (no subscription); its payload is about the answer's size.
    payload: body!,
    max_attempts: "5",
    status: "200",
    headers: "{}",
    body: body!,
    ttl: "86400"
  }
  return { logged, variables }
}

/**
 * Statements the app sends on its own schedule, not for the create, which a trace may catch: the webhook
 * dispatcher's poll for due deliveries (every second), the courier push applier's poll, and the outbox and push
 * backlog gauges.
 */
const BACKGROUND = [
  /^WITH due AS \(SELECT d?\.?id FROM webhook_deliveries /,
  /^WITH due AS \(SELECT account_id, event_key FROM courier_push_events /,
  /^SELECT count\(\*\)::int AS pending, .* FROM webhook_deliveries WHERE status = 'pending'$/,
  /^SELECT count\(\*\) FILTER \(WHERE tried_at IS .* FROM courier_push_events WHERE applied_at IS \?$/
]

/** Whether the script sends what the app sent, statement by statement; the differences when not. */
const compare = (traced: ReadonlyArray<string>, script: ReadonlyArray<string>) => {
  const logged = traced.filter((statement) => !BACKGROUND.some((pattern) => pattern.test(shapeOf(statement))))
  const differences: Array<string> = []
  for (let index = 0; index < Math.max(logged.length, script.length); index++) {
    const app = logged[index] === undefined ? "(none)" : shapeOf(logged[index]!)
    const bench = script[index] === undefined ? "(none)" : shapeOf(script[index]!)
    if (app !== bench) differences.push(`  statement ${index + 1}\n    app:     ${app}\n    pgbench: ${bench}`)
  }
  return differences
}

// ---------------------------------------------------------------------------------------------------------------
// Load

interface Tally {
  ok: number
  readonly statuses: Map<number, { count: number; sample: string }>
  readonly cache: Map<string, number>
  /** Keys sent and not answered yet (in flight when autocannon stopped). */
  readonly pending: Set<string>
}

const newTally = (): Tally => ({ ok: 0, statuses: new Map(), cache: new Map(), pending: new Set() })

const record = (tally: Tally, status: number, body: string, headers: Record<string, unknown> | undefined) => {
  if (status >= 200 && status < 300) tally.ok++
  else {
    const seen = tally.statuses.get(status)
    if (seen === undefined) tally.statuses.set(status, { count: 1, sample: body.slice(0, 300) })
    else seen.count++
  }
  const cache = headers?.["x-cache"] ?? headers?.["X-Cache"]
  if (typeof cache === "string") tally.cache.set(cache, (tally.cache.get(cache) ?? 0) + 1)
}

const nonOk = (tally: Tally) => [...tally.statuses.values()].reduce((sum, entry) => sum + entry.count, 0)

let sequence = 0

/** Autocannon's requests for one run: POST creates with a fresh key each, or GETs of `path`. */
const requests = (setup: Setup, tally: Tally, kind: "orders" | "cached" | "uncached"): Array<autocannon.Request> => {
  const headers = { authorization: `Bearer ${setup.token}` }
  const onResponse = (status: number, body: string, context: object, responseHeaders: unknown) => {
    const key = (context as { key?: string }).key
    if (key !== undefined) tally.pending.delete(key)
    record(tally, status, body, responseHeaders as Record<string, unknown> | undefined)
  }
  if (kind === "orders") {
    return [
      {
        method: "POST",
        path: "/v1/orders",
        headers: { ...headers, "content-type": "application/json" },
        // With one request in flight per connection, the connection's context names the key being answered.
        setupRequest: (request, context) => {
          const key = `bench-${process.pid}-${++sequence}`
          ;(context as { key?: string }).key = key
          tally.pending.add(key)
          return {
            ...request,
            headers: { ...request.headers, "idempotency-key": key },
            body: JSON.stringify(orderBody(setup.products, randomPhone()))
          }
        },
        onResponse
      }
    ]
  }
  if (kind === "cached") return [{ method: "GET", path: "/v1/products", headers, onResponse }]
  return [
    {
      method: "GET",
      path: "/v1/products",
      headers,
      setupRequest: (request) => ({ ...request, path: `/v1/products?miss=${++sequence}` }),
      onResponse
    }
  ]
}

const load = (url: string, seconds: number, list: Array<autocannon.Request>, overallRate?: number) =>
  autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: list,
    ...(overallRate === undefined ? {} : { overallRate })
  })

interface Measured {
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
  /** CPU ms per answer of the measured run: the app's process, and the PostgreSQL backends serving it. */
  readonly clientCpu: number
  readonly databaseCpu: number
  /** CPU ms per answer of autocannon (this process), which shares CPU 1 with PostgreSQL. */
  readonly loadCpu: number
}

/** The backends of the scratch database opened by `application`. */
const backends = (databaseUrl: string, application: string) =>
  psql(
    databaseUrl,
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${application}'`
  )
    .split("\n")
    .filter((line) => line !== "")
    .map(Number)

/** A warm-up run, then the measured run with the CPU time it cost; both runs' answers go to `tally`. */
const measure = async (
  databaseUrl: string,
  app: App,
  setup: Setup,
  tally: Tally,
  kind: "orders" | "cached" | "uncached"
) => {
  await load(app.url, warmup, requests(setup, tally, kind))
  const before = { nonOk: nonOk(tally), ok: tally.ok }
  const cpu = sampler()
  const appPid = [app.child.pid!]
  cpu.follow(appPid)
  cpu.follow(backends(databaseUrl, "tawsil"))
  const own = process.cpuUsage()
  const result = await load(app.url, duration, requests(setup, tally, kind), rate)
  const loadUsage = process.cpuUsage(own)
  // Connections the pool opened during the run count from their start.
  const serving = backends(databaseUrl, "tawsil")
  cpu.follow(serving, true)
  const spent = cpu.stop()
  const answers = tally.ok + nonOk(tally) - before.ok - before.nonOk
  const measured: Measured = {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: nonOk(tally) - before.nonOk,
    clientCpu: spent(appPid) / answers,
    databaseCpu: spent(serving) / answers,
    loadCpu: (loadUsage.user + loadUsage.system) / 1000 / answers
  }
  return measured
}

const orderCount = (databaseUrl: string, storeId: number) =>
  Number(psql(databaseUrl, `SELECT count(*) FROM orders WHERE store_id = ${storeId}`))

// ---------------------------------------------------------------------------------------------------------------
// Rounds and report

const ms = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1))
const fixed = (numbers: ReadonlyArray<number>) => numbers.map((n) => n.toFixed(2)).join(", ")
const progress = (line: string) => console.error(`[bench:store] ${line}`)

interface Context {
  readonly databaseUrl: string
  readonly setup: Setup
  readonly variables: Readonly<Record<string, string>>
  /** Non-2xx answers and pgbench failures, for the end of the report. */
  readonly notes: Array<string>
  /** The app of the round, so that an interruption can stop it. */
  app: App | undefined
}

const withApp = async <A>(context: Context, use: (app: App) => Promise<A>) => {
  context.app = await startApp(context.databaseUrl, true)
  try {
    return await use(context.app)
  } finally {
    await stopApp(context.app)
    context.app = undefined
  }
}

const statusNotes = (context: Context, label: string, tally: Tally) => {
  for (const [status, { count, sample }] of tally.statuses)
    context.notes.push(`${label}: ${count} × ${status} ${sample}`)
}

/**
 * One round of creates: the app, then pgbench. Every create is checked in SQL: the app's new orders are its 2xx
 * answers plus the creates still in flight when autocannon stopped that the app finished (their keys hold a 200),
 * pgbench's are its transactions.
 */
const ordersRound = async (context: Context, round: number) => {
  const { databaseUrl, setup } = context
  progress(`round ${round}/${rounds}: app POST /v1/orders`)
  const before = orderCount(databaseUrl, setup.storeId)
  const tally = newTally()
  const app = await withApp(context, (app) => measure(databaseUrl, app, setup, tally, "orders"))
  const after = orderCount(databaseUrl, setup.storeId)
  const inFlight = [...tally.pending]
  const late =
    inFlight.length === 0
      ? 0
      : Number(
          psql(
            databaseUrl,
            `SELECT count(*) FROM idempotency_keys WHERE status = 200 AND key = ANY('{${inFlight.join(",")}}')`
          )
        )
  const appCheck =
    after - before === tally.ok + late
      ? `${after - before} = ${tally.ok} 2xx + ${late} in flight at the stop`
      : `MISMATCH: ${after - before} orders, ${tally.ok} 2xx + ${late} in flight at the stop`
  statusNotes(context, `round ${round} app`, tally)

  progress(`round ${round}/${rounds}: pgbench`)
  const baseBefore = orderCount(databaseUrl, setup.storeId)
  const run = (seconds: number, onSpawn?: (pid: number) => void) =>
    pgbench({
      url: databaseUrl,
      script: SCRIPT,
      clients: pool,
      seconds,
      variables: context.variables,
      prefix: onCpu0,
      onSpawn
    })
  const warm = await run(warmup)
  // pgbench and its backends are new processes: their CPU counts from their start (connections included).
  const cpu = sampler()
  let pgbenchPid: Array<number> = []
  let serving: Array<number> = []
  let connected: NodeJS.Timeout | undefined
  const base = await run(duration, (pid) => {
    pgbenchPid = [pid]
    cpu.follow(pgbenchPid, true)
    // pgbench opens its connections at once; a second later they are all there.
    connected = setTimeout(() => {
      serving = backends(databaseUrl, "pgbench")
      cpu.follow(serving, true)
    }, 1000)
  })
  clearTimeout(connected)
  const spent = cpu.stop()
  const baseCpu = { client: spent(pgbenchPid) / base.transactions, database: spent(serving) / base.transactions }
  const baseAfter = orderCount(databaseUrl, setup.storeId)
  const transactions = warm.transactions + base.transactions
  const baseCheck =
    baseAfter - baseBefore === transactions
      ? `${transactions} = transactions`
      : `MISMATCH: ${baseAfter - baseBefore} orders, ${transactions} transactions`
  for (const result of [warm, base])
    if (result.output.startsWith("exit")) context.notes.push(`round ${round} pgbench: ${result.output}`)

  return {
    app,
    base,
    rows: [
      `| ${round} | app: POST /v1/orders | ${Math.round(app.perSecond)} | ${ms(app.p50)} | ${ms(app.p99)} | ${app.clientCpu.toFixed(2)} | ${app.databaseCpu.toFixed(2)} | ${app.non2xx} non-2xx, ${app.errors} errors | ${appCheck} |`,
      `| ${round} | pgbench: same SQL | ${Math.round(base.tps)} | ${ms(base.p50)} | ${ms(base.p99)} | ${baseCpu.client.toFixed(2)} | ${baseCpu.database.toFixed(2)} | ${warm.failed + base.failed} failed | ${baseCheck} |`
    ]
  }
}

/** One round of product reads on one app: cached and uncached, in alternating order from round to round. */
const productsRound = async (context: Context, round: number) => {
  progress(`round ${round}/${rounds}: app GET /v1/products`)
  const order = round % 2 === 1 ? (["cached", "uncached"] as const) : (["uncached", "cached"] as const)
  const reads = await withApp(context, async (app) => {
    const reads: Partial<Record<"cached" | "uncached", { measured: Measured; tally: Tally }>> = {}
    for (const kind of order) {
      const tally = newTally()
      reads[kind] = { measured: await measure(context.databaseUrl, app, context.setup, tally, kind), tally }
    }
    return reads as Record<"cached" | "uncached", { measured: Measured; tally: Tally }>
  })
  const rows = (["cached", "uncached"] as const).map((kind) => {
    const { measured, tally } = reads[kind]
    statusNotes(context, `round ${round} ${kind}`, tally)
    const xCache = [...tally.cache].map(([value, count]) => `${count} ${value}`).join(", ")
    const label = kind === "cached" ? "cached (same query)" : "uncached (new query string)"
    return `| ${round} | ${label} | ${Math.round(measured.perSecond)} | ${ms(measured.p50)} | ${ms(measured.p99)} | ${(measured.clientCpu * 1000).toFixed(0)} | ${(measured.databaseCpu * 1000).toFixed(0)} | ${(measured.loadCpu * 1000).toFixed(0)} | ${measured.non2xx} non-2xx, ${measured.errors} errors | ${xCache} |`
  })
  return { cached: reads.cached.measured, uncached: reads.uncached.measured, rows }
}

/**
 * `--callgrind <n>`: instructions per create, which a machine shared with other work does not move (within a few
 * percent from run to run), unlike rates and CPU times. The app runs under valgrind's callgrind with
 * instrumentation off; after 3 × `n` creates of warm-up (10 connections), it counts the instructions of the next `n`.
 * V8's optimising compiler still runs on the main thread during the counted creates, by an amount that varies from
 * run to run, and what the app does idle falls into the count too (see `callgrind` in host.ts): the count net of
 * both is the one to compare builds by.
 */
const instructionsPerCreate = async (context: Context, creates: number) => {
  const counter = callgrind()
  const app = await startApp(context.databaseUrl, false, counter.prefix, counter.nodeOptions)
  context.app = app
  try {
    const run = (amount: number) =>
      new Promise<void>((resolve, reject) => {
        const tally = newTally()
        autocannon(
          {
            url: app.url,
            connections,
            amount,
            pipelining: 1,
            requests: requests(context.setup, tally, "orders")
          },
          (error) => (error ? reject(error) : nonOk(tally) > 0 ? reject(new Error("non-2xx answers")) : resolve())
        )
      })
    // Long enough for V8 to finish optimising the hot code (with less, its compiler is still a quarter of the count).
    progress(`callgrind: ${3 * creates} creates of warm-up`)
    await run(3 * creates)
    progress(`callgrind: ${creates} creates counted`)
    await counter.count(app.child.pid!, () => run(creates))
  } finally {
    await stopApp(app)
    context.app = undefined
  }
  const { main, all } = counter.totals()
  const compiler = counter.compiler()
  const idle = counter.idle()
  const perCreate = (count: number) => Math.round(count / creates).toLocaleString("en")
  return `callgrind: ${perCreate(main)} instructions per create on the main thread, of which V8's optimising compiler ${perCreate(compiler)}; the same time idle ${perCreate(idle)}; net ${perCreate(main - compiler - idle)}; ${perCreate(all)} with V8's helper threads (${creates} creates after ${3 * creates} of warm-up, ${connections} connections; dumps in ${counter.dir})`
}

const main = async () => {
  pinSelfToCpu1()
  if (cpuProf !== undefined) Fs.mkdirSync(cpuProf, { recursive: true })
  const db = scratchDatabase(adminUrl)
  const out: Array<string> = []
  let context: Context | undefined
  // Ctrl-C: stop the app and drop the scratch database before leaving.
  process.once("SIGINT", () => {
    context?.app?.child.kill("SIGKILL")
    db.drop()
    process.exit(130)
  })
  try {
    // Set up, and trace one create with every statement logged (on connections opened after the setting).
    progress(`scratch database ${db.name}: setting up and tracing one create`)
    db.logStatements("all")
    const traced = await (async () => {
      const app = await startApp(db.url, false)
      try {
        const setup = await setUp(db.url, app)
        return { setup, ...(await trace(db.url, db.name, app, setup)) }
      } finally {
        await stopApp(app)
        db.logStatements(null)
      }
    })()
    const script = scriptStatements(Fs.readFileSync(SCRIPT, "utf8"))
    const differences = traced.logged === undefined ? [] : compare(traced.logged, script)
    const traceLine =
      traced.logged === undefined
        ? `SQL of one create: not checked (cannot read ${SERVER_LOG})`
        : differences.length === 0
          ? `SQL of one create (server log, log_statement = 'all'): ${script.length} statements; the pgbench script sends the same (parameters aside)`
          : `SQL of one create: THE PGBENCH SCRIPT NO LONGER MATCHES THE APP (${differences.length} differences)\n${differences.join("\n")}`
    progress(traceLine)
    context = { databaseUrl: db.url, setup: traced.setup, variables: traced.variables, notes: [], app: undefined }

    if (values.callgrind !== undefined) out.push(await instructionsPerCreate(context, Number(values.callgrind)))
    const orders: Array<Awaited<ReturnType<typeof ordersRound>>> = []
    const products: Array<Awaited<ReturnType<typeof productsRound>>> = []
    for (let round = 1; round <= (values.callgrind === undefined ? rounds : 0); round++) {
      if (only !== "products") orders.push(await ordersRound(context, round))
      if (only !== "orders") products.push(await productsRound(context, round))
    }

    if (values.callgrind === undefined)
      out.push(
        `store API: autocannon ${connections} connections, app pool and pgbench clients ${pool}, ${duration} s after ${warmup} s warm-up, ${rounds} rounds, PostgreSQL at ${new URL(adminUrl).host} (scratch database), LOG_LEVEL=${values["log-level"]}${rate === undefined ? "" : `, the app's measured run limited to ${rate} requests/s`}, ${hasTaskset ? "app and pgbench on CPU 0, autocannon on CPU 1" : "not pinned"}${cpuProf === undefined ? "" : `, app CPU-profiled into ${cpuProf} (rates not comparable)`}${values["node-option"]?.length ? `, app node ${values["node-option"].join(" ")}` : ""}`,
        "",
        traceLine
      )
    if (orders.length > 0) {
      const ratios = orders.map(({ app, base }) => app.perSecond / base.tps)
      out.push(
        "",
        "POST /v1/orders: 2 lines (one with a variant), a fresh Idempotency-Key and customer per request, platform key",
        "",
        "| round | side | orders/s | p50 ms | p99 ms | client CPU ms/order | PostgreSQL CPU ms/order | errors | orders in SQL |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ...orders.flatMap(({ rows }) => rows),
        "",
        `ratio app/pgbench (orders/s) per round: ${fixed(ratios)}; median ${median(ratios).toFixed(2)}x (target >= 0.5x)`,
        `medians: app ${Math.round(median(orders.map(({ app }) => app.perSecond)))} orders/s, p99 ${ms(median(orders.map(({ app }) => app.p99)))} ms; pgbench ${Math.round(median(orders.map(({ base }) => base.tps)))} orders/s, p99 ${ms(median(orders.map(({ base }) => base.p99)))} ms; autocannon ${median(orders.map(({ app }) => app.loadCpu)).toFixed(2)} CPU ms/order`
      )
    }
    if (products.length > 0) {
      const ratios = products.map(({ cached, uncached }) => cached.perSecond / uncached.perSecond)
      out.push(
        "",
        "GET /v1/products (2 products): cached and uncached on the same app process",
        "",
        "| round | read | req/s | p50 ms | p99 ms | app CPU µs/req | PostgreSQL CPU µs/req | autocannon CPU µs/req | errors | X-Cache |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ...products.flatMap(({ rows }) => rows),
        "",
        `ratio cached/uncached (req/s) per round: ${fixed(ratios)}; median ${median(ratios).toFixed(2)}x`
      )
    }
    if (context.notes.length > 0) out.push("", ...context.notes)
  } finally {
    context?.app?.child.kill("SIGKILL")
    db.drop()
  }
  console.log(out.join("\n"))
}

await main()
