/**
 * Issue 14 benchmarks on a real PostgreSQL, each reported, not tuned:
 *
 * - Signed `POST /v1/events` accepted per second through the whole app (`TW-Public` signature checked, the nonce
 *   recorded, the gates, 202 at once, the rows written behind the answer in batches), its CPU per accepted call, and
 *   how long until every accepted event was written and counted; against, in the same run, on the same database and
 *   key, with the same requests: the raw `node:http` baseline (`baseline/events.ts`: the same signature check, the
 *   nonce recorded by group commit, the rows written in batches into the same table), `--rounds` times, alternating
 *   which goes first, with the ratio of each round; and the same rows — read back from the app's table — written by
 *   PostgreSQL in one multi-row `INSERT` (a `psql` run of one statement, timed by the server).
 * - Signed `POST /v1/events/batch` (issue 22): `--batch` events a call (0 skips it), each call signed afresh; events
 *   accepted per second (summed from the answers' `accepted`), and whether every accepted event was written and
 *   counted in usage (none lost).
 * - Webhook dispatch lag: orders created through the API at a steady pace, each `order.created` delivered to a
 *   loopback receiver answering 200 at once; the lag from the create's answer (sent after the commit) to the first
 *   attempt's arrival, p50 / p95 / max; and, as an upper bound, from the create's request.
 *
 * The app runs pinned to CPU 0 and this process (autocannon, the receiver) to CPU 1 when `taskset` exists;
 * PostgreSQL is not pinned.
 *
 *   npm run bench:events -- [--duration 10] [--warmup 5] [--connections 20] [--rounds 2] [--orders 200] [--rate 20]
 *                           [--batch 100] [--skip single,batch,webhooks] [--node-option <flag>]...
 *                           [--callgrind <calls>]
 *
 * `--node-option` passes a flag to the app's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: a profile written
 * when the app stops at the end); `--skip` leaves out parts (`--batch 0` too leaves out the batches).
 *
 * `--callgrind <calls>`: instead of the above, instructions per accepted signed event on each server's main thread
 * (the app, then the raw baseline), counted by valgrind's callgrind over `<calls>` calls after 5 × `<calls>` of
 * warm-up (10 connections; every answer must be 202), which a machine shared with other work does not move, unlike
 * rates and CPU times; and the statements the database received per counted call (`log_statement = 'all'` on the
 * scratch database, read from the server's log), by shape.
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { RequestSignature } from "@tawsil/signing"
import autocannon from "autocannon"
import { Redacted } from "effect"
import { admin } from "./adminCli.ts"
import { callgrind, cpuMillis, freePort, median, onCpu0, pinSelfToCpu1 } from "./host.ts"
import { loggedStatements, logOffset, psql, scratchDatabase, shapeOf } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "5" },
    connections: { type: "string", default: "20" },
    orders: { type: "string", default: "200" },
    rate: { type: "string", default: "20" },
    batch: { type: "string", default: "100" },
    rounds: { type: "string", default: "2" },
    skip: { type: "string", default: "" },
    "node-option": { type: "string", multiple: true, default: [] },
    callgrind: { type: "string" }
  }
})
const duration = Number(values.duration)
const warmup = Number(values.warmup)
const connections = Number(values.connections)
const orders = Number(values.orders)
const rate = Number(values.rate)
const batchSize = Number(values.batch)
const rounds = Number(values.rounds)
const skipped = new Set(values.skip.split(",").filter((part) => part !== ""))
const nodeOptions = values["node-option"]
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

/** `prefix` wraps the app's node (callgrind's valgrind), `extraOptions` go to it after `--node-option`'s. */
const startApp = async (
  databaseUrl: string,
  receiverHost: string,
  prefix: ReadonlyArray<string> = [],
  extraOptions: ReadonlyArray<string> = []
): Promise<{ child: ChildProcess; url: string }> => {
  const port = await freePort()
  const [command, ...argv] = [
    ...onCpu0,
    ...prefix,
    process.execPath,
    ...nodeOptions,
    ...extraOptions,
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
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_HOSTS: receiverHost
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  // Under valgrind the app starts tens of times slower.
  for (let attempt = 0; attempt < (prefix.length > 0 ? 6000 : 600); attempt++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`)
    if (
      await fetch(`${url}/v1/ping`).then(
        (r) => r.ok,
        () => false
      )
    )
      return { child, url }
    await sleep(100)
  }
  throw new Error("the app did not answer /v1/ping in time")
}

/** The raw baseline (`baseline/events.ts`) on the same database, key and store, pinned as the app is. */
const startBaseline = async (
  databaseUrl: string,
  keyId: string,
  secret: string,
  storeId: number,
  prefix: ReadonlyArray<string> = [],
  extraOptions: ReadonlyArray<string> = []
) => {
  const port = await freePort()
  const [command, ...argv] = [
    ...onCpu0,
    ...prefix,
    process.execPath,
    ...extraOptions,
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/bench/src/baseline/events.ts")
  ]
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      KEY_ID: keyId,
      SIGNING_SECRET: secret,
      STORE_ID: String(storeId)
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < (prefix.length > 0 ? 3000 : 300); attempt++) {
    if (child.exitCode !== null) throw new Error(`the baseline exited with ${child.exitCode}`)
    if (
      await fetch(`${url}/v1/ping`).then(
        (r) => r.ok,
        () => false
      )
    )
      return { child, url }
    await sleep(100)
  }
  throw new Error("the baseline did not answer /v1/ping in time")
}

const stopChild = async (child: ChildProcess) => {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGTERM")
  await exited
}

const call = async (url: string, token: string, method: string, path: string, key: string, body: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "idempotency-key": key, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON is read field by field
  return JSON.parse(text) as any
}

/**
 * Autocannon against `/v1/events`, every request signed afresh (timestamp, nonce) as a platform's backend would: for
 * `seconds`, or `{ amount }` requests on `{ connections }`.
 */
const signedLoad = (
  url: string,
  keyId: string,
  secret: Redacted.Redacted<string>,
  length: number | { readonly amount: number; readonly connections: number }
) => {
  let n = 0
  return autocannon({
    url,
    // Under valgrind a call may wait seconds: counted calls get a minute, not autocannon's 10 s.
    ...(typeof length === "number" ? { connections, duration: length } : { ...length, timeout: 60 }),
    requests: [
      {
        method: "POST",
        path: "/v1/events",
        setupRequest: (request) => {
          const body = JSON.stringify({
            event: "page_view",
            user_id: `u_${n % 1000}`,
            properties: { path: "/", n: n++ }
          })
          const headers = RequestSignature.headers({
            keyId,
            secret,
            body,
            timestamp: Math.floor(Date.now() / 1000),
            nonce: randomBytes(16).toString("hex")
          })
          return { ...request, body, headers: { ...headers, "content-type": "application/json" } }
        }
      }
    ]
  })
}

/**
 * Autocannon against `/v1/events/batch`, `batchSize` events a call, every call signed afresh; `counted.items` sums
 * the events the answers accepted.
 */
const batchLoad = (
  url: string,
  keyId: string,
  secret: Redacted.Redacted<string>,
  seconds: number,
  counted: { items: number }
) => {
  let n = 0
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/v1/events/batch",
        setupRequest: (request) => {
          const events = Array.from({ length: batchSize }, () => ({
            event: "page_view",
            user_id: `u_${n % 1000}`,
            properties: { path: "/", n: n++ }
          }))
          const body = JSON.stringify({ events })
          const headers = RequestSignature.headers({
            keyId,
            secret,
            body,
            timestamp: Math.floor(Date.now() / 1000),
            nonce: randomBytes(16).toString("hex")
          })
          return { ...request, body, headers: { ...headers, "content-type": "application/json" } }
        },
        onResponse: (status, body) => {
          if (status === 202) counted.items += (JSON.parse(body) as { data: { accepted: number } }).data.accepted
        }
      }
    ]
  })
}

/**
 * `--callgrind <calls>`: instructions per accepted signed event on one server's main thread (`start` runs it under
 * callgrind's prefix, instrumentation off), counted over `calls` calls after 5 × `calls` of warm-up; and the
 * statements the scratch database logged while they ran and were written (`log_statement` set by the caller).
 */
const instructionsPerEvent = async (
  start: (
    prefix: ReadonlyArray<string>,
    options: ReadonlyArray<string>
  ) => Promise<{ child: ChildProcess; url: string }>,
  signed: { readonly url: string; readonly database: string; readonly events: () => number },
  key: { readonly keyId: string; readonly secret: Redacted.Redacted<string> },
  calls: number
) => {
  const counter = callgrind()
  const server = await start(counter.prefix, counter.nodeOptions)
  const run = async (amount: number) => {
    const result = await signedLoad(server.url, key.keyId, key.secret, { amount, connections: 10 })
    if (result["2xx"] !== amount) {
      throw new Error(
        `${result["2xx"]} of ${amount} calls answered 2xx (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`
      )
    }
  }
  const settle = async (count: number) => {
    for (let i = 0; i < 1200 && signed.events() < count; i++) await sleep(100)
  }
  let statements: Array<string> = []
  try {
    await run(5 * calls)
    const before = signed.events()
    await settle(before)
    await sleep(500)
    const offset = logOffset()
    // The statements are read before the count's idle period (`callgrind`), whose background polls are not the calls'.
    await counter.count(server.child.pid!, async () => {
      await run(calls)
      await settle(before + calls)
      await sleep(500)
      if (offset !== undefined) statements = loggedStatements(signed.database, offset)
    })
  } finally {
    await stopChild(server.child)
  }
  const shapes = new Map<string, number>()
  for (const statement of statements) {
    const shape = shapeOf(statement).slice(0, 90)
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1)
  }
  const totals = counter.totals()
  return {
    perCall: totals.main / calls,
    perCallAll: totals.all / calls,
    perCallCompiler: counter.compiler() / calls,
    perCallIdle: counter.idle() / calls,
    statementsPerCall: statements.length / calls,
    shapes: [...shapes].sort((a, b) => b[1] - a[1]),
    dumps: counter.dir
  }
}

const main = async () => {
  pinSelfToCpu1()
  const database = scratchDatabase(adminUrl)
  const received: Array<{ readonly orderId: number; readonly at: number }> = []
  const receiver = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const at = performance.now() + performance.timeOrigin
      received.push({ orderId: JSON.parse(Buffer.concat(chunks).toString()).data.id, at })
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  let app: { child: ChildProcess; url: string } | undefined
  try {
    app = await startApp(database.url, "127.0.0.1")
    const store = admin(database.url, "store", "create", "--name", "Bench")
    admin(database.url, "quota", "set", "--store", String(store.store.id), "--requests-per-minute", "-1")
    const token: string = store.platform_key.bearer_token
    const key = admin(database.url, "key", "create", "--store", String(store.store.id), "--type", "public")
    const secret = Redacted.make(key.signing_secret as string)
    const storeId = store.store.id as number
    const events = () => Number(psql(database.url, `SELECT count(*) FROM tracked_events WHERE store_id = ${storeId}`))
    if (values.callgrind !== undefined) {
      const calls = Number(values.callgrind)
      await stopChild(app.child)
      app = undefined
      database.logStatements("all")
      const signed = { url: database.url, database: database.name, events }
      const signer = { keyId: key.key_id as string, secret }
      const ours = await instructionsPerEvent(
        (prefix, options) => startApp(database.url, "127.0.0.1", prefix, options),
        signed,
        signer,
        calls
      )
      const raw = await instructionsPerEvent(
        (prefix, options) =>
          startBaseline(database.url, key.key_id, key.signing_secret as string, storeId, prefix, options),
        signed,
        signer,
        calls
      )
      database.logStatements(null)
      const count = (n: number) => Math.round(n).toLocaleString("en")
      // A call's own instructions: without V8's compiler and without what the process does idle (`callgrind`).
      const net = (r: typeof ours) => r.perCall - r.perCallCompiler - r.perCallIdle
      const report = (name: string, r: typeof ours) =>
        [
          `- ${name}: ${count(r.perCall)} instructions per accepted event on the main thread (of which V8's optimising compiler ${count(r.perCallCompiler)}; the same time idle ${count(r.perCallIdle)}; net ${count(net(r))}), ${count(r.perCallAll)} with helper threads (dumps in ${r.dumps})`,
          `  ${r.statementsPerCall.toFixed(3)} statements per call:`,
          ...r.shapes.map(([shape, n]) => `    ${(n / calls).toFixed(3)} × ${shape}`)
        ].join("\n")
      console.log(
        [
          `callgrind: signed POST /v1/events, ${calls} calls counted after ${5 * calls} of warm-up, 10 connections`,
          report("tawsil", ours),
          report("raw node:http baseline", raw),
          `ratio raw/ours (instructions): ${(raw.perCall / ours.perCall).toFixed(2)}x; net of the compiler and the idle background: ${(net(raw) / net(ours)).toFixed(2)}x`
        ].join("\n")
      )
      return
    }
    console.log(
      `machine: ${Os.cpus().length} CPUs, load average ${Os.loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}; ` + `${connections} connections`
    )

    // --- signed events: ours and the raw baseline, alternating -----------------------------------------------
    let accepted = 0
    let acceptedPerSecond = 0
    if (!skipped.has("single")) {
      const settle = async () => {
        let count = events()
        for (let settled = -1; settled !== count; ) {
          settled = count
          await sleep(300)
          count = events()
        }
        return count
      }
      const measureSingle = async (name: string, url: string, pid: number) => {
        await signedLoad(url, key.key_id, secret, warmup)
        // The warm-up's last rows are written behind their answers: wait until the count stops moving.
        const before = await settle()
        const cpuBefore = cpuMillis(pid)
        const started = performance.now()
        const result = await signedLoad(url, key.key_id, secret, duration)
        const loadMs = performance.now() - started
        const cpuMs = (cpuMillis(pid) ?? Number.NaN) - (cpuBefore ?? Number.NaN)
        const load = Os.loadavg()[0]!
        const ok = result["2xx"]
        for (let i = 0; i < 600 && events() < before + ok; i++) await sleep(50)
        const writtenMs = performance.now() - started
        const written = (await settle()) - before
        const perSecond = (ok * 1000) / loadMs
        console.log(
          `${name}: ${ok} accepted (202) in ${(loadMs / 1000).toFixed(1)} s = ${Math.round(perSecond)}/s; ` +
            `non-2xx ${result.non2xx}, errors ${result.errors}; latency p50 ${result.latency.p50} ms, p99 ${
              result.latency.p99
            } ms; server CPU ${Math.round((cpuMs * 1000) / ok)} µs per accepted call; ${written} written ` +
            `${written >= ok ? "(none lost)" : "(LOST)"} ${Math.round(writtenMs - loadMs)} ms after the load ended; ` +
            `load average ${load.toFixed(1)}`
        )
        return { ok, perSecond, cpuMicros: (cpuMs * 1000) / ok }
      }
      const ratios: Array<number> = []
      const cpuRatios: Array<number> = []
      for (let round = 1; round <= rounds; round++) {
        const baseline = await startBaseline(database.url, key.key_id, key.signing_secret as string, storeId)
        try {
          const runOurs = () => measureSingle(`round ${round} tawsil POST /v1/events`, app!.url, app!.child.pid!)
          const runRaw = () => measureSingle(`round ${round} raw node:http baseline`, baseline.url, baseline.child.pid!)
          let ours: Awaited<ReturnType<typeof runOurs>>
          let raw: Awaited<ReturnType<typeof runRaw>>
          if (round % 2 === 1) {
            ours = await runOurs()
            raw = await runRaw()
          } else {
            raw = await runRaw()
            ours = await runOurs()
          }
          accepted += ours.ok
          acceptedPerSecond = Math.max(acceptedPerSecond, ours.perSecond)
          ratios.push(ours.perSecond / raw.perSecond)
          cpuRatios.push(raw.cpuMicros / ours.cpuMicros)
        } finally {
          await stopChild(baseline.child)
        }
      }
      const usage = psql(
        database.url,
        `SELECT coalesce(sum(count), 0) FROM usage_hourly WHERE store_id = ${storeId} AND endpoint_group = 'event'`
      )
      console.log(
        `ratio ours/raw (accepted/s) per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(
          ratios
        ).toFixed(2)}x (target >= 0.5x); raw/ours (CPU per call): ${cpuRatios.map((r) => r.toFixed(2)).join(", ")}; ` +
          `usage counts ${usage} events, ${events()} rows`
      )
    }

    // The same rows, by PostgreSQL in one multi-row INSERT: read back, written again into a copy of the table.
    if (accepted > 0) {
      psql(database.url, "CREATE TABLE events_copy (LIKE tracked_events INCLUDING ALL)")
      const file = Path.join(Os.tmpdir(), `tawsil-events-${process.pid}.sql`)
      const rows = execFileSync(
        "psql",
        [
          "-X",
          "-At",
          "-v",
          "ON_ERROR_STOP=1",
          "-c",
          `SELECT string_agg(format('(%s,%L,%L,%L,%L,%L,%L,%L)', store_id, nonce, key_id, event, user_id, properties,
           occurred_at, received_at), ',') FROM tracked_events WHERE store_id = ${storeId}`,
          database.url
        ],
        { encoding: "utf8", maxBuffer: 1 << 30 }
      ).trim()
      const count = events()
      Fs.writeFileSync(
        file,
        `\\timing on\nINSERT INTO events_copy (store_id, nonce, key_id, event, user_id, properties, occurred_at, received_at) VALUES ${rows};\n`
      )
      const out = execFileSync("psql", ["-X", "-v", "ON_ERROR_STOP=1", "-f", file, database.url], { encoding: "utf8" })
      Fs.rmSync(file)
      const insertMs = Number(/Time: ([0-9.]+) ms/.exec(out)?.[1])
      console.log(
        `one multi-row INSERT of the same ${count} rows: ${insertMs.toFixed(0)} ms = ${Math.round(
          (count * 1000) / insertMs
        )} rows/s (ratio ours accepted/s : insert rows/s = ${(acceptedPerSecond / ((count * 1000) / insertMs)).toFixed(3)})`
      )
    }

    // --- signed batches -------------------------------------------------------------------------------------------
    if (batchSize > 0 && !skipped.has("batch")) {
      const eventUsage = () =>
        Number(
          psql(
            database.url,
            `SELECT coalesce(sum(count), 0) FROM usage_hourly WHERE store_id = ${storeId} AND endpoint_group = 'event'`
          )
        )
      const settledRows = events()
      const settledUsage = eventUsage()
      const counted = { items: 0 }
      const batchStarted = performance.now()
      const batches = await batchLoad(app.url, key.key_id, secret, duration, counted)
      const batchMs = performance.now() - batchStarted
      for (let i = 0; i < 600 && events() < settledRows + counted.items; i++) await sleep(50)
      const batchWrittenMs = performance.now() - batchStarted
      // Calls still in flight when autocannon stopped were accepted by the app but never counted here: wait until the
      // rows stop coming, then every accepted event must be written (at least the answers' sum) and each counted once.
      let batchWritten = events() - settledRows
      for (let settled = -1; settled !== batchWritten; ) {
        settled = batchWritten
        await sleep(300)
        batchWritten = events() - settledRows
      }
      const batchCounted = eventUsage() - settledUsage
      const verdict =
        batchWritten >= counted.items && batchCounted === batchWritten
          ? `none lost (${batchWritten - counted.items} more from calls in flight when the load stopped)`
          : "LOST OR MISCOUNTED"
      console.log(
        `POST /v1/events/batch (${batchSize} a call): ${batches["2xx"]} calls, ${counted.items} events accepted in ${(
          batchMs / 1000
        ).toFixed(1)} s = ${Math.round((counted.items * 1000) / batchMs)} events/s; non-2xx ${batches.non2xx}, ` +
          `errors ${batches.errors}; latency p50 ${batches.latency.p50} ms, p99 ${batches.latency.p99} ms; ` +
          `accepted events written ${Math.round(batchWrittenMs - batchMs)} ms after the load ended; ${batchWritten} ` +
          `written, ${batchCounted} counted in usage: ${verdict}`
      )
    }

    // --- webhook dispatch lag -------------------------------------------------------------------------------------
    if (skipped.has("webhooks")) return
    await call(app.url, token, "POST", "/v1/webhooks", "hook-1", { url: receiverUrl, events: ["order.created"] })
    const product = await call(app.url, token, "POST", "/v1/products", "product-1", { name: "Bench", price: 1000 })
    const sent = new Map<number, { readonly request: number; readonly answer: number }>()
    const pace = 1000 / rate
    const startOrders = performance.now()
    const creates: Array<Promise<void>> = []
    for (let i = 0; i < orders; i++) {
      const due = startOrders + i * pace
      const wait = due - performance.now()
      if (wait > 0) await sleep(wait)
      const request = performance.now() + performance.timeOrigin
      creates.push(
        call(app.url, token, "POST", "/v1/orders", `order-${i}`, {
          customer: {
            name: `Client ${i}`,
            phone: `0661${String(i).padStart(6, "0")}`,
            wilaya_id: 16,
            commune: "Alger"
          },
          items: [{ product_id: product.data.id, quantity: 1 }]
        }).then((order) => {
          sent.set(order.data.id, { request, answer: performance.now() + performance.timeOrigin })
        })
      )
    }
    await Promise.all(creates)
    for (let i = 0; i < 600 && received.length < orders; i++) await sleep(50)
    const fromAnswer: Array<number> = []
    const fromRequest: Array<number> = []
    for (const [orderId, times] of sent) {
      const first = received.find((delivery) => delivery.orderId === orderId)
      if (first === undefined) continue
      fromAnswer.push(first.at - times.answer)
      fromRequest.push(first.at - times.request)
    }
    const show = (values: ReadonlyArray<number>) =>
      `p50 ${percentile(values, 50).toFixed(1)} ms, p95 ${percentile(values, 95).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`
    console.log(
      `webhook dispatch: ${fromAnswer.length} of ${orders} orders (${rate}/s) delivered; ` +
        `lag from the create's answer ${show(fromAnswer)}; from its request ${show(fromRequest)}`
    )
  } finally {
    if (app !== undefined) await stopChild(app.child)
    receiver.close()
    database.drop()
  }
}

await main()
