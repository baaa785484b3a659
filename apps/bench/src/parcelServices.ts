/**
 * Issue 21's two reported figures, in one run:
 *
 * 1. Commune resolution per call (µs), in process, over the bundled dataset: every commune's own name (the exact
 *    path a well-typed order takes), the same names misspelled (one interior letter dropped: the ranked path), and
 *    names of no commune (the path that ends in suggestions).
 * 2. The rate comparison's wall time against the slowest single courier's, through the app: ten couriers (nine
 *    Ecotrack tenants, each pinned to its own loopback fake that answers `get/fees` after its own delay, 40 to 360 ms,
 *    and the sandbox) compared in one `POST /v1/rates/compare`, then the slowest alone through `POST /v1/rates`.
 *    The comparison should cost the slowest courier's time plus our overhead, not the sum.
 *
 *   npm run bench:parcels -- [--rounds 5]
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { CommuneResolver, Communes } from "@tawsil/reference"
import { Effect } from "effect"
import { median } from "./host.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } })
const ROUNDS = Number(values.rounds)

// --- 1. Commune resolution ---------------------------------------------------------------------------------------

const resolution = async () => {
  const communes = await Effect.runPromise(Communes.loadBundled)
  const resolver = CommuneResolver.make(communes)
  const misspelled = (name: string) => (name.length > 4 ? name.slice(0, 2) + name.slice(3) : `${name}x`)
  const inputs = {
    exact: communes.map((commune) => [commune.wilayaCode, commune.name] as const),
    misspelled: communes.map((commune) => [commune.wilayaCode, misspelled(commune.name)] as const),
    unknown: communes.map((commune) => [commune.wilayaCode, `Zzyqv ${commune.wilayaCode}`] as const)
  }
  const rows: Array<string> = []
  for (const [name, cases] of Object.entries(inputs)) {
    const perRound: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.hrtime.bigint()
      for (let repeat = 0; repeat < 20; repeat++) for (const [wilaya, typed] of cases) resolver.resolve(wilaya, typed)
      perRound.push(Number(process.hrtime.bigint() - started) / 1e3 / (20 * cases.length))
    }
    const matched = cases.filter(([wilaya, typed]) => resolver.resolve(wilaya, typed)._tag === "Matched").length
    rows.push(
      `| ${name} | ${cases.length} | ${median(perRound).toFixed(1)} | ${Math.min(...perRound).toFixed(1)} | ${matched} |`
    )
  }
  console.log(
    "\n| input | names | µs per call (median of rounds) | best round | matched |\n| --- | --- | --- | --- | --- |"
  )
  for (const row of rows) console.log(row)
}

// --- 2. Rate comparison ------------------------------------------------------------------------------------------

const FEES = JSON.stringify({
  livraison: Array.from({ length: 58 }, (_, i) => ({ wilaya_id: i + 1, tarif: "650", tarif_stopdesk: "450" })),
  pickup: [],
  echange: [],
  recouvrement: [],
  retours: Array.from({ length: 58 }, (_, i) => ({ wilaya_id: i + 1, tarif: 250, tarif_stopdesk: 200 })),
  poids: { seuil: 5, surcharge_par_kg: 50 }
})

/** An Ecotrack tenant's fake that answers `get/fees` after `delayMs`. */
const startFake = (delayMs: number) =>
  new Promise<{ server: Http.Server; origin: string }>((resolve) => {
    const server = Http.createServer((request, response) => {
      request.resume()
      if (request.method === "GET" && request.url!.startsWith("/api/v1/get/fees")) {
        setTimeout(() => response.writeHead(200, { "content-type": "application/json" }).end(FEES), delayMs)
        return
      }
      response.writeHead(404).end()
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}` })
    )
  })

const startApp = (origins: string, dataDir: string) =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@tawsil/source", Path.join(ROOT, "apps/http/src/main.ts")], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATA_DIR: dataDir,
        SHIPPING_PORT: "0",
        STORE_PORT: "0",
        METRICS_PORT: "off",
        SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
        TAWSIL_COURIER_ORIGINS: origins
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let buffered = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const match = /"api":"shipping","url":"([^"]+)"/.exec(buffered)
      if (match) {
        child.stdout!.removeAllListeners("data")
        child.stdout!.resume()
        resolve({ child, url: match[1]! })
      }
    })
    child.once("exit", (code) => reject(new Error(`the app exited with ${code}`)))
  })

const post = async (url: string, body: unknown) => {
  const started = process.hrtime.bigint()
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const json = (await response.json()) as Record<string, unknown>
  return { status: response.status, json, ms: Number(process.hrtime.bigint() - started) / 1e6 }
}

const comparison = async () => {
  const delays = [40, 80, 120, 160, 200, 240, 280, 320, 360]
  const fakes = await Promise.all(delays.map(startFake))
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-parcels-"))
  // Nine named Ecotrack tenants with pinned origins, each sent to its own fake.
  const probe = await startApp("", Path.join(scratch, "probe"))
  const listed = (await (await fetch(`${probe.url}/v1/couriers?platform=ecotrack`)).json()) as ReadonlyArray<{
    key: string
    endpoint: string
    requiresBaseUrl: boolean
  }>
  probe.child.kill("SIGTERM")
  const tenants = listed.filter((entry) => !entry.requiresBaseUrl).slice(0, delays.length)
  const app = await startApp(
    tenants.map((tenant, index) => `${tenant.endpoint}=${fakes[index]!.origin}`).join(","),
    Path.join(scratch, "data")
  )
  try {
    const query = { fromWilaya: 16, toWilaya: 31, deliveryType: "home", codAmount: 4000 }
    const couriers = [
      ...tenants.map((tenant, index) => ({
        courier: tenant.key,
        credentials: { token: `bench-token-${index}-000000` }
      })),
      { courier: "sandbox" }
    ]
    const slowest = couriers[delays.length - 1]!
    const rows: Array<string> = []
    for (let round = 0; round <= ROUNDS; round++) {
      const compared = await post(`${app.url}/v1/rates/compare`, { couriers, query, timeoutMs: 5000 })
      const alone = await post(`${app.url}/v1/rates`, { ...slowest, query })
      const quotes = (compared.json.quotes as ReadonlyArray<{ rates?: unknown }>) ?? []
      if (compared.status !== 200 || alone.status !== 200 || quotes.filter((quote) => quote.rates).length !== 10) {
        throw new Error(`round ${round}: ${JSON.stringify(compared.json)} / ${JSON.stringify(alone.json)}`)
      }
      // Round 0 warms the app up and is not reported.
      if (round > 0) {
        rows.push(
          `| ${round} | ${compared.ms.toFixed(0)} | ${alone.ms.toFixed(0)} | ${(compared.ms - alone.ms).toFixed(0)} | ${delays.reduce((a, b) => a + b, 0)} |`
        )
      }
    }
    console.log(
      "\n| round | compare, 10 couriers (ms) | slowest courier alone (ms) | difference (ms) | sum of the couriers' delays (ms) |\n| --- | --- | --- | --- | --- |"
    )
    for (const row of rows) console.log(row)
  } finally {
    app.child.kill("SIGTERM")
    for (const fake of fakes) fake.server.close()
  }
}

await resolution()
await comparison()
console.log(
  `\nload average: ${Os.loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`
)
process.exit(0)
