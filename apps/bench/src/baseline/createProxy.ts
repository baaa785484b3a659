/**
 * The baseline for a create through a courier: a raw `node:http` server that takes the same request and makes the
 * same two Ecotrack calls (create/order, then valid/order) to the same loopback fake, with a keep-alive agent —
 * no schema, no checks, no mapping, no transport guard, no breaker, no log.
 *
 *   node apps/bench/src/baseline/createProxy.ts   (env: PORT, FAKE_ORIGIN)
 */
import * as Http from "node:http"

const fake = process.env.FAKE_ORIGIN ?? "http://127.0.0.1:1"
const agent = new Http.Agent({ keepAlive: true })

const call = (path: string, body: unknown) =>
  new Promise<{ success?: boolean; tracking?: string }>((resolve, reject) => {
    const payload = JSON.stringify(body)
    const request = Http.request(
      `${fake}${path}`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8"))))
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

const server = Http.createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", async () => {
    if (request.url === "/health") return response.writeHead(200).end("{}")
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { order: Record<string, unknown> }
    const created = await call("/api/v1/create/order?api_token=t", body.order)
    await call(`/api/v1/valid/order?api_token=t&tracking=${created.tracking}&ask_collection=1`, {})
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ trackingNumber: created.tracking, status: "pending_pickup" }))
  })
})
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1")
process.on("SIGTERM", () => server.close(() => process.exit(0)))
