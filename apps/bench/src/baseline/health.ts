/**
 * The baseline for `GET /health`: a raw `node:http` server doing the same work as ours — one database round
 * trip through the same storage layer (same driver, same database) and a JSON document of the same shape — and
 * nothing else: no router, no schema encoding, no request id, no access log.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/health.ts   (env: PORT, DATA_DIR or DATABASE_URL)
 */

import { createServer } from "node:http"
import { Database } from "@tawsil/storage"
import { Effect, Exit, ManagedRuntime, Redacted } from "effect"

const url = process.env.DATABASE_URL
const runtime = ManagedRuntime.make(
  url
    ? Database.layerServer({ url: Redacted.make(url), maxConnections: 10 })
    : Database.layerEmbedded({ dataDir: process.env.DATA_DIR ?? ".data" })
)
const database = await runtime.runPromise(
  Effect.gen(function* () {
    return yield* Database.Database
  })
)
const startedAt = Date.now()

const server = createServer((request, response) => {
  if (request.method !== "GET" || request.url !== "/health") {
    response.writeHead(404).end()
    return
  }
  const started = performance.now()
  runtime.runPromiseExit(database.ping).then((exit) => {
    const up = Exit.isSuccess(exit)
    const body = JSON.stringify({
      status: up ? "ok" : "unavailable",
      service: "shipping",
      version: "0.1.0",
      instance: "0",
      uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
      database: { status: up ? "up" : "down", kind: database.kind, latencyMs: Math.round(performance.now() - started) }
    })
    response.writeHead(up ? 200 : 503, { "content-type": "application/json" }).end(body)
  })
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : 0
  process.stdout.write(
    `${JSON.stringify({ message: "listening", annotations: { api: "baseline", url: `http://127.0.0.1:${port}` } })}\n`
  )
})

const stop = () => server.close(() => runtime.dispose().then(() => process.exit(0)))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
