/**
 * Polling at scale (issue 30): one instance of the app keeping `--parcels` active parcels current against a loopback
 * Ecotrack tenant (DHD's origin) whose batch read answers after `--delay` ms — the CPU per parcel checked and the
 * wall time of a sweep (every parcel checked once), set against the couriers' documented limits.
 *
 * For each `--accounts` count (its own scratch database and app): the store and its DHD accounts made through the API,
 * the parcels seeded in SQL (`shipments/setup.ts`), then sweeps. A sweep makes every check due at once (in the order
 * the parcels were made, so accounts interleave as a store's orders do), and waits until each parcel was checked once
 * more; it reports the wall time, the app's CPU time (`/proc`) and the PostgreSQL backends' per parcel checked, and
 * the batch reads the fake answered.
 *
 * - Sweep 1, *every parcel moves*: each read brings three events the timeline lacks, and the shipment moves from
 *   `pending_pickup` to `in_transit` (a `shipment.updated` event; no webhook subscription, so nothing is queued).
 * - Sweeps 2 … 1 + `--rounds`, *nothing new*: the same answer again — the common case of a parcel on its way.
 * - Then the app stops and the raw baseline (`baseline/poll.ts`: the poller's own claim and `checked` statements, the
 *   same batch reads, no domain) makes `--rounds` sweeps of the same parcels.
 *
 * Limits: the Ecotrack adapter declares the 50 calls a minute its courier documents, and the transport paces each
 * account at 80 % of it (decision 0032), so an account's batch reads are spaced 1.5 s apart: a sweep of one account's
 * parcels lasts at least its reads at that pace, and the measured sweeps are paced as production would be. What the
 * limits imply at the production defaults is also projected: the poller's own budget (`TrackingSchedule.callsPerCycle`,
 * 80 % of each limit, fractions of a call carried from cycle to cycle) replayed over the poller's claims
 * (`Poller.defaults`: 2 000 checks claimed every 30 s), for Ecotrack's and Yalidine's limits, one account and many —
 * printed first, and alone with `--project-only`.
 *
 * The app runs pinned to CPU 0 and this process (the fake, the progress queries) on CPU 1 when `taskset` exists;
 * PostgreSQL is not pinned.
 *
 *   npm run bench:polling -- [--parcels 100000] [--accounts 1,100] [--delay 50] [--interval 10] [--rounds 2]
 *                            [--skip-baseline] [--project-only] [--statements] [--node-option <flag>]...
 *
 * `--statements`: instead of measuring, one sweep of each kind with `log_statement = 'all'` on the scratch database:
 * the statements the app sends per parcel checked, by shape, read from the server's log (a few thousand parcels are
 * enough: `--parcels 2000`). The empty claims of the poller's last cycles (every `--interval`) are among them.
 *
 * `--interval` is the app's `SHIPMENT_POLL_INTERVAL_MS` (and the baseline's): the pause between cycles of 2 000.
 *
 * Needs `psql`, and a server where it may create a scratch database (dropped at the end): `DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/test. Never part of `npm test`.
 */
import { spawn } from "node:child_process"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { adapter as ecotrackAdapter } from "@tawsil/adapter-ecotrack"
import { adapter as yalidineAdapter } from "@tawsil/adapter-yalidine"
import type { RateLimit } from "@tawsil/courier/CourierAdapter"
import * as Pace from "@tawsil/courier/Pace"
import { Poller, TrackingSchedule } from "@tawsil/shipments"
import { Duration } from "effect"
import { onCpu0, pinSelfToCpu1, sampler } from "./host.ts"
import * as FakeCouriers from "./shipments/fakeCouriers.ts"
import {
  type App,
  backends,
  createAccounts,
  type Seed,
  secretKey,
  seedParcels,
  setUpStore,
  sleep,
  startApp,
  statementsPer,
  stopChild
} from "./shipments/setup.ts"
import { logOffset, psql, scratchDatabase } from "./store/postgres.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    parcels: { type: "string", default: "100000" },
    accounts: { type: "string", default: "1,100" },
    delay: { type: "string", default: "50" },
    interval: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    "skip-baseline": { type: "boolean", default: false },
    "project-only": { type: "boolean", default: false },
    statements: { type: "boolean", default: false },
    "node-option": { type: "string", multiple: true, default: [] }
  }
})
const parcels = Number(values.parcels)
const accountCounts = values.accounts.split(",").map(Number)
const delayMs = Number(values.delay)
const intervalMs = Number(values.interval)
const rounds = Number(values.rounds)
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** No progress for this long ends the run with what is known (a courier answer the adapter refuses, say). */
const STALL_MS = 120_000

// ---------------------------------------------------------------------------------------------------------------
// What the documented limits imply (projected)

const limit = (count: number, window: Duration.Duration): RateLimit => ({ limit: count, window })

const LIMITS: ReadonlyArray<{ readonly name: string; readonly limits: ReadonlyArray<RateLimit> }> = [
  // adapters/ecotrack/README.md, "Quirks" and "Unverified" 13: 50/min documented twice; the adapter declares it.
  { name: "Ecotrack, 50 a minute (declared)", limits: ecotrackAdapter.rateLimits },
  // The same, "Unverified" 13: 1 500 an hour and 15 000 a day have one source.
  {
    name: "Ecotrack, + 1 500/h and 15 000/day (one source)",
    limits: [limit(50, Duration.minutes(1)), limit(1500, Duration.hours(1)), limit(15_000, Duration.days(1))]
  },
  { name: "Yalidine (5/s, 50/min, 1 000/h, 10 000/day, declared)", limits: yalidineAdapter.rateLimits }
]

/**
 * The poller's cycles (Poller.ts) replayed in simulated time, without a database or a courier: each cycle claims by
 * account (`TrackingStore.claimDue`: the accounts of the most overdue checks first, at most `perAccount` of each, up to
 * `claim` in all; parcel n belongs to account n mod `accounts`, due in the order n); each account reads as many batches
 * of `BATCH_SIZE` as its budget allows (accrued with the time since it was last asked, at most an interval's share,
 * at least one call), the rest is released, due as it was. The transport spaces an account's calls at its sustained
 * pace (`Pace.sustainedInterval`), the accounts of a cycle at once: a cycle lasts as long as its busiest account's
 * reads. A cycle that read all it claimed is followed at once; any other waits `every`. Answers the cycles until every
 * parcel was read once, the batch reads made and the minutes it took — the courier's answer time and the cycles' own
 * work left out (measured below).
 */
const replay = (limits: ReadonlyArray<RateLimit>, total: number, accounts: number, options: Poller.Options) => {
  const share = TrackingSchedule.callsPerCycle(limits, options.every)
  const gap = limits.length === 0 ? 0 : Duration.toMillis(Pace.sustainedInterval(limits)!)
  const perAccount = options.perAccount ?? Math.ceil(options.claim / 4)
  const credits = new Map<number, { calls: number; at: number }>()
  /** When each account's next call may go (the pacer's queue). */
  const free = new Map<number, number>()
  let remaining = Array.from({ length: total }, (_, n) => n)
  let now = 0
  let cycles = 0
  let calls = 0
  while (remaining.length > 0) {
    cycles++
    // By account, in the order of each account's most overdue check (a Map keeps the order of first insertion).
    const byAccount = new Map<number, Array<number>>()
    for (const n of remaining) {
      const group = byAccount.get(n % accounts) ?? []
      if (group.length < perAccount) group.push(n)
      byAccount.set(n % accounts, group)
    }
    const read = new Set<number>()
    let claimed = 0
    let released = 0
    let end = now
    for (const [account, due] of byAccount) {
      if (claimed >= options.claim) break
      const group = due.slice(0, options.claim - claimed)
      claimed += group.length
      const before = credits.get(account)
      const accrued =
        before === undefined
          ? share
          : before.calls + TrackingSchedule.callsPerCycle(limits, Duration.millis(now - before.at))
      const available = Math.min(Math.max(share, 1), accrued)
      const made = Math.min(Math.floor(available), Math.ceil(group.length / TrackingSchedule.BATCH_SIZE))
      if (Number.isFinite(share)) credits.set(account, { calls: available - made, at: now })
      calls += made
      if (made > 0) {
        const first = Math.max(now, free.get(account) ?? 0)
        free.set(account, first + made * gap)
        end = Math.max(end, first + (made - 1) * gap)
      }
      const reads = group.slice(0, made * TrackingSchedule.BATCH_SIZE)
      for (const n of reads) read.add(n)
      released += group.length - reads.length
    }
    remaining = remaining.filter((n) => !read.has(n))
    now = end + (claimed > 0 && released === 0 ? 0 : Duration.toMillis(options.every))
    if (cycles > 1_000_000) throw new Error("the replay does not end")
  }
  return { cycles, calls, perCycle: share, minutesAtLeast: now / 60_000 }
}

/** The parcels one account can keep checked every `interval` under `limits`, reading full batches. */
const sustainable = (limits: ReadonlyArray<RateLimit>, every: Duration.Duration, interval: Duration.Duration) =>
  (TrackingSchedule.callsPerCycle(limits, every) / Duration.toMillis(every)) *
  Duration.toMillis(interval) *
  TrackingSchedule.BATCH_SIZE

const count = (n: number) => (Number.isFinite(n) ? Math.floor(n).toLocaleString("en") : "unlimited")

const project = () => {
  const options = Poller.defaults
  const inTransit = TrackingSchedule.nextCheck("in_transit", false)!
  const pushed = TrackingSchedule.nextCheck("in_transit", true)!
  const lines = [
    `projected from the schedule, not measured: ${count(parcels)} parcels, the poller's defaults (${count(options.claim)} claimed every ${Duration.format(options.every)}), ${TrackingSchedule.HEADROOM * 100} % of each limit`,
    "",
    "| limits | accounts | parcels an account | reads an account an interval | cycles to read each parcel once | sweep at least (min) | batch reads | parcels an account keeps at the 2 h check | at the 12 h check (couriers that push) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  ]
  for (const { name, limits } of LIMITS) {
    for (const accounts of [...new Set([1, 10, 100, 1000, ...accountCounts])].sort((a, b) => a - b)) {
      const { cycles, calls, perCycle, minutesAtLeast } = replay(limits, parcels, accounts, options)
      lines.push(
        `| ${name}${limits.length === 0 ? " (none)" : ""} | ${accounts} | ${count(Math.ceil(parcels / accounts))} | ${
          Number.isFinite(perCycle) ? perCycle.toFixed(2) : "unlimited"
        } | ${cycles} | ${Number.isFinite(minutesAtLeast) ? minutesAtLeast.toFixed(minutesAtLeast < 10 ? 1 : 0) : "0.0"} | ${count(calls)} | ${count(
          sustainable(limits, options.every, inTransit)
        )} | ${count(sustainable(limits, options.every, pushed))} |`
      )
    }
  }
  lines.push(
    "",
    `one instance claims ${count(options.claim)} parcels a cycle and starts the next cycle at once while the accounts' limits let it read all it claims: its ceiling is then its own speed (measured below), not the interval`
  )
  console.log(lines.join("\n"))
}

// ---------------------------------------------------------------------------------------------------------------
// Measured sweeps

/**
 * Every check due now, in the order the parcels were made (so accounts interleave); returns once the statement
 * committed, which the poller may already be claiming from.
 */
const makeDue = (databaseUrl: string) =>
  psql(
    databaseUrl,
    "UPDATE shipment_checks SET due_at = now() - interval '1 hour' + order_id * interval '1 microsecond', lease_until = NULL"
  )

/** The bench's own statements on the database (`makeDue`, `remaining`, `backends`, the count), left out of a trace. */
const OWN = [
  /^UPDATE shipment_checks SET due_at = now\(\) - interval/,
  /^SELECT count\(\*\) FROM shipment_checks/,
  /pg_stat_activity/
]

const remaining = (databaseUrl: string, sweep: number) =>
  Number(psql(databaseUrl, `SELECT count(*) FROM shipment_checks WHERE checks < ${sweep}`))

interface Sweep {
  readonly wallMs: number
  readonly checked: number
  readonly calls: number
  readonly inFlightMax: number
  readonly pollerCpuMs: number
  readonly databaseCpuMs: number
}

/** One sweep by the process `pid` (the app or the baseline): every check made due, until each was checked once more. */
const sweep = async (
  databaseUrl: string,
  pid: number,
  fake: FakeCouriers.EcotrackFake,
  number: number
): Promise<Sweep> => {
  const cpu = sampler()
  cpu.follow([pid])
  cpu.follow(backends(databaseUrl))
  const before = fake.counts()
  makeDue(databaseUrl)
  const started = performance.now()
  let left = remaining(databaseUrl, number)
  let progressAt = started
  while (left > 0) {
    await sleep(200)
    const now = remaining(databaseUrl, number)
    if (now < left) progressAt = performance.now()
    left = now
    if (performance.now() - progressAt > STALL_MS) {
      cpu.stop()
      throw new Error(`sweep ${number}: ${left} parcels not checked, no progress for ${STALL_MS / 1000} s`)
    }
  }
  const wallMs = performance.now() - started
  // Connections the pool opened during the sweep count from their start.
  const serving = backends(databaseUrl)
  cpu.follow(serving, true)
  const spent = cpu.stop()
  const after = fake.counts()
  return {
    wallMs,
    checked: Number(psql(databaseUrl, "SELECT count(*) FROM shipment_checks")),
    calls: after.calls - before.calls,
    inFlightMax: after.inFlightMax,
    pollerCpuMs: spent([pid]),
    databaseCpuMs: spent(serving)
  }
}

const report = (name: string, result: Sweep) => {
  const per = (ms: number) => Math.round((ms * 1000) / result.checked)
  console.log(
    `${name}: ${result.checked} parcels checked in ${(result.wallMs / 1000).toFixed(1)} s = ${Math.round(
      (result.checked * 1000) / result.wallMs
    )}/s; ${result.calls} batch reads (${(result.checked / result.calls).toFixed(1)} parcels a read, at most ${
      result.inFlightMax
    } at once at the fake); CPU ${(result.pollerCpuMs / 1000).toFixed(1)} s = ${per(result.pollerCpuMs)} µs a parcel; ` +
      `PostgreSQL backends ${(result.databaseCpuMs / 1000).toFixed(1)} s = ${per(result.databaseCpuMs)} µs a parcel; ` +
      `load average ${Os.loadavg()[0]!.toFixed(1)}`
  )
  return result
}

/** The raw baseline (`baseline/poll.ts`) on the database, pinned as the app is; ready once it printed so. */
const startBaseline = (databaseUrl: string, origin: string) =>
  new Promise<ReturnType<typeof spawn>>((resolve, reject) => {
    const [command, ...argv] = [
      ...onCpu0,
      process.execPath,
      "--conditions=@tawsil/source",
      Path.join(ROOT, "apps/bench/src/baseline/poll.ts")
    ]
    const child = spawn(command!, argv, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: databaseUrl,
        ORIGIN: origin,
        CLAIM: String(Poller.defaults.claim),
        INTERVAL_MS: String(intervalMs)
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout.once("data", () => resolve(child))
    child.once("exit", (code) => reject(new Error(`the baseline exited with ${code}`)))
  })

const scenario = async (accounts: number) => {
  const database = scratchDatabase(adminUrl)
  const fake = await FakeCouriers.ecotrack({ delayMs })
  const appEnv = {
    TAWSIL_SECRET_KEY: secretKey(),
    TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${fake.origin}`,
    SHIPMENT_POLL_INTERVAL_MS: String(intervalMs)
  }
  let app: App | undefined
  try {
    app = await startApp(database.url, appEnv, values["node-option"])
    const store = await setUpStore(database.url, app)
    const accountIds = await createAccounts(
      app,
      store,
      Array.from({ length: accounts }, (_, i) => ({
        courier: "dhd",
        label: `DHD ${i + 1}`,
        credentials: { token: `bench-dhd-token-${String(i).padStart(6, "0")}` }
      }))
    )
    const seed: Seed = {
      store,
      accounts: accountIds,
      courier: "dhd",
      parcels,
      trackingPrefix: "ECB",
      rawStatus: "prete_a_expedier",
      status: "pending_pickup"
    }
    const seededMs = seedParcels(database.url, seed)
    if (ecotrackAdapter.rateLimits.length > 0) {
      console.log("note: the Ecotrack adapter now declares rate limits: the sweeps below are paced by them")
    }
    console.log(
      `\n${parcels} parcels over ${accounts} DHD account(s) (Ecotrack), seeded in ${(seededMs / 1000).toFixed(1)} s; ` +
        `batch reads answered after ${delayMs} ms; SHIPMENT_POLL_INTERVAL_MS=${intervalMs}; ` +
        `${Os.cpus().length} CPUs, load average ${Os.loadavg()
          .map((l) => l.toFixed(1))
          .join(" ")}`
    )
    if (values.statements) {
      // The app's connections log their statements once opened after this: a new app.
      await stopChild(app.child)
      database.logStatements("all")
      app = await startApp(database.url, appEnv, values["node-option"])
      for (const [number, kind] of [
        [1, "every parcel moves"],
        [2, "nothing new"]
      ] as const) {
        const offset = logOffset()
        await sweep(database.url, app.child.pid!, fake, number)
        console.log(`sweep ${number}, ${kind}: ${statementsPer(database.name, offset, parcels, "a parcel", OWN)}`)
      }
      database.logStatements(null)
      return
    }
    const pid = app.child.pid!
    report("sweep 1, every parcel moves (tawsil poller)", await sweep(database.url, pid, fake, 1))
    const moved = psql(
      database.url,
      `SELECT count(*) FILTER (WHERE status = 'in_transit') || ' in transit, ' ||
        (SELECT count(*) FROM order_shipment_events) || ' timeline events' FROM order_shipments`
    )
    console.log(`  after sweep 1: ${moved} (expected ${parcels} and ${4 * parcels})`)
    for (let round = 1; round <= rounds; round++) {
      report(`sweep ${round + 1}, nothing new (tawsil poller)`, await sweep(database.url, pid, fake, round + 1))
    }
    await stopChild(app.child)
    app = undefined
    if (values["skip-baseline"]) return
    const baseline = await startBaseline(database.url, fake.origin)
    try {
      for (let round = 1; round <= rounds; round++) {
        report(
          `baseline sweep ${round}, the same claim and checked statements (raw loop)`,
          await sweep(database.url, baseline.pid!, fake, rounds + 1 + round)
        )
      }
    } finally {
      await stopChild(baseline)
    }
  } finally {
    if (app !== undefined) await stopChild(app.child)
    await fake.close()
    database.drop()
  }
}

pinSelfToCpu1()
project()
if (!values["project-only"]) {
  for (const accounts of accountCounts) await scenario(accounts)
}
