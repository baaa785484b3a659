/**
 * The baseline for a sandbox `POST /v1/orders`: a raw `node:http` server doing the same work as ours — read the
 * body (1 MiB limit), parse JSON, decode it with the same request schema (every issue collected), check the phone,
 * run the sandbox's own refusal rules and mint its tracking number — and nothing else: no router, no middleware,
 * no rate limit, no capacity guard, no request id, no access log. The schema decodes through Effect's JIT compiler,
 * as our endpoint's does.
 *
 *   node --conditions=@tawsil/source apps/bench/src/baseline/createSandbox.ts   (env: PORT)
 */

import { createServer } from "node:http"
import { SandboxTrackingNumber } from "@tawsil/adapter-sandbox"
import { Shipment } from "@tawsil/courier"
import { AlgerianMobile, WilayaCode } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"

const Request = Schema.Struct({
  courier: Schema.String.check(Schema.isBetweenLength(1, 64)),
  credentials: Schema.optionalKey(Schema.Record(Schema.String, Schema.String).check(Schema.isBetweenProperties(1, 8))),
  options: Schema.optionalKey(
    Schema.Struct({
      baseUrl: Schema.optionalKey(Schema.String),
      fromWilaya: Schema.optionalKey(WilayaCode.WilayaCode),
      timeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1000, maximum: 30000 })))
    })
  ),
  order: Shipment.ParcelOrder
})
SchemaJITCompiler.enable(Request.ast)
const decode = Schema.decodeUnknownResult(Request)

const json = (response: import("node:http").ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/health") return json(response, 200, { status: "ok" })
  if (request.method !== "POST" || request.url !== "/v1/orders")
    return json(response, 404, { error: { code: "not_found" } })
  const chunks: Array<Buffer> = []
  let size = 0
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= 1024 * 1024) chunks.push(chunk)
  })
  request.on("end", () => {
    if (size > 1024 * 1024) return json(response, 413, { error: { code: "payload_too_large" } })
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return json(response, 400, { error: { code: "invalid_input", message: "Body must be valid JSON" } })
    }
    const decoded = decode(body, { errors: "all", onExcessProperty: "error" })
    if (Result.isFailure(decoded))
      return json(response, 400, { error: { code: "invalid_input", message: String(decoded.failure) } })
    const { courier, order } = decoded.success
    if (courier !== "sandbox") return json(response, 400, { error: { code: "unknown_courier" } })
    if (Option.isNone(AlgerianMobile.normalize(order.recipient.phone))) {
      return json(response, 422, { error: { code: "invalid_phone" } })
    }
    if (order.codAmount > 150_000 || (order.deliveryType === "home" && !order.recipient.addressLine)) {
      return json(response, 422, { error: { code: "courier_refused" } })
    }
    const random = [Math.floor(Math.random() * 32), Math.floor(Math.random() * 32), Math.floor(Math.random() * 32)]
    const trackingNumber = SandboxTrackingNumber.encode(
      Math.floor(Date.now() / 1000),
      `${order.deliveryType}_delivered`,
      random
    )
    json(response, 200, { trackingNumber, status: "created", reference: order.reference ?? trackingNumber })
  })
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1")
const stop = () => server.close(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
