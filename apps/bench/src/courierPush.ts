/**
 * Courier push at a steady rate (issue 30): Yalidine-style pushes to `POST /v1/hooks/couriers/{account_id}` at
 * `--rate` events a second for `--seconds`, `--batch` events a request (each size its own run) — every
 * acknowledgement's latency, and afterwards, in the database, that every acknowledged event was recorded exactly once.
 *
 * The store, its Yalidine accounts (made through the API, the credential check answered by a loopback Yalidine, each
 * with its webhook secret) and `--parcels` shipped parcels seeded in SQL (`shipments/setup.ts`). The load generator
 * (this process) signs each request as the Yalidine engine does (`X-YALIDINE-SIGNATURE`: hex HMAC-SHA256 of the body)
 * and sends it on schedule — request i at i × batch / rate seconds, over at most `--connections` keep-alive
 * connections, whatever the earlier ones are doing (an open loop: a slow receiver shows as latency, not as a lower
 * rate). Each event is a `parcel_status_updated` of its own id, for the next parcel in turn, a movement in transit
 * stamped a second after the one before (so no two events of a parcel are the same event by status and time). A
 * request gets Yalidine's 10 s; an answer is an acknowledgement only when it is 200.
 *
 * Latency runs from the request's scheduled time to its answer's end, so that a generator falling behind (or a queue at
 * the connections) counts against the receiver rather than hiding. The CPU times (`/proc`) are the receiver's and its
 * PostgreSQL backends', per acknowledged event.
 *
 * The receiver acknowledges once a request's events are recorded; the app's push applier applies them behind the
 * answer. After each run the bench waits until every acknowledged event is applied (the drain: polled in SQL, at most
 * `--drain-timeout` seconds), and reports the time from each event's acknowledgement to its `applied_at` (the start
 * of the unit that applied it; p50, p99, max) and how long the drain took after the last answer. The CPU times run
 * to the end of the drain, so they hold the applying too.
 *
 * None lost, checked in SQL after each drain: every acknowledged event's row in `courier_push_events` (once: it is the
 * table's key), applied (`applied_at`), and in its shipment's timeline exactly once (`order_shipment_events`, by its
 * event id); events recorded whose request got no acknowledgement (a timeout) are counted apart.
 *
 * Against, in the same run and on the same database: the raw baseline (`baseline/push.ts`: node:http, the same HMAC,
 * the same row written by the same statement through the same driver, nothing applied), on its own account, after
 * the app has stopped (both use the same pool, whose backends cannot be told apart otherwise). The app's poller is off
 * (`SHIPMENT_POLL_INTERVAL_MS=0`): the push path alone is measured. A `--warmup` run at the same rate precedes each
 * server's first measured run, and is verified as the others.
 *
 * The receivers run pinned to CPU 0 and this process to CPU 1 when `taskset` exists; PostgreSQL is not pinned.
 *
 *   npm run bench:push -- [--rate 1000] [--seconds 60] [--batch 1,10] [--connections 64] [--parcels 100000]
 *                         [--warmup 10] [--drain-timeout 600] [--skip-baseline] [--statements <events>]
 *                         [--node-option <flag>]...
 *
 * `--statements <events>`: instead of the above, the statements the app sends per acknowledged event, by shape
 * (`log_statement = 'all'` on the scratch database, read from the server's log), over `<events>` events of each
 * batch size after as many of warm-up, once they are applied (the receiver's and the applier's statements together).
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { createHmac, randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { freePort, onCpu0, pinSelfToCpu1, sampler } from "./host.ts"
import * as FakeCouriers from "./shipments/fakeCouriers.ts"
import {
  type App,
  backends,
  createAccounts,
  percentile,
  type Seed,
  secretKey,
  seedParcels,
  setUpStore,
  sleep,
  startApp,
  statementsPer,
  stopChild,
  trackingOf
} from "./shipments/setup.ts"
import { logOffset, scratchDatabase } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "1000" },
    seconds: { type: "string", default: "60" },
    batch: { type: "string", default: "1,10" },
    connections: { type: "string", default: "64" },
    parcels: { type: "string", default: "100000" },
    warmup: { type: "string", default: "10" },
    "drain-timeout": { type: "string", default: "600" },
    "skip-baseline": { type: "boolean", default: false },
    statements: { type: "string" },
    "node-option": { type: "string", multiple: true, default: [] }
  }
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const batchSizes = values.batch.split(",").map(Number)
const connections = Number(values.connections)
const parcels = Number(values.parcels)
const warmup = Number(values.warmup)
const drainTimeoutMs = Number(values["drain-timeout"]) * 1000
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** How long Yalidine waits for an answer before it counts the push as failed. */
const TIMEOUT_MS = 10_000

/** Movements in transit in Yalidine's status table: pushed in turn. */
const STATUSES = ["Centre", "Vers Wilaya", "Reçu à Wilaya"]

// ---------------------------------------------------------------------------------------------------------------
// The events

/** Every event pushed, over all runs: parcel and time come from it. */
let sequence = 0
/** Events are stamped from 5 days ago, a second apart: after the seeded shipments' status (7 days ago), before now. */
const FIRST_EVENT = Date.now() - 5 * 86_400_000

/** An epoch time as the Yalidine engine prints it: Algiers wall-clock time (UTC+01:00 all year). */
const algiersTime = (epochMillis: number) =>
  new Date(epochMillis + 3_600_000).toISOString().slice(0, 19).replace("T", " ")

/** The next `count` events: their ids, and the request body carrying them. */
const nextEvents = (seed: Pick<Seed, "trackingPrefix">, tag: string, count: number) => {
  const ids: Array<string> = []
  const events = Array.from({ length: count }, () => {
    const n = sequence++
    const id = `${tag}-${n}`
    ids.push(id)
    return {
      event_id: id,
      occurred_at: algiersTime(FIRST_EVENT + n * 1000),
      data: { tracking: trackingOf(seed, 1 + (n % parcels)), status: STATUSES[n % STATUSES.length], reason: "" }
    }
  })
  return { ids, body: Buffer.from(JSON.stringify({ type: "parcel_status_updated", events }), "utf8") }
}

// ---------------------------------------------------------------------------------------------------------------
// The load

interface Target {
  readonly name: string
  /** The receiver's URL for the account. */
  readonly url: string
  readonly accountId: number
  readonly secret: string
  readonly pid: number
}

interface Load {
  /** What every event id of the run starts with. */
  readonly tag: string
  readonly requests: number
  readonly events: number
  readonly sendMs: number
  readonly doneMs: number
  /** How late the generator sent a request after its scheduled time, at most. */
  readonly lateMax: number
  /** Latencies of acknowledged requests, ms, sorted. */
  readonly latencies: Float64Array
  /** The ids of every acknowledged event. */
  readonly acknowledged: ReadonlyArray<string>
  /** When each acknowledged event was acknowledged (epoch ms), by id. */
  readonly acknowledgedAt: ReadonlyMap<string, number>
  /** Acknowledged requests whose answer recorded fewer events than it received (a replay: never, here). */
  readonly short: number
  readonly answers: ReadonlyMap<string, number>
}

/**
 * Sends `durationS` seconds of events, `batch` a request, at `rate` events a second; waits for every answer (or its
 * timeout).
 */
const drive = async (seed: Seed, target: Target, batch: number, durationS: number): Promise<Load> => {
  const tag = randomBytes(4).toString("hex")
  const agent = new Http.Agent({ keepAlive: true, maxSockets: connections })
  const url = new URL(target.url)
  const requests = Math.floor((rate * durationS) / batch)
  const periodMs = (batch * 1000) / rate
  const latencies: Array<number> = []
  const acknowledged: Array<string> = []
  const acknowledgedAt = new Map<string, number>()
  const answers = new Map<string, number>()
  const tally = (what: string) => answers.set(what, (answers.get(what) ?? 0) + 1)
  let short = 0
  let lateMax = 0
  const inFlight: Array<Promise<void>> = []
  const send = (scheduled: number) =>
    new Promise<void>((resolve) => {
      const { ids, body } = nextEvents(seed, tag, batch)
      const request = Http.request(
        url,
        {
          method: "POST",
          agent,
          timeout: TIMEOUT_MS,
          headers: {
            "content-type": "application/json",
            "content-length": body.length,
            "user-agent": "Yalidine-Webhooks",
            "x-yalidine-signature": createHmac("sha256", target.secret).update(body).digest("hex")
          }
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => {
            tally(String(response.statusCode))
            if (response.statusCode === 200) {
              latencies.push(performance.now() - scheduled)
              acknowledged.push(...ids)
              const at = Date.now()
              for (const id of ids) acknowledgedAt.set(id, at)
              const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { recorded: number }
              if (answer.recorded < ids.length) short++
            }
            resolve()
          })
        }
      )
      request.on("timeout", () => request.destroy(new Error("timeout")))
      request.on("error", (error) => {
        tally(error.message === "timeout" ? "timeout" : "error")
        resolve()
      })
      request.end(body)
      lateMax = Math.max(lateMax, performance.now() - scheduled)
    })
  const started = performance.now()
  for (let next = 0; next < requests; ) {
    const now = performance.now()
    for (; next < requests && started + next * periodMs <= now; next++) {
      inFlight.push(send(started + next * periodMs))
    }
    await sleep(1)
  }
  const sendMs = performance.now() - started
  await Promise.all(inFlight)
  const doneMs = performance.now() - started
  agent.destroy()
  return {
    tag,
    requests,
    events: requests * batch,
    sendMs,
    doneMs,
    lateMax,
    latencies: Float64Array.from(latencies).sort(),
    acknowledged,
    acknowledgedAt,
    short,
    answers
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The drain

const psql = (databaseUrl: string, query: string) =>
  execFileSync("psql", ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", query, databaseUrl], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  }).trim()

/**
 * Waits until the run's recorded events are all applied (polled every 200 ms, at most `--drain-timeout`): how long
 * after the last answer, and each applied event's `applied_at` (epoch ms) by id; undefined when the time ran out.
 */
const drain = async (databaseUrl: string, target: Target, load: Load) => {
  const started = performance.now()
  const of = `account_id = ${target.accountId} AND event_key LIKE 'id:${load.tag}-%'`
  for (;;) {
    const left = Number(
      psql(databaseUrl, `SELECT count(*) FROM courier_push_events WHERE ${of} AND applied_at IS NULL`)
    )
    if (left === 0) break
    if (performance.now() - started > drainTimeoutMs) return { drainMs: undefined, left, appliedAt: new Map() }
    await sleep(200)
  }
  const drainMs = performance.now() - started
  const appliedAt = new Map<string, number>()
  const rows = psql(
    databaseUrl,
    `SELECT substr(event_key, 4), (extract(epoch FROM applied_at) * 1000)::float8 FROM courier_push_events WHERE ${of}`
  )
  for (const line of rows.split("\n")) {
    if (line === "") continue
    const [id, at] = line.split("|") as [string, string]
    appliedAt.set(id, Number(at))
  }
  return { drainMs, left: 0, appliedAt }
}

// ---------------------------------------------------------------------------------------------------------------
// None lost

/** The database's account of one run: the acknowledged events found once, applied, and in the timelines. */
const verify = (databaseUrl: string, target: Target, load: Load, applied: boolean) => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-push-"))
  const keys = Path.join(dir, "acknowledged.txt")
  const script = Path.join(dir, "verify.sql")
  Fs.writeFileSync(keys, load.acknowledged.map((id) => `${id}\n`).join(""))
  Fs.writeFileSync(
    script,
    `CREATE TEMP TABLE acknowledged (id text PRIMARY KEY);
\\copy acknowledged FROM '${keys}'
SELECT
  (SELECT count(*) FROM acknowledged),
  (SELECT count(*) FROM courier_push_events p JOIN acknowledged a
    ON p.account_id = ${target.accountId} AND p.event_key = 'id:' || a.id),
  (SELECT count(*) FROM courier_push_events p JOIN acknowledged a
    ON p.account_id = ${target.accountId} AND p.event_key = 'id:' || a.id WHERE p.applied_at IS NOT NULL),
  (SELECT count(*) FROM order_shipment_events e JOIN acknowledged a ON e.dedupe_key = 'id:movement:id:' || a.id),
  (SELECT count(DISTINCT e.dedupe_key) FROM order_shipment_events e JOIN acknowledged a
    ON e.dedupe_key = 'id:movement:id:' || a.id),
  (SELECT count(*) FROM courier_push_events
    WHERE account_id = ${target.accountId} AND event_key LIKE 'id:${load.tag}-%');
`
  )
  try {
    const out = execFileSync("psql", ["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", script, databaseUrl], {
      encoding: "utf8"
    }).trim()
    const [acknowledged, recorded, appliedRows, timeline, distinct, all] = out.split("|").map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number
    ]
    const lost = acknowledged - recorded
    const verdict = applied
      ? lost === 0 && appliedRows === acknowledged && timeline === acknowledged && distinct === timeline
        ? "none lost, none twice"
        : "LOST OR DOUBLED"
      : lost === 0
        ? "none lost"
        : "LOST"
    return (
      `${acknowledged} acknowledged events: ${recorded} in courier_push_events` +
      (applied
        ? `, ${appliedRows} applied, ${timeline} in the timelines (${distinct} distinct)`
        : " (not applied: baseline)") +
      ` — ${verdict}; ${all - recorded} more recorded without an acknowledgement`
    )
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A run

const run = async (
  databaseUrl: string,
  seed: Seed,
  target: Target,
  batch: number,
  durationS: number,
  label: string
) => {
  const cpu = sampler()
  cpu.follow([target.pid])
  cpu.follow(backends(databaseUrl))
  const load = await drive(seed, target, batch, durationS)
  const applies = target.name === "tawsil"
  const drained = applies ? await drain(databaseUrl, target, load) : undefined
  const serving = backends(databaseUrl)
  cpu.follow(serving, true)
  const spent = cpu.stop()
  const events = load.acknowledged.length
  const ms = (p: number) => percentile(load.latencies, p).toFixed(1)
  const perEvent = (cpuMs: number) => Math.round((cpuMs * 1000) / Math.max(1, events))
  const answers = [...load.answers].map(([status, n]) => `${status} × ${n}`).join(", ")
  console.log(
    `${label}: ${load.requests} requests of ${batch} (${load.events} events) scheduled over ${durationS} s, sent in ${(
      load.sendMs / 1000
    ).toFixed(1)} s (at most ${load.lateMax.toFixed(0)} ms late), all answered ${(load.doneMs / 1000).toFixed(1)} s ` +
      `after the first; answers ${answers}; ${Math.round((events * 1000) / load.doneMs)} events acknowledged a second; ` +
      `acknowledgement latency p50 ${ms(50)} ms, p90 ${ms(90)} ms, p99 ${ms(99)} ms, max ${ms(100)} ms; ` +
      `CPU ${perEvent(spent([target.pid]))} µs an event, PostgreSQL backends ${perEvent(spent(serving))} µs an event; ` +
      `${load.short} answers recorded fewer than they received; load average ${Os.loadavg()[0]!.toFixed(1)}`
  )
  if (drained !== undefined) {
    if (drained.drainMs === undefined) {
      console.log(`  NOT DRAINED: ${drained.left} events still unapplied after ${drainTimeoutMs / 1000} s`)
    } else {
      const toApplied = Float64Array.from(
        load.acknowledged.flatMap((id) => {
          const applied = drained.appliedAt.get(id)
          const acknowledged = load.acknowledgedAt.get(id)
          return applied === undefined || acknowledged === undefined ? [] : [Math.max(0, applied - acknowledged)]
        })
      ).sort()
      const at = (p: number) => percentile(toApplied, p).toFixed(1)
      console.log(
        `  applied behind the answers: all ${(drained.drainMs / 1000).toFixed(1)} s after the last answer; ` +
          `acknowledgement to applied p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms ` +
          `(${toApplied.length} events)`
      )
    }
  }
  console.log(`  ${verify(databaseUrl, target, load, applies)}`)
}

/** The raw baseline (`baseline/push.ts`), pinned as the app is; ready when `/v1/ping` answers. */
const startBaseline = async (databaseUrl: string, accountId: number, secret: string) => {
  const port = await freePort()
  const [command, ...argv] = [
    ...onCpu0,
    process.execPath,
    "--conditions=@tawsil/source",
    Path.join(ROOT, "apps/bench/src/baseline/push.ts")
  ]
  const child: ChildProcess = spawn(command!, argv, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      ACCOUNT_ID: String(accountId),
      WEBHOOK_SECRET: secret
    },
    stdio: ["ignore", "inherit", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the baseline exited with ${child.exitCode}`)
    if (
      await fetch(`${url}/v1/ping`).then(
        (response) => response.ok,
        () => false
      )
    )
      return { child, url }
    await sleep(100)
  }
  throw new Error("the baseline did not answer /v1/ping in time")
}

const main = async () => {
  pinSelfToCpu1()
  const database = scratchDatabase(adminUrl)
  const yalidine = await FakeCouriers.yalidine()
  const appEnv = {
    TAWSIL_SECRET_KEY: secretKey(),
    TAWSIL_COURIER_ORIGINS: `https://api.yalidine.app=${yalidine.origin}`,
    SHIPMENT_POLL_INTERVAL_MS: "0"
  }
  let app: App | undefined
  try {
    app = await startApp(database.url, appEnv, values["node-option"])
    const store = await setUpStore(database.url, app)
    const secrets = [randomBytes(24).toString("hex"), randomBytes(24).toString("hex")]
    const [ours, theirs] = (await createAccounts(
      app,
      store,
      secrets.map((secret, i) => ({
        courier: "yalidine",
        label: i === 0 ? "Yalidine" : "Yalidine (baseline)",
        credentials: { apiId: `bench-api-id-${i}`, apiToken: `bench-api-token-${i}` },
        webhook_secret: secret
      }))
    )) as [number, number]
    const seed: Seed = {
      store,
      accounts: [ours],
      courier: "yalidine",
      parcels,
      trackingPrefix: "yal-",
      rawStatus: "En préparation",
      status: "created"
    }
    const seededMs = seedParcels(database.url, seed)
    console.log(
      `${parcels} Yalidine parcels seeded in ${(seededMs / 1000).toFixed(1)} s; ${rate} events a second for ${seconds} s, ` +
        `${connections} connections at most; ${Os.cpus().length} CPUs, load average ${Os.loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`
    )
    if (values.statements !== undefined) {
      // The app's connections log their statements once opened after this: a new app.
      await stopChild(app.child)
      database.logStatements("all")
      app = await startApp(database.url, appEnv, values["node-option"])
      const traced: Target = {
        name: "tawsil",
        url: `${app.url}/v1/hooks/couriers/${ours}`,
        accountId: ours,
        secret: secrets[0]!,
        pid: app.child.pid!
      }
      const events = Number(values.statements)
      for (const batch of batchSizes) {
        await drain(database.url, traced, await drive(seed, traced, batch, events / rate))
        await sleep(500)
        const offset = logOffset()
        const load = await drive(seed, traced, batch, events / rate)
        await drain(database.url, traced, load)
        await sleep(500)
        const counted = statementsPer(database.name, offset, load.acknowledged.length, "an acknowledged event")
        console.log(`tawsil, ${batch} event(s) a request, ${load.acknowledged.length} events: ${counted}`)
      }
      database.logStatements(null)
      return
    }
    const target: Target = {
      name: "tawsil",
      url: `${app.url}/v1/hooks/couriers/${ours}`,
      accountId: ours,
      secret: secrets[0]!,
      pid: app.child.pid!
    }
    if (warmup > 0) await run(database.url, seed, target, batchSizes[0]!, warmup, "tawsil warm-up")
    for (const batch of batchSizes) {
      await run(database.url, seed, target, batch, seconds, `tawsil, ${batch} event(s) a request`)
    }
    await stopChild(app.child)
    app = undefined
    if (values["skip-baseline"]) return
    const baseline = await startBaseline(database.url, theirs, secrets[1]!)
    try {
      const raw: Target = {
        name: "baseline",
        url: `${baseline.url}/v1/hooks/couriers/${theirs}`,
        accountId: theirs,
        secret: secrets[1]!,
        pid: baseline.child.pid!
      }
      if (warmup > 0) await run(database.url, seed, raw, batchSizes[0]!, warmup, "raw baseline warm-up")
      for (const batch of batchSizes) {
        await run(database.url, seed, raw, batch, seconds, `raw node:http baseline, ${batch} event(s) a request`)
      }
    } finally {
      await stopChild(baseline.child)
    }
  } finally {
    if (app !== undefined) await stopChild(app.child)
    await yalidine.close()
    database.drop()
  }
}

await main()
