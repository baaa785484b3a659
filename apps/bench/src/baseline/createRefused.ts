/**
 * The baseline for a refused `POST /v1/orders`: a raw `node:http` server that answers every create the way ours
 * answers a client whose window is used up — 429, `Retry-After`, `X-Request-Id` and the shipping envelope
 * `{ error: { code: "rate_limited", message } }` — without reading the body, and nothing else: no window to count,
 * no router, no access log, no metrics. What a refusal costs Node itself.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/createRefused.ts   (env: PORT)
 */

import { randomBytes } from "node:crypto"
import { createServer } from "node:http"

const body = JSON.stringify({
  error: { code: "rate_limited", message: "more than 1 requests in a minute from this client" }
})

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/health") {
    return response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}')
  }
  response
    .writeHead(429, {
      "content-type": "application/json",
      "retry-after": "60",
      "x-request-id": `req_${randomBytes(12).toString("hex")}`
    })
    .end(body)
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1")
const stop = () => server.close(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
