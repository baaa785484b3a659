/**
 * The soak (issue 22): `npm start`'s app on a real PostgreSQL under mixed traffic for `--minutes`, its resident memory
 * sampled every `--sample` seconds, to see whether it levels off. The traffic, from one autocannon run per API, each
 * connection sending the next request of its list in turn:
 *
 * - shipping: a valid sandbox create (a fresh reference each), a sandbox track, a create that is not JSON, one
 *   nested 200 levels deep, one with NUL and other control characters in its strings (which the sandbox accepts),
 *   one with a huge number;
 * - store (platform key): an order create (a fresh Idempotency-Key and customer phone each), the orders list, one
 *   order by id, the products list with a new query string (a read-cache miss), a create with an invalid body.
 *
 * Every answer must be one the API documents (2xx, or 400/404/413/422 for the bad bodies): a 5xx or another status
 * is counted and printed. Before the load: the idle RSS after start (and after `--idle` seconds). After the load, the
 * RSS once idle again. Prints a table of the samples; no result is asserted.
 *
 *   npm run bench:soak -- [--minutes 30] [--sample 30] [--connections 8] [--idle 20] [--node-option <flag>]...
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { admin } from "./adminCli.ts"
import { cpuMillis, freePort, memoryOf, onCpu0, pinSelfToCpu1 } from "./host.ts"
import { sandboxOrder } from "./sandboxOrder.ts"
import { scratchDatabase } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    sample: { type: "string", default: "30" },
    connections: { type: "string", default: "8" },
    idle: { type: "string", default: "20" },
    "node-option": { type: "string", multiple: true, default: [] }
  }
})
const minutes = Number(values.minutes)
const sampleSeconds = Number(values.sample)
const connections = Number(values.connections)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const startApp = async (databaseUrl: string) => {
  const [shipping, store] = [await freePort(), await freePort()]
  const node = [
    process.execPath,
    ...(values["node-option"] ?? []),
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/http/src/main.ts")
  ]
  const [command, ...argv] = [...onCpu0, ...node]
  const child: ChildProcess = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      SHIPPING_PORT: String(shipping),
      STORE_PORT: String(store),
      METRICS_PORT: "off",
      SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
      SHIPPING_MAX_CONCURRENT_CREATES: "100000"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const urls = { shipping: `http://127.0.0.1:${shipping}`, store: `http://127.0.0.1:${store}` }
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`)
    const ok = await fetch(`${urls.store}/v1/ping`).then(
      (response) => response.ok,
      () => false
    )
    if (ok) return { child, urls }
    await sleep(100)
  }
  child.kill("SIGKILL")
  throw new Error("the app did not answer /v1/ping within 60 s")
}

const nested = (depth: number): unknown => (depth === 0 ? "x" : { a: nested(depth - 1) })

/** What the traffic answered: counts by status, and a sample body of each unexpected one. */
const tally = new Map<number, number>()
const unexpected = new Map<number, string>()
const expect = (allowed: ReadonlyArray<number>) => (status: number, body: string) => {
  tally.set(status, (tally.get(status) ?? 0) + 1)
  if (!allowed.includes(status) && !unexpected.has(status)) unexpected.set(status, body.slice(0, 300))
}

let sequence = 0

const shippingRequests = (): Array<autocannon.Request> => {
  const json = { "content-type": "application/json" }
  const bad = [400, 413, 422]
  return [
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({ ...sandboxOrder, order: { ...sandboxOrder.order, reference: `soak-${++sequence}` } })
      }),
      onResponse: expect([200])
    },
    {
      method: "POST",
      path: "/v1/track",
      headers: json,
      body: JSON.stringify({ courier: "sandbox", trackingNumber: "SBX000000000000" }),
      onResponse: expect([200, 400, 404, 422])
    },
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      body: '{"courier": "sandbox", "order": ',
      onResponse: expect(bad)
    },
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      body: JSON.stringify({ courier: "sandbox", order: nested(200) }),
      onResponse: expect(bad)
    },
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      body: JSON.stringify({
        ...sandboxOrder,
        order: { ...sandboxOrder.order, productList: "robe\u0000\u0001\u001b[31m\u007f", reference: "\u0000" }
      }),
      // The shipping API passes text to the courier as given (the sandbox accepts it): 200, or refused.
      onResponse: expect([200, ...bad])
    },
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      body: JSON.stringify({ ...sandboxOrder, order: { ...sandboxOrder.order, codAmount: 1e308 } }),
      onResponse: expect(bad)
    }
  ]
}

/** A store order of one product, for a new customer each (a shared phone would queue every create on one row). */
const storeOrder = (productId: number) => ({
  customer: {
    name: "Amina Benali",
    phone: `0${500_000_000 + Math.floor(Math.random() * 300_000_000)}`,
    wilaya_id: 16,
    commune: "Bab Ezzouar",
    address: "Cité 5 juillet, bât. 3"
  },
  items: [{ product_id: productId, quantity: 1 }],
  delivery: { type: "home" },
  shipping_cost: 400,
  payment_method: "cod"
})

const storeRequests = (token: string, productId: number, orderId: number): Array<autocannon.Request> => {
  const auth = { authorization: `Bearer ${token}` }
  const json = { ...auth, "content-type": "application/json" }
  const order = () => storeOrder(productId)
  return [
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      setupRequest: (request) => ({
        ...request,
        headers: { ...request.headers, "idempotency-key": `soak-${process.pid}-${++sequence}` },
        body: JSON.stringify(order())
      }),
      onResponse: expect([200, 201])
    },
    { method: "GET", path: "/v1/orders", headers: auth, onResponse: expect([200]) },
    { method: "GET", path: `/v1/orders/${orderId}`, headers: auth, onResponse: expect([200]) },
    {
      method: "GET",
      path: "/v1/products",
      headers: auth,
      setupRequest: (request) => ({ ...request, path: `/v1/products?soak=${++sequence}` }),
      onResponse: expect([200, 400])
    },
    {
      method: "POST",
      path: "/v1/orders",
      headers: json,
      setupRequest: (request) => ({
        ...request,
        headers: { ...request.headers, "idempotency-key": `soak-bad-${++sequence}` },
        body: JSON.stringify({ ...order(), items: [{ product_id: "\u0000", quantity: 1e308 }] })
      }),
      onResponse: expect([400, 422])
    }
  ]
}

pinSelfToCpu1()
const database = scratchDatabase(adminUrl)
let app: Awaited<ReturnType<typeof startApp>> | undefined
try {
  app = await startApp(database.url)
  const pid = app.child.pid!
  const created = admin(database.url, "store", "create", "--name", "Soak Store")
  const token = created.platform_key.bearer_token as string
  admin(database.url, "quota", "set", "--store", String(created.store.id), "--requests-per-minute", "100000000")
  const post = async (path: string, key: string, body: unknown) => {
    const response = await fetch(`${app!.urls.store}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    return ((await response.json()) as any).data
  }
  const product = await post("/v1/products", "soak-product", { name: "Robe kabyle", price: 4500, stock: null })
  const firstOrder = await post("/v1/orders", "soak-first", storeOrder(product.id))

  const idleAtStart = memoryOf(pid).rss
  await sleep(Number(values.idle) * 1000)
  const idle = memoryOf(pid).rss
  console.log(
    `soak: ${minutes} min, ${connections} connections per API, RSS every ${sampleSeconds} s, database server, ` +
      `app on CPU 0, load on CPU 1${values["node-option"]!.length > 0 ? `, node ${values["node-option"]!.join(" ")}` : ""}`
  )
  console.log(`idle RSS: ${idleAtStart.toFixed(0)} MB after start, ${idle.toFixed(0)} MB after ${values.idle} s`)
  console.log("")
  console.log("| minute | RSS MB | answers so far | app CPU s so far | load average |")
  console.log("| --- | --- | --- | --- | --- |")

  const cpuAtStart = cpuMillis(pid) ?? 0
  const seconds = minutes * 60
  const runs = [
    autocannon({ url: app.urls.shipping, connections, duration: seconds, requests: shippingRequests() }),
    autocannon({
      url: app.urls.store,
      connections,
      duration: seconds,
      requests: storeRequests(token, product.id, firstOrder.id)
    })
  ]
  const started = Date.now()
  const sampling = setInterval(() => {
    const answers = [...tally.values()].reduce((sum, count) => sum + count, 0)
    const cpu = ((cpuMillis(pid) ?? 0) - cpuAtStart) / 1000
    console.log(
      `| ${((Date.now() - started) / 60_000).toFixed(1)} | ${memoryOf(pid).rss.toFixed(0)} | ${answers} | ${cpu.toFixed(0)} | ${Os.loadavg()[0]!.toFixed(2)} |`
    )
  }, sampleSeconds * 1000)
  const [shipping, store] = await Promise.all(runs)
  clearInterval(sampling)
  await sleep(Number(values.idle) * 1000)
  console.log("")
  console.log(`idle RSS after the load: ${memoryOf(pid).rss.toFixed(0)} MB (${values.idle} s after it stopped)`)
  console.log(
    `shipping: ${shipping!.requests.total} answers, ${shipping!.errors} errors, ${shipping!.timeouts} timeouts; ` +
      `store: ${store!.requests.total} answers, ${store!.errors} errors, ${store!.timeouts} timeouts`
  )
  console.log(
    `statuses: ${[...tally]
      .sort((a, b) => a[0] - b[0])
      .map(([status, count]) => `${status} × ${count}`)
      .join(", ")}`
  )
  for (const [status, body] of unexpected) console.log(`UNEXPECTED ${status}: ${body}`)
} finally {
  if (app !== undefined && app.child.exitCode === null) {
    const exited = new Promise((resolve) => app!.child.once("exit", resolve))
    app.child.kill("SIGTERM")
    await exited
  }
  database.drop()
}
