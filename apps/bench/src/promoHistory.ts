/**
 * The cost of the change history (issue 15), reported, not tuned: `PATCH /v1/promo-codes/{id}` through the whole app
 * (platform key, metering, gates, the Idempotency-Key claim, the code's rules, the write) with every PATCH recorded
 * in `changes` in the same transaction, against the same app and the same PATCHes with recording off
 * (`ChangeLog.Recording` false), in the same run on the same database.
 *
 * Each connection PATCHes its own code (so connections do not queue on one row's lock) with a new
 * `discount_value` and a fresh `Idempotency-Key` per request, so every PATCH changes the code and is recorded. Rounds
 * alternate which variant runs first; the app (`store/historyApp.ts`, `npm start`'s app with recording set) is
 * restarted for each run, pinned to CPU 0, autocannon (this process) on CPU 1 when `taskset` is available. Afterwards
 * the rows of `changes` are counted: recorded runs must have added one per answered PATCH, unrecorded runs none.
 *
 *   npm run bench:history -- [--duration 10] [--warmup 5] [--connections 10] [--pool 10] [--rounds 2]
 *
 * Needs `psql` and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { admin } from "./adminCli.ts"
import { cpuMillis, freePort, hasTaskset, median, onCpu0, pinSelfToCpu1 } from "./host.ts"
import { psql, scratchDatabase } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    pool: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" }
  }
})
const duration = Number(values.duration)
const warmup = Number(values.warmup)
const connections = Number(values.connections)
const pool = Number(values.pool)
const rounds = Number(values.rounds)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** Far above what a run reaches: the limit is still checked on every call. */
const PER_MINUTE_LIMIT = 100_000_000

type Variant = "recorded" | "unrecorded"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface App {
  readonly child: ChildProcess
  readonly url: string
}

const startApp = async (databaseUrl: string, variant: Variant): Promise<App> => {
  const port = await freePort()
  const [command, ...argv] = [
    ...onCpu0,
    process.execPath,
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/bench/src/store/historyApp.ts"),
    variant === "recorded" ? "on" : "off"
  ]
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(pool),
      STORE_PORT: String(port),
      SHIPPING_PORT: "0",
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`)
    if (
      await fetch(`${url}/v1/ping`).then(
        (response) => response.ok,
        () => false
      )
    )
      return { child, url }
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

let sequence = 0

/** Each connection PATCHes its own code with a new value and key per request; answers counted by status. */
const run = (app: App, token: string, codes: ReadonlyArray<number>, seconds: number) => {
  const statuses = new Map<number, number>()
  let next = 0
  return autocannon({
    url: app.url,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [
      {
        method: "PATCH",
        path: "/v1/promo-codes/0",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        setupRequest: (request, context) => {
          const own = context as { code?: number }
          own.code ??= codes[next++ % codes.length]!
          const n = ++sequence
          return {
            ...request,
            path: `/v1/promo-codes/${own.code}`,
            headers: { ...request.headers, "idempotency-key": `history-${process.pid}-${n}` },
            body: JSON.stringify({ discount_value: 1 + (n % 100_000) })
          }
        },
        onResponse: (status) => {
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
        }
      }
    ]
  }).then((result) => ({ result, statuses }))
}

interface Measured {
  readonly variant: Variant
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
  readonly answered: number
  readonly non2xx: number
  readonly appCpuPerPatch: number
  readonly changesAdded: number
}

const countChanges = (databaseUrl: string) => Number(psql(databaseUrl, "SELECT count(*) FROM changes"))

const measure = async (databaseUrl: string, variant: Variant, token: string, codes: ReadonlyArray<number>) => {
  const app = await startApp(databaseUrl, variant)
  try {
    await run(app, token, codes, warmup)
    const changesBefore = countChanges(databaseUrl)
    const cpuBefore = cpuMillis(app.child.pid!) ?? 0
    const { result, statuses } = await run(app, token, codes, duration)
    const cpu = (cpuMillis(app.child.pid!) ?? 0) - cpuBefore
    await sleep(200)
    const ok = statuses.get(200) ?? 0
    const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0)
    const measured: Measured = {
      variant,
      perSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      answered,
      non2xx: answered - ok,
      appCpuPerPatch: cpu / answered,
      changesAdded: countChanges(databaseUrl) - changesBefore
    }
    return measured
  } finally {
    await stopApp(app)
  }
}

const main = async () => {
  pinSelfToCpu1()
  const database = scratchDatabase(adminUrl)
  try {
    // The first start migrates the scratch database; the store, its quota and the codes are made once.
    const first = await startApp(database.url, "recorded")
    const created = admin(database.url, "store", "create", "--name", "History Bench")
    const storeId = String(created.store.id)
    const token = created.platform_key.bearer_token as string
    admin(database.url, "quota", "set", "--store", storeId, "--requests-per-minute", String(PER_MINUTE_LIMIT))
    const codes: Array<number> = []
    for (let n = 0; n < connections; n++) {
      const response = await fetch(`${first.url}/v1/promo-codes`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": `history-setup-${n}`
        },
        body: JSON.stringify({ code: `BENCH-${n}`, discount_type: "fixed", discount_value: 100 })
      })
      codes.push(((await response.json()) as { data: { id: number } }).data.id)
    }
    await stopApp(first)

    const results: Array<Measured & { readonly round: number }> = []
    for (let round = 1; round <= rounds; round++) {
      const order: ReadonlyArray<Variant> = round % 2 === 1 ? ["recorded", "unrecorded"] : ["unrecorded", "recorded"]
      for (const variant of order) {
        const measured = await measure(database.url, variant, token, codes)
        results.push({ ...measured, round })
        console.log(JSON.stringify({ round, ...measured }))
      }
    }

    console.log(
      `\nPATCH /v1/promo-codes/{id}, ${connections} connections, ${duration} s after ${warmup} s of warm-up, ` +
        `pool ${pool}, ${hasTaskset ? "app on CPU 0, autocannon on CPU 1" : "no taskset: unpinned"}\n`
    )
    console.log("| round | variant | req/s | p50 ms | p99 ms | answers | non-2xx | app CPU ms/PATCH | changes added |")
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (const r of results) {
      console.log(
        `| ${r.round} | ${r.variant} | ${r.perSecond.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.answered} | ${r.non2xx} | ` +
          `${r.appCpuPerPatch.toFixed(3)} | ${r.changesAdded} |`
      )
    }
    const rateOf = (variant: Variant) => median(results.filter((r) => r.variant === variant).map((r) => r.perSecond))
    console.log(
      `\nrecorded / unrecorded req/s (medians): ${(rateOf("recorded") / rateOf("unrecorded")).toFixed(2)} ` +
        `(${rateOf("recorded").toFixed(0)} / ${rateOf("unrecorded").toFixed(0)})`
    )
    for (const r of results) {
      const expected = r.variant === "recorded" ? `about ${r.answered - r.non2xx}` : "0"
      const ok =
        r.variant === "recorded"
          ? Math.abs(r.changesAdded - (r.answered - r.non2xx)) <= connections
          : r.changesAdded === 0
      if (!ok) console.log(`round ${r.round} ${r.variant}: ${r.changesAdded} changes added, expected ${expected}`)
    }
  } finally {
    database.drop()
  }
}

await main()
