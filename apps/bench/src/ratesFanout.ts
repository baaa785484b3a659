/**
 * Rates for one wilaya pair (16 → 31, home) from every courier of the Ecotrack platform at once: one fan-out is a
 * `POST /v1/rates` per courier of `GET /v1/couriers?platform=ecotrack` (the named tenants on their pinned origins
 * and the generic key with a tenant `baseUrl`), at most `--concurrency` in flight, through the app — decode, the
 * catalogue, egress rules, the core's transport (breaker and per-account limits), the adapter's `get/fees` call and
 * its mapping — to one loopback fake that every Ecotrack origin is sent to (TAWSIL_COURIER_ORIGINS).
 *
 * Baseline, in the same run: the same number of raw `node:http` `GET /api/v1/get/fees` requests straight to the
 * same fake at the same concurrency (no app, no checks, no mapping). The fake answers at once, so both measure our
 * side only; a real tenant answers in tens to hundreds of milliseconds.
 *
 * Per-courier limits are honoured: each fan-out sends a fresh token, so every courier and account pair is asked
 * once — far under Ecotrack's documented 50 requests a minute per token — and any 429 fails the run.
 *
 *   npm run bench:rates -- [--concurrency 8] [--fanouts 40] [--rounds 3] [--warmup 20]
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { parseArgs } from "node:util"

const ROOT = Path.resolve(import.meta.dirname, "../../..")
const { values } = parseArgs({
  options: {
    concurrency: { type: "string", default: "8" },
    fanouts: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "20" }
  }
})
const CONCURRENCY = Number(values.concurrency)

/** The tariff as `get/fees` documents it: every wilaya, amounts as strings, returns beside them. */
const FEES = JSON.stringify({
  livraison: Array.from({ length: 58 }, (_, i) => ({
    wilaya_id: i + 1,
    tarif: String(i + 1 === 16 ? 400 : 650),
    tarif_stopdesk: String(i + 1 === 16 ? 200 : 450)
  })),
  pickup: [],
  echange: [],
  recouvrement: [],
  retours: Array.from({ length: 58 }, (_, i) => ({ wilaya_id: i + 1, tarif: 250, tarif_stopdesk: 200 })),
  poids: { seuil: 5, surcharge_par_kg: 50 }
})

/** A fake Ecotrack tenant answering `get/fees` to any bearer token; it counts what it served. */
const startFake = () =>
  new Promise<{ server: Http.Server; origin: string; served: () => number }>((resolve) => {
    let served = 0
    const server = Http.createServer((request, response) => {
      request.resume()
      if (request.method === "GET" && request.url!.startsWith("/api/v1/get/fees")) {
        if (!(request.headers.authorization ?? "").startsWith("Bearer ")) {
          return response.writeHead(401, { "content-type": "application/json" }).end('{"message":"Unauthenticated."}')
        }
        served++
        return response.writeHead(200, { "content-type": "application/json" }).end(FEES)
      }
      response.writeHead(404).end()
    })
    server.keepAliveTimeout = 60_000
    server.listen(0, "127.0.0.1", () => {
      const origin = `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`
      resolve({ server, origin, served: () => served })
    })
  })

const startApp = (fakeOrigin: string, dataDir: string) =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@tawsil/source", Path.join(ROOT, "apps/http/src/main.ts")], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        DATA_DIR: dataDir,
        SHIPPING_PORT: "0",
        STORE_PORT: "0",
        SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000",
        TAWSIL_COURIER_ORIGINS: ["https://*.ecotrack.dz", "https://platform.dhd-dz.com", "https://app.conexlog-dz.com"]
          .map((origin) => `${origin}=${fakeOrigin}`)
          .join(",")
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

const agent = new Http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })

const send = (url: string, method: string, body?: unknown, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const request = Http.request(
      url,
      {
        method,
        agent,
        headers: payload
          ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers }
          : headers
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

/** Runs `calls` with at most CONCURRENCY in flight; the wall time and each call's latency, in ms. */
const fanOut = async (calls: ReadonlyArray<() => Promise<void>>) => {
  const latencies: Array<number> = []
  let next = 0
  const started = process.hrtime.bigint()
  const worker = async () => {
    while (next < calls.length) {
      const call = calls[next++]!
      const t = process.hrtime.bigint()
      await call()
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6)
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, calls.length) }, worker))
  return { wall: Number(process.hrtime.bigint() - started) / 1e6, latencies }
}

const quantile = (samples: ReadonlyArray<number>, q: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

const main = async () => {
  const fake = await startFake()
  const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-rates-fanout-"))
  const app = await startApp(fake.origin, Path.join(scratch, "data"))
  try {
    // Waits until the app answers: a request sent the instant it logs "listening" was seen to hang for good.
    for (let attempt = 0; ; attempt++) {
      const ready = await fetch(`${app.url}/v1/couriers`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined)
      if (ready?.status === 200) break
      if (attempt === 30) throw new Error("the app never answered")
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    const listed = await send(`${app.url}/v1/couriers?platform=ecotrack`, "GET")
    const couriers = (JSON.parse(listed.text) as ReadonlyArray<{ key: string; requiresBaseUrl: boolean }>).map(
      ({ key, requiresBaseUrl }) => ({ key, options: requiresBaseUrl ? { baseUrl: "https://acme.ecotrack.dz" } : {} })
    )
    let fanouts = 0
    const ours = couriers.map(({ key, options }) => async () => {
      // One fresh account per fan-out: every courier and token pair is asked once.
      const token = `bench-token-${fanouts}-0123456789`
      const answer = await send(`${app.url}/v1/rates`, "POST", {
        courier: key,
        credentials: { token },
        options: { ...options, fromWilaya: 16 },
        query: { fromWilaya: 16, toWilaya: 31, deliveryType: "home" }
      })
      if (answer.status !== 200) throw new Error(`${key} answered ${answer.status}: ${answer.text}`)
    })
    const raw = couriers.map(() => async () => {
      const answer = await send(`${fake.origin}/api/v1/get/fees?api_token=bench-token-0123456789`, "GET", undefined, {
        accept: "application/json",
        authorization: "Bearer bench-token-0123456789"
      })
      if (answer.status !== 200) throw new Error(`the fake answered ${answer.status}`)
      JSON.parse(answer.text)
    })
    const run = async (n: number) => {
      const oursWall: Array<number> = []
      const rawWall: Array<number> = []
      const oursLatency: Array<number> = []
      const rawLatency: Array<number> = []
      for (let i = 0; i < n; i++) {
        fanouts++
        const before = fake.served()
        const a = await fanOut(ours)
        if (fake.served() - before !== couriers.length) throw new Error("not every courier reached the fake")
        const b = await fanOut(raw)
        oursWall.push(a.wall)
        rawWall.push(b.wall)
        oursLatency.push(...a.latencies)
        rawLatency.push(...b.latencies)
      }
      return { oursWall, rawWall, oursLatency, rawLatency }
    }
    await run(Number(values.warmup))
    const fmt = (n: number) => n.toFixed(2)
    console.log(
      `rates fan-out: ${couriers.length} Ecotrack couriers, 16 → 31 home, concurrency ${CONCURRENCY}, ` +
        `${values.fanouts} fan-outs per round; node ${process.version}, ${Os.cpus().length} CPUs, ` +
        `load average ${Os.loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`
    )
    console.log("")
    console.log(
      "| round | ours fan-out p50 / p99 ms | raw fan-out p50 / p99 ms | ours per rate p50 / p99 ms | raw per request p50 / p99 ms | ours rates/s | raw req/s | ratio |"
    )
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (let round = 1; round <= Number(values.rounds); round++) {
      const r = await run(Number(values.fanouts))
      const oursRate = (couriers.length * r.oursWall.length) / (r.oursWall.reduce((a, b) => a + b) / 1000)
      const rawRate = (couriers.length * r.rawWall.length) / (r.rawWall.reduce((a, b) => a + b) / 1000)
      console.log(
        `| ${round} | ${fmt(quantile(r.oursWall, 0.5))} / ${fmt(quantile(r.oursWall, 0.99))} | ` +
          `${fmt(quantile(r.rawWall, 0.5))} / ${fmt(quantile(r.rawWall, 0.99))} | ` +
          `${fmt(quantile(r.oursLatency, 0.5))} / ${fmt(quantile(r.oursLatency, 0.99))} | ` +
          `${fmt(quantile(r.rawLatency, 0.5))} / ${fmt(quantile(r.rawLatency, 0.99))} | ` +
          `${Math.round(oursRate)} | ${Math.round(rawRate)} | ${(oursRate / rawRate).toFixed(2)}× |`
      )
    }
    console.log(
      `load average after: ${Os.loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`
    )
  } finally {
    app.child.kill("SIGTERM")
    fake.server.close()
    agent.destroy()
    Fs.rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
