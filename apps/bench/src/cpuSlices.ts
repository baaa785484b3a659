/**
 * Server CPU per request of several servers measured side by side: every server is started once (pinned to CPU 0),
 * then the load (this process, CPU 1) alternates between them in short slices, so that whatever else the machine
 * runs hits them all alike. Prints, per server, the median CPU time (user + system, from /proc) per request over
 * the slices. Meant for comparing two builds of the app (say, two checkouts) on this noisy machine.
 *
 *   node --conditions=@tawsil/source apps/bench/src/cpuSlices.ts before=/path/to/checkout after=. \
 *     [--path /v1/orders] [--get] [--slice 6000] [--slices 12] [--connections 50]
 *
 * A server is `label=dir` (the app of that checkout, `npm start`'s entry point) or `label=dir:entry` (another entry
 * point, such as apps/bench/src/baseline/createSandbox.ts). POSTs the sandbox order unless `--get`. Never part of
 * `npm test`.
 */

import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import autocannon from "autocannon"
import { cpuMillis, freePort, median, onCpu0, pinSelfToCpu1 } from "./host.ts"
import { sandboxOrder } from "./sandboxOrder.ts"

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    path: { type: "string", default: "/v1/orders" },
    get: { type: "boolean", default: false },
    slice: { type: "string", default: "6000" },
    slices: { type: "string", default: "12" },
    connections: { type: "string", default: "50" }
  }
})

interface Server {
  readonly label: string
  readonly child: ChildProcess
  readonly url: string
  readonly scratch: string
  readonly perRequest: Array<number>
}

const start = async (spec: string): Promise<Server> => {
  const [label, target] = spec.split("=") as [string, string]
  const [dir, entry = "apps/http/src/main.ts"] = target.split(":") as [string, string?]
  const root = Path.resolve(dir)
  const port = await freePort()
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-cpu-"))
  const [command, ...argv] = [...onCpu0, process.execPath, "--conditions=@tawsil/source", entry]
  const child = spawn(command!, argv, {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(port),
      SHIPPING_PORT: String(port),
      STORE_PORT: "0",
      DATA_DIR: Path.join(scratch, "data"),
      SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
      SHIPPING_MAX_CONCURRENT_CREATES: "100000"
    }
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 600; attempt++) {
    if (
      await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false
      )
    ) {
      return { label, child, url, scratch, perRequest: [] }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  child.kill("SIGKILL")
  throw new Error(`${label} did not answer /health within 60 s`)
}

const load = (server: Server, amount: number) =>
  autocannon({
    url: `${server.url}${values.path}`,
    connections: Number(values.connections),
    amount,
    pipelining: 1,
    ...(values.get
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sandboxOrder) })
  })

pinSelfToCpu1()
const servers: Array<Server> = []
try {
  for (const spec of positionals) servers.push(await start(spec))
  const slice = Number(values.slice)
  for (const server of servers) await load(server, slice * 3)
  for (let round = 0; round < Number(values.slices); round++) {
    // Reverse the order every other round, so that no server always follows the same one.
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const before = cpuMillis(server.child.pid!) ?? 0
      const result = await load(server, slice)
      server.perRequest.push((((cpuMillis(server.child.pid!) ?? 0) - before) * 1e3) / result.requests.total)
    }
  }
  console.log(
    `${values.slices} slices of ${slice} requests to ${values.path}, ${values.connections} connections, servers on CPU 0`
  )
  for (const server of servers) {
    console.log(`${server.label}: ${median(server.perRequest).toFixed(0)} µs of server CPU per request (median)`)
  }
} finally {
  for (const server of servers) {
    server.child.kill("SIGTERM")
    await new Promise((resolve) => server.child.once("exit", resolve))
    Fs.rmSync(server.scratch, { recursive: true, force: true })
  }
}
