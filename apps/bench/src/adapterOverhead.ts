/**
 * What our stack adds to a parcel create through a real adapter (Ecotrack, as DHD) against a loopback fake
 * courier, measured as latency of one request at a time:
 *   ours     — POST /v1/orders to the app, which decodes, checks, runs the adapter (create, then valid/order)
 *              through the egress-guarded transport to the fake, maps the answer and logs;
 *   raw      — POST /v1/orders to a raw node:http server that makes the same two calls to the same fake
 *              (apps/bench/src/baseline/createProxy.ts): the same hops with none of our work;
 *   direct   — the two courier calls sent straight to the fake from this process (the floor).
 * The overhead is p50(ours) − p50(raw). All run in the same run, alternating in rounds.
 *
 *   npm run bench:overhead -- [--requests 2000] [--rounds 3] [--warmup 2000] [--node-option <flag>]...
 *
 * Each of the three first runs `--warmup` requests unmeasured: V8 is still optimising the create path after a few
 * hundred, and the first round measured that as much as the stack.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import { freePort } from "./host.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "2000" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "2000" },
    "node-option": { type: "string", multiple: true, default: [] }
  }
})
const TOKEN = "bench-token-0123456789abcdef"

/** The two Ecotrack calls a create makes, answered at once as the documentation shows. */
const startFake = () =>
  new Promise<{ server: Http.Server; origin: string }>((resolve) => {
    let next = 0
    const server = Http.createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        const json = (body: unknown) =>
          response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body))
        if (request.url!.startsWith("/api/v1/create/order")) return json({ success: true, tracking: `ECTB${next++}` })
        if (request.url!.startsWith("/api/v1/valid/order"))
          return json({ success: true, message: "Commande expedier avec succès" })
        response.writeHead(404).end()
      })
    })
    server.keepAliveTimeout = 60_000
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}` })
    })
  })

const order = {
  reference: "bench-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
}

const startRaw = (fakeOrigin: string) =>
  freePort().then(
    (port) =>
      new Promise<{ child: ChildProcess; url: string }>((resolve) => {
        const child = spawn(process.execPath, [Path.join(ROOT, "apps/bench/src/baseline/createProxy.ts")], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? "", PORT: String(port), FAKE_ORIGIN: fakeOrigin },
          stdio: ["ignore", "ignore", "inherit"]
        })
        setTimeout(() => resolve({ child, url: `http://127.0.0.1:${port}` }), 1000)
      })
  )

const startApp = (fakeOrigin: string, dataDir: string) =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const args = [
      ...(values["node-option"] ?? []),
      "--conditions=@tawsil/source",
      Path.join(ROOT, "apps/http/src/main.ts")
    ]
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATA_DIR: dataDir,
        SHIPPING_PORT: "0",
        STORE_PORT: "0",
        SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
        TAWSIL_COURIER_ORIGINS: `https://platform.dhd-dz.com=${fakeOrigin}`
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

const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const payload = JSON.stringify(body)
    const request = Http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers }
      },
      (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode ?? 0))
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

const timed = async (n: number, call: () => Promise<void>) => {
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const started = process.hrtime.bigint()
    await call()
    samples.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { p50: at(0.5), p99: at(0.99) }
}

const main = async () => {
  const fake = await startFake()
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-overhead-"))
  const app = await startApp(fake.origin, Path.join(scratch, "data"))
  const raw = await startRaw(fake.origin)
  const n = Number(values.requests)
  const ours = async () => {
    const status = await post(`${app.url}/v1/orders`, { courier: "dhd", credentials: { token: TOKEN }, order })
    if (status !== 200) throw new Error(`ours answered ${status}`)
  }
  const viaRaw = async () => {
    const status = await post(`${raw.url}/v1/orders`, { courier: "dhd", credentials: { token: TOKEN }, order })
    if (status !== 200) throw new Error(`raw answered ${status}`)
  }
  const direct = async () => {
    const auth = { authorization: `Bearer ${TOKEN}` }
    await post(`${fake.origin}/api/v1/create/order?api_token=${TOKEN}`, { nom_client: "Amina Benali" }, auth)
    await post(`${fake.origin}/api/v1/valid/order?api_token=${TOKEN}&tracking=ECTB1&ask_collection=1`, {}, auth)
  }
  try {
    const warmup = Number(values.warmup)
    await timed(warmup, ours)
    await timed(warmup, viaRaw)
    await timed(warmup, direct)
    console.log(`adapter overhead: ${n} sequential creates per round, Ecotrack adapter (DHD) against a loopback fake`)
    console.log("")
    console.log("| round | ours p50 / p99 ms | raw p50 / p99 ms | direct p50 / p99 ms | overhead p50 ms (ours − raw) |")
    console.log("| --- | --- | --- | --- | --- |")
    const fmt = (r: { p50: number; p99: number }) => `${r.p50.toFixed(3)} / ${r.p99.toFixed(3)}`
    for (let round = 1; round <= Number(values.rounds); round++) {
      const a = await timed(n, ours)
      const b = await timed(n, viaRaw)
      const c = await timed(n, direct)
      console.log(`| ${round} | ${fmt(a)} | ${fmt(b)} | ${fmt(c)} | ${(a.p50 - b.p50).toFixed(3)} |`)
    }
  } finally {
    app.child.kill("SIGTERM")
    raw.child.kill("SIGTERM")
    fake.server.close()
    agent.destroy()
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
