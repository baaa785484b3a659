/**
 * Benchmarks: each scenario runs one of our routes and a raw `node:http` baseline doing the same work, in the same
 * run, on the same database, one after the other, and prints both with their ratio. Servers run pinned to CPU 0
 * and the load generator (autocannon, in this process) to CPU 1 when `taskset` is available.
 *
 *   npm run bench -- [--scenario health|create-sandbox|create-floor|create-refused] [--duration 10] [--connections 50] [--warmup 3] [--log-level info]
 *                    [--node-option <flag>]...   (node flags for both servers, ours and the baseline)
 *                    [--gc]                      (each server's scavenges in the measured window: count, bytes surviving each, pauses)
 *                    [--callgrind <n>]           (instructions per request instead: see `instructionsPerRequest`)
 *                    [--otlp]                    (our server exports traces and metrics to a loopback collector)
 *
 * Besides requests per second, each row gives the server's CPU time per request (user + system, read from /proc
 * around the measured run): on this shared 2-core machine the request rate moves with whatever else runs, and with
 * the load generator's own limit, while the CPU a request costs the server moves much less.
 *
 * Uses the embedded database in a scratch directory, or `DATABASE_URL` when set. Never part of `npm test`.
 */

import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { callgrind, cpuMillis, freePort, hasTaskset, median, onCpu0, pinSelfToCpu1 } from "./host.ts"
import { sandboxOrder } from "./sandboxOrder.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const { values } = parseArgs({
  options: {
    scenario: { type: "string", default: "health" },
    "node-option": { type: "string", multiple: true, default: [] },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    warmup: { type: "string", default: "3" },
    "log-level": { type: "string", default: "info" },
    rounds: { type: "string", default: "3" },
    callgrind: { type: "string" },
    otlp: { type: "boolean", default: false },
    gc: { type: "boolean", default: false }
  }
})

/**
 * With `--otlp`, a loopback OTLP/HTTP collector that accepts every export (200) and counts what it received, and the
 * variable that points our server at it: the traced path's cost beside the untraced one's (issue 23).
 */
const otlp = values.otlp
  ? await new Promise<{ env: Record<string, string>; received: () => number }>((resolve) => {
      let received = 0
      const server = Http.createServer((request, response) => {
        request.on("data", (chunk: Buffer) => {
          received += chunk.length
        })
        request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"))
      })
      server.unref()
      server.listen(0, "127.0.0.1", () =>
        resolve({
          env: {
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
            OTEL_BSP_SCHEDULE_DELAY: "1000"
          },
          received: () => received
        })
      )
    })
  : undefined

interface Target {
  readonly name: string
  readonly entry: string
  /** The environment, given the port the server must listen on. */
  readonly env: (port: number) => Record<string, string>
}

interface Scenario {
  readonly path: string
  /** POST this JSON body; GET when absent. */
  readonly body?: unknown
  /** The status every answer must have (`--callgrind` checks it); any 2xx when absent. */
  readonly status?: number
  readonly ours: Target
  readonly baseline: Target
}

const logLevel = values["log-level"]

/** The raw `node:http` server doing a sandbox create's validation and work: the create scenarios' baseline. */
const rawCreate: Target = {
  name: "raw node:http, same validation and sandbox create",
  entry: "apps/bench/src/baseline/createSandbox.ts",
  env: (port) => ({ PORT: String(port) })
}

/** Our app serving the shipping API on `port` (the store API on a free port, metrics off the measured one). */
const shippingApp = (database: Record<string, string>, port: number) => ({
  ...database,
  ...otlp?.env,
  METRICS_PORT: "0",
  SHIPPING_PORT: String(port),
  STORE_PORT: "0",
  LOG_LEVEL: logLevel
})

const scenarios = (database: Record<string, string>): Record<string, Scenario> => ({
  "create-sandbox": {
    path: "/v1/orders",
    body: sandboxOrder,
    ours: {
      name: `tawsil POST /v1/orders sandbox (HttpApi, LOG_LEVEL=${logLevel}${otlp ? ", OTLP export" : ""})`,
      entry: "apps/http/src/main.ts",
      env: (port) => ({
        ...shippingApp(database, port),
        SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
        SHIPPING_MAX_CONCURRENT_CREATES: "100000"
      })
    },
    baseline: rawCreate
  },
  // The floor of the stack: effect's HttpApi with our create's schemas and the raw server's work, nothing of ours
  // around it (issue 22: what one stack can reach).
  "create-floor": {
    path: "/v1/orders",
    body: sandboxOrder,
    ours: {
      name: "effect HttpApi alone: the create's schemas, the raw server's work",
      entry: "apps/bench/src/baseline/createFloor.ts",
      env: (port) => ({ PORT: String(port) })
    },
    baseline: rawCreate
  },
  // Every measured create is refused by the client's window (one request a minute from one address): what a flood
  // of them costs the server that also serves real callers (issue 22).
  "create-refused": {
    path: "/v1/orders",
    body: sandboxOrder,
    status: 429,
    ours: {
      name: `tawsil POST /v1/orders refused by the client window (429, LOG_LEVEL=${logLevel}${otlp ? ", OTLP export" : ""})`,
      entry: "apps/http/src/main.ts",
      env: (port) => ({ ...shippingApp(database, port), SHIPPING_RATE_LIMIT_PER_MINUTE: "1" })
    },
    baseline: {
      name: "raw node:http, the same 429 envelope, body unread",
      entry: "apps/bench/src/baseline/createRefused.ts",
      env: (port) => ({ PORT: String(port) })
    }
  },
  health: {
    path: "/health",
    ours: {
      name: `tawsil GET /health (HttpApi, LOG_LEVEL=${logLevel})`,
      entry: "apps/http/src/main.ts",
      env: (port) => ({ ...database, SHIPPING_PORT: String(port), STORE_PORT: "0", LOG_LEVEL: logLevel })
    },
    baseline: {
      name: "raw node:http, same ping",
      entry: "apps/bench/src/baseline/health.ts",
      env: (port) => ({ ...database, PORT: String(port) })
    }
  }
})

/**
 * Starts a server and waits until `path` answers 200 (30 s, or 10 min under valgrind). Its stdout (access logs) goes
 * to /dev/null.
 */
const start = async (
  target: Target,
  path: string,
  prefix: ReadonlyArray<string> = onCpu0,
  nodeOptions: ReadonlyArray<string> = [],
  stdout: "ignore" | "pipe" = "ignore"
) => {
  const port = await freePort()
  const args = [
    ...nodeOptions,
    ...(values["node-option"] ?? []),
    "--conditions=@tawsil/source",
    Path.join(ROOT, target.entry)
  ]
  const [command, ...argv] = [...prefix, process.execPath, ...args]
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...target.env(port) },
    stdio: ["ignore", stdout, "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  const attempts = prefix === onCpu0 ? 300 : 6000
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (child.exitCode !== null) throw new Error(`${target.name} exited with ${child.exitCode}`)
    const ok = await fetch(`${url}${path}`).then(
      (response) => response.ok,
      () => false
    )
    if (ok) return { child, url }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill("SIGKILL")
  throw new Error(`${target.name} did not answer ${path} within ${attempts / 10} s`)
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

interface Result {
  readonly name: string
  readonly requestsPerSecond: number
  /** Server CPU time per request, in microseconds. */
  readonly cpuMicros: number | undefined
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
  /** With `--gc`: the young generation's collections in the measured window. */
  readonly scavenges?: Scavenges
}

interface Scavenges {
  readonly count: number
  /** Bytes still alive after a scavenge, on average: what the young generation copies or promotes each time. */
  readonly survivedBytes: number
  /** Their pauses, in all. */
  readonly pauseMs: number
}

const SURVIVED = /\bnew_space_survived=([0-9.]+)/
const PAUSE = /\bpause=([0-9.]+)/

/**
 * `--gc`: reads V8's `--trace-gc-nvp` lines from a server's stdout (which is drained, the access log with it) and sums
 * the scavenges between `begin` and `end`.
 */
const scavengeReader = (child: ChildProcess) => {
  let counting = false
  let count = 0
  let survivedBytes = 0
  let pauseMs = 0
  let rest = ""
  const field = (line: string, pattern: RegExp) => Number(pattern.exec(line)?.[1] ?? 0)
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (rest + chunk).split("\n")
    rest = lines.pop() ?? ""
    if (!counting) return
    for (const line of lines) {
      if (!line.includes(" gc=s ")) continue
      count++
      survivedBytes += field(line, SURVIVED)
      pauseMs += field(line, PAUSE)
    }
  })
  return {
    begin: () => {
      counting = true
    },
    end: (): Scavenges => {
      counting = false
      return { count, survivedBytes: count === 0 ? 0 : survivedBytes / count, pauseMs }
    }
  }
}

/** What autocannon sends for a scenario: a JSON POST of its body, or a GET. */
const requestOf = (body: unknown) =>
  body === undefined
    ? {}
    : { method: "POST" as const, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }

const load = async (url: string, seconds: number, body: unknown) =>
  autocannon({
    url,
    connections: Number(values.connections),
    duration: seconds,
    pipelining: 1,
    ...requestOf(body)
  })

const measure = async (target: Target, scenario: Scenario): Promise<Result> => {
  const { child, url } = await start(
    target,
    "/health",
    onCpu0,
    values.gc ? ["--trace-gc-nvp"] : [],
    values.gc ? "pipe" : "ignore"
  )
  const scavenges = values.gc ? scavengeReader(child) : undefined
  try {
    await load(`${url}${scenario.path}`, Number(values.warmup), scenario.body)
    const before = cpuMillis(child.pid!)
    scavenges?.begin()
    const result = await load(`${url}${scenario.path}`, Number(values.duration), scenario.body)
    const after = cpuMillis(child.pid!)
    return {
      ...(scavenges === undefined ? {} : { scavenges: scavenges.end() }),
      name: target.name,
      requestsPerSecond: result.requests.average,
      cpuMicros:
        before === undefined || after === undefined ? undefined : ((after - before) * 1e3) / result.requests.total,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx
    }
  } finally {
    await stop(child)
  }
}

/**
 * `--callgrind <n>`: instructions per request on each server's main thread, counted by callgrind after 5 × `n`
 * requests of warm-up (10 connections), for `n` requests. Unlike rates and CPU times, a machine shared with other work
 * does not move them.
 */
const instructionsPerRequest = async (target: Target, scenario: Scenario, requests: number) => {
  const counter = callgrind()
  const { child, url } = await start(target, "/health", counter.prefix, counter.nodeOptions)
  try {
    // `check`: every answer must have the scenario's status (the warm-up of a refusal scenario opens the window).
    // Under valgrind a run can outlast the client's one-minute window: a refusal scenario then sees one create
    // admitted per minute the run started, which is allowed (its cost, spread over the run, is a few hundred
    // instructions a request).
    const run = (amount: number, check: boolean) =>
      new Promise<void>((resolve, reject) => {
        const begun = Date.now()
        autocannon(
          {
            url: `${url}${scenario.path}`,
            connections: 10,
            amount,
            pipelining: 1,
            ...requestOf(scenario.body)
          },
          (error, result) => {
            if (error) return reject(error)
            const expected = scenario.status
            const wrong =
              expected === undefined
                ? result.non2xx
                : check
                  ? Object.entries(result.statusCodeStats ?? {}).reduce(
                      (sum, [status, { count }]) => (Number(status) === expected ? sum : sum + (count ?? 0)),
                      0
                    )
                  : 0
            const reopened = expected === undefined ? 0 : Math.ceil((Date.now() - begun) / 60_000)
            if (wrong > reopened) return reject(new Error(`${target.name}: ${wrong} answers not ${expected ?? "2xx"}`))
            resolve()
          }
        )
      })
    await run(5 * requests, false)
    await counter.count(child.pid!, () => run(requests, true))
  } finally {
    await stop(child)
  }
  return {
    perRequest: counter.totals().main / requests,
    compilerPerRequest: counter.compiler() / requests,
    idlePerRequest: counter.idle() / requests,
    dumps: counter.dir
  }
}

const row = (round: number, r: Result) =>
  `| ${round} | ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.cpuMicros === undefined ? "–" : Math.round(r.cpuMicros)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |${r.scavenges === undefined ? "" : ` ${r.scavenges.count} | ${Math.round(r.scavenges.survivedBytes / 1024)} | ${Math.round(r.scavenges.pauseMs)} |`}`

const main = async () => {
  pinSelfToCpu1()
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-bench-"))
  const database: Record<string, string> = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL }
    : { DATA_DIR: Path.join(scratch, "data") }
  const scenario = scenarios(database)[values.scenario]
  if (scenario === undefined) throw new Error(`unknown scenario ${values.scenario}`)
  try {
    if (values.callgrind !== undefined) {
      const requests = Number(values.callgrind)
      const ours = await instructionsPerRequest(scenario.ours, scenario, requests)
      const baseline = await instructionsPerRequest(scenario.baseline, scenario, requests)
      const count = (n: number) => Math.round(n).toLocaleString("en")
      // A request's own instructions: without V8's compiler and without what the process does idle (`callgrind`).
      const net = (r: typeof ours) => r.perRequest - r.compilerPerRequest - r.idlePerRequest
      console.log(
        [
          `scenario ${values.scenario}, callgrind: instructions per request on the main thread (${requests} requests after ${5 * requests} of warm-up, 10 connections, database ${process.env.DATABASE_URL ? "server" : "embedded"})`,
          ...(
            [
              [scenario.ours.name, ours],
              [scenario.baseline.name, baseline]
            ] as const
          ).map(
            ([name, r]) =>
              `- ${name}: ${count(r.perRequest)}, of which V8's optimising compiler ${count(r.compilerPerRequest)}; the same time idle ${count(r.idlePerRequest)}; net ${count(net(r))} (dumps in ${r.dumps})`
          ),
          `ratio baseline/ours: ${(baseline.perRequest / ours.perRequest).toFixed(2)}x; net of the compiler and the idle background: ${(net(baseline) / net(ours)).toFixed(2)}x`
        ].join("\n")
      )
      return
    }
    // Alternate the two servers round by round, so that drift on a noisy machine hits both alike.
    const rows: Array<string> = []
    const ratios: Array<number> = []
    const cpuRatios: Array<number> = []
    for (let round = 1; round <= Number(values.rounds); round++) {
      const ours = await measure(scenario.ours, scenario)
      const baseline = await measure(scenario.baseline, scenario)
      ratios.push(ours.requestsPerSecond / baseline.requestsPerSecond)
      if (ours.cpuMicros !== undefined && baseline.cpuMicros !== undefined) {
        cpuRatios.push(baseline.cpuMicros / ours.cpuMicros)
      }
      rows.push(row(round, ours), row(round, baseline))
    }
    console.log(
      [
        `scenario ${values.scenario}: ${values.connections} connections, ${values.duration} s after ${values.warmup} s warm-up, ${values.rounds} rounds, database ${process.env.DATABASE_URL ? "server" : "embedded"}, ${hasTaskset ? "servers on CPU 0, load on CPU 1" : "not pinned"}${values["node-option"]?.length ? `, node ${values["node-option"].join(" ")}` : ""}`,
        "",
        `| round | server | req/s | CPU µs/req | p50 ms | p99 ms | errors | non-2xx |${values.gc ? " scavenges | KiB survived each | scavenge pauses ms |" : ""}`,
        `| --- | --- | --- | --- | --- | --- | --- | --- |${values.gc ? " --- | --- | --- |" : ""}`,
        ...rows,
        "",
        `ratio ours/baseline (req/s) per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)}x`,
        ...(cpuRatios.length === 0
          ? []
          : [
              `ratio baseline/ours (server CPU per request) per round: ${cpuRatios.map((r) => r.toFixed(2)).join(", ")}; median ${median(cpuRatios).toFixed(2)}x`
            ]),
        ...(otlp === undefined ? [] : [`OTLP bytes received by the loopback collector: ${otlp.received()}`]),
        `load average: ${Os.loadavg()
          .map((load) => load.toFixed(2))
          .join(" ")}`
      ].join("\n")
    )
  } finally {
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
