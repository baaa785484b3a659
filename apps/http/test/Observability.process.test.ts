/**
 * Traces and metrics of the app as operators run it (one `npm start` process for the whole file), exporting OTLP
 * JSON to a loopback collector (a `node:http` server keeping every `/v1/traces` and `/v1/metrics` body) and serving
 * Prometheus text on its metrics listener; Maystro's loopback fake answers the courier calls, a loopback receiver
 * the webhook deliveries. A request's trace continues the caller's `traceparent` and holds its server span (route,
 * status, request id), the domain spans beneath it and the courier's client span; a canary credential appears
 * nowhere in what was exported; `/metrics` parses as the exposition format and its counters move with requests,
 * refusals, replays and deliveries.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { MaystroFake } from "../../../adapters/maystro/test/fake/MaystroFake.ts"
import { type AppProcess, runAdmin, startApp } from "./AppProcess.ts"
import * as PrometheusText from "./PrometheusText.ts"

/** A Maystro key no exported byte may hold; the fake accepts it. */
const CANARY_KEY = "canary-otlp-maystro-5b8e2d7c41f0"
/** The collector's API key, sent as an OTLP header: it must reach the collector and appear in no span. */
const CANARY_HEADER = "canary-otlp-header-9a3c"
const RATE_LIMIT = 8

interface Collected {
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP JSON, read field by field
type Json = any

/** A loopback collector that keeps every export it is sent. */
const collector = () =>
  new Promise<{ url: string; received: Array<Collected>; server: Http.Server }>((resolve) => {
    const received: Array<Collected> = []
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({ path: request.url ?? "", headers: request.headers, text: Buffer.concat(chunks).toString() })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server })
    )
  })

/** A webhook receiver that keeps each delivery's headers and answers 200. */
const hookReceiver = () =>
  new Promise<{ url: string; received: Array<Http.IncomingHttpHeaders>; server: Http.Server }>((resolve) => {
    const received: Array<Http.IncomingHttpHeaders> = []
    const server = Http.createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        received.push(request.headers)
        response.writeHead(200).end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server })
    )
  })

const scope = Effect.runSync(Scope.make())
let otlp: Awaited<ReturnType<typeof collector>>
let hooks: Awaited<ReturnType<typeof hookReceiver>>
let app: AppProcess
let env: Record<string, string>
let fake: MaystroFake["Service"]

beforeAll(async () => {
  otlp = await collector()
  hooks = await hookReceiver()
  const started = await Effect.runPromise(
    Effect.gen(function* () {
      const maystro = Context.get(yield* Layer.build(MaystroFake.layer({ keys: [CANARY_KEY] })), MaystroFake)
      const dataDir = yield* TestDatabase.migratedDataDir
      const env = {
        DATA_DIR: dataDir,
        TAWSIL_COURIER_ORIGINS: `https://backend.maystro-delivery.com=${maystro.origin}`,
        SHIPPING_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
        WEBHOOK_TIMEOUT_MS: "2000",
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${CANARY_HEADER}`,
        OTEL_SERVICE_NAME: "tawsil-under-test",
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_METRIC_EXPORT_INTERVAL: "500"
      }
      const app = yield* startApp(env)
      return { maystro, env, app }
    }).pipe(Effect.provideService(Scope.Scope, scope))
  )
  fake = started.maystro
  env = started.env
  app = started.app
}, 120_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  otlp?.server.close()
  hooks?.server.close()
})

const order = {
  reference: "obs-1",
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

const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  }).then(async (response) => ({
    status: response.status,
    headers: response.headers,
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    json: (await response.json().catch(() => undefined)) as any
  }))

const scrape = async () => {
  const response = await fetch(app.metricsUrl!)
  assert.strictEqual(response.status, 200)
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/)
  return PrometheusText.parse(await response.text())
}

/** Every span exported so far, with its attributes as a record. */
const spans = () =>
  otlp.received
    .filter((entry) => entry.path === "/v1/traces")
    .flatMap((entry) => {
      const data: Json = JSON.parse(entry.text)
      return data.resourceSpans.flatMap((resource: Json) =>
        resource.scopeSpans.flatMap((scope: Json) =>
          scope.spans.map((span: Json) => ({
            ...span,
            attrs: Object.fromEntries(
              (span.attributes ?? []).map((attribute: Json) => [
                attribute.key,
                attribute.value.stringValue ?? attribute.value.intValue ?? attribute.value.boolValue
              ])
            ),
            resource: resource.resource
          }))
        )
      )
    })

const until = async <A>(find: () => A | undefined, what: string, within = 15_000): Promise<A> => {
  const deadline = Date.now() + within
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`${what}: not within ${within} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const SERVER = 2
const CLIENT = 3

describe("traces and metrics", () => {
  it("a parcel create's trace: the caller's traceparent continued, its server span, the spans beneath it, the courier's client span", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const callerSpan = "00f067aa0ba902b7"
    const created = await post(
      app.shippingUrl,
      "/v1/orders?debug=canary-query-7f",
      { courier: "maystro", credentials: { apiKey: CANARY_KEY }, order },
      { traceparent: `00-${traceId}-${callerSpan}-01`, "idempotency-key": "obs-order-1" }
    )
    assert.strictEqual(created.status, 200, JSON.stringify(created.json))
    const requestId = created.headers.get("x-request-id")!
    assert.isTrue(fake.orders.size > 0, "the courier fake was called")

    const server = await until(
      () => spans().find((span) => span.traceId === traceId && span.kind === SERVER),
      "the request's server span"
    )
    assert.strictEqual(server.parentSpanId, callerSpan, "the caller's traceparent is continued")
    assert.strictEqual(server.name, "POST /v1/orders")
    assert.strictEqual(server.attrs["http.route"], "/v1/orders")
    assert.strictEqual(Number(server.attrs["http.response.status_code"]), 200)
    assert.strictEqual(server.attrs["tawsil.request_id"], requestId)
    assert.strictEqual(server.attrs["url.path"], "/v1/orders")
    assert.notProperty(server.attrs, "url.query")
    assert.notProperty(server.attrs, "client.address")
    assert.notInclude(String(server.attrs["url.full"]), "?")
    const serviceName = server.resource.attributes.find((attribute: Json) => attribute.key === "service.name")
    assert.strictEqual(serviceName.value.stringValue, "tawsil-under-test")

    const courier = await until(
      () => spans().find((span) => span.traceId === traceId && span.kind === CLIENT && span.attrs["tawsil.courier"]),
      "the courier's client span"
    )
    const trace = spans().filter((span) => span.traceId === traceId)
    const children = trace.filter((span) => span.parentSpanId === server.spanId)
    assert.isNotEmpty(children, "spans beneath the server span")
    assert.include(
      trace.map((span) => span.name),
      "Shipping.create"
    )
    assert.strictEqual(courier.attrs["tawsil.courier"], "maystro")
    assert.strictEqual(courier.attrs["tawsil.courier.platform"], "maystro")
    assert.strictEqual(courier.attrs["tawsil.courier.outcome"], "2xx")
    // The courier span hangs, through its ancestors, from the request's server span.
    const byId = new Map(trace.map((span) => [span.spanId, span]))
    let ancestor = courier
    while (ancestor !== undefined && ancestor.spanId !== server.spanId) ancestor = byId.get(ancestor.parentSpanId)
    assert.isDefined(ancestor, "the courier span is beneath the server span")
    assert.include(
      otlp.received.map((entry) => entry.headers["x-api-key"]),
      CANARY_HEADER,
      "the OTLP headers reach the collector"
    )
  })

  it("/metrics parses and moves with requests, replays, courier calls and refusals", async () => {
    const before = await scrape()
    // The same create again: the idempotency record answers it.
    const replayed = await post(
      app.shippingUrl,
      "/v1/orders",
      { courier: "maystro", credentials: { apiKey: CANARY_KEY }, order },
      { "idempotency-key": "obs-order-1" }
    )
    assert.strictEqual(replayed.status, 200)
    const tracked = await post(app.shippingUrl, "/v1/track", {
      courier: "maystro",
      credentials: { apiKey: CANARY_KEY },
      trackingNumber: [...fake.orders.keys()][0]
    })
    assert.strictEqual(tracked.status, 200, JSON.stringify(tracked.json))
    // Past the client's window: 429s.
    const statuses: Array<number> = []
    for (let i = 0; i < RATE_LIMIT; i++) {
      statuses.push((await post(app.shippingUrl, "/v1/rates", { courier: "sandbox", query: { toWilaya: 16 } })).status)
    }
    assert.include(statuses, 429)
    const after = await scrape()
    const moved = (name: string, labels: Record<string, string>) =>
      PrometheusText.value(after, name, labels) - PrometheusText.value(before, name, labels)

    assert.strictEqual(
      moved("http_server_requests_total", { api: "shipping", route: "/v1/orders", method: "POST", status: "200" }),
      1
    )
    assert.strictEqual(
      moved("http_server_requests_total", { api: "shipping", route: "/v1/rates", status: "429" }),
      statuses.filter((status) => status === 429).length
    )
    assert.isAbove(moved("http_server_request_duration_seconds_count", { api: "shipping", route: "/v1/track" }), 0)
    assert.strictEqual(moved("tawsil_idempotency_replays_total", {}), 1)
    assert.isAbove(
      moved("tawsil_courier_requests_total", { courier: "maystro", platform: "maystro", outcome: "2xx" }),
      0
    )
    assert.strictEqual(
      moved("tawsil_shipping_refusals_total", { reason: "client_window" }),
      statuses.filter((status) => status === 429).length
    )
    assert.strictEqual(after.get("http_server_request_duration_seconds")?.type, "histogram")
    assert.strictEqual(after.get("tawsil_tracker_queue_rows")?.type, "gauge")
    // Labels name templates, never what was sent.
    for (const family of after.values()) {
      for (const sample of family.samples) {
        assert.notInclude(JSON.stringify(sample.labels), CANARY_KEY)
        assert.notInclude(JSON.stringify(sample.labels), "obs-1")
      }
    }
    // Unknown paths count under one series.
    await fetch(`${app.shippingUrl}/v1/no-such-route-${Date.now()}`)
    assert.strictEqual(
      PrometheusText.value(await scrape(), "http_server_requests_total", { api: "shipping", route: "unmatched" }) -
        PrometheusText.value(after, "http_server_requests_total", { api: "shipping", route: "unmatched" }),
      1
    )
    // Not on the public ports.
    assert.strictEqual((await fetch(`${app.shippingUrl}/metrics`)).status, 404)
    assert.strictEqual((await fetch(`${app.storeUrl}/metrics`)).status, 404)
  })

  it("a store replay answers the first request id; its own is in its access line and server span, naming the first", async () => {
    const run = await Effect.runPromise(runAdmin(env, "store", "create", "--name", "Boutique rejouée"))
    assert.strictEqual(run.code, 0, run.stderr)
    // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON, field by field
    const auth = { authorization: `Bearer ${(run.json as any).platform_key.bearer_token}` }
    const patch = (requestId: string) =>
      fetch(`${app.storeUrl}/v1/store`, {
        method: "PATCH",
        headers: {
          "content-type": "application/json",
          ...auth,
          "idempotency-key": "obs-replay",
          "x-request-id": requestId
        },
        body: JSON.stringify({ name: "Boutique rejouée 2" })
      }).then(async (response) => ({
        headers: response.headers,
        // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
        json: (await response.json()) as any
      }))
    const first = await patch("obs-replay-first")
    const again = await patch("obs-replay-again")
    assert.strictEqual(again.headers.get("idempotency-replay"), "1")
    assert.deepStrictEqual(
      [again.headers.get("x-request-id"), again.json.meta.request_id, first.json.meta.request_id],
      ["obs-replay-first", "obs-replay-first", "obs-replay-first"]
    )
    // The replay's own request: its access line (by its id) names the one it answered as, and so does its span.
    const line = await until(
      () =>
        app
          .stdout()
          .split("\n")
          .filter((text) => text.includes('"requestId":"obs-replay-again"') && text.includes('"message":"request"'))
          .map((text) => JSON.parse(text) as Json)[0],
      "the replay's access line"
    )
    assert.deepInclude(line.annotations, {
      method: "PATCH",
      path: "/v1/store",
      status: 200,
      replayOf: "obs-replay-first"
    })
    const span = await until(
      () => spans().find((span) => span.kind === SERVER && span.attrs["tawsil.request_id"] === "obs-replay-again"),
      "the replay's server span"
    )
    assert.strictEqual(span.attrs["tawsil.replay_of"], "obs-replay-first")
  })

  it("a webhook delivery carries a traceparent, is traced and counted, and the outbox is measured", async () => {
    const ok = (run: { readonly code: number | null; readonly stderr: string; readonly json: unknown }) => {
      assert.strictEqual(run.code, 0, JSON.stringify(run.json) + run.stderr)
      // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON, field by field
      return run.json as any
    }
    const store = ok(await Effect.runPromise(runAdmin(env, "store", "create", "--name", "Boutique observée")))
    const auth = { authorization: `Bearer ${store.platform_key.bearer_token}` }
    const hook = await post(
      app.storeUrl,
      "/v1/webhooks",
      { url: hooks.url, events: ["order.created"] },
      { ...auth, "idempotency-key": "obs-hook" }
    )
    assert.isBelow(hook.status, 300, JSON.stringify(hook.json))
    const product = await post(
      app.storeUrl,
      "/v1/products",
      { name: "Chéchia", price: 1500, stock: 10 },
      { ...auth, "idempotency-key": "obs-product" }
    )
    const before = await scrape()
    const created = await post(
      app.storeUrl,
      "/v1/orders",
      {
        customer: { name: "Client", phone: "0661000001", wilaya_id: 16, commune: "Alger" },
        items: [{ product_id: product.json.data.id, quantity: 1 }]
      },
      { ...auth, "idempotency-key": "obs-store-order" }
    )
    assert.isBelow(created.status, 300, JSON.stringify(created.json))
    const delivered = await until(() => hooks.received[0], "the webhook delivery")
    const traceparent = String(delivered.traceparent)
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent) ?? []
    assert.isDefined(traceId, `a W3C traceparent: ${traceparent}`)
    const span = await until(
      () => spans().find((span) => span.traceId === traceId && span.spanId === spanId),
      "the delivery's span"
    )
    assert.strictEqual(span.kind, CLIENT)
    assert.strictEqual(span.attrs["tawsil.webhook.event"], "order.created")
    assert.strictEqual(Number(span.attrs["http.response.status_code"]), 200)

    const counted = await (async () => {
      const deadline = Date.now() + 10_000
      for (;;) {
        const now = await scrape()
        const moved =
          PrometheusText.value(now, "tawsil_webhook_attempts_total", { outcome: "succeeded" }) -
          PrometheusText.value(before, "tawsil_webhook_attempts_total", { outcome: "succeeded" })
        if (moved >= 1 && now.has("tawsil_webhook_outbox_pending") && now.has("tawsil_webhook_outbox_lag_seconds")) {
          return now
        }
        if (Date.now() > deadline) throw new Error("webhook metrics did not move within 10 s")
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    })()
    assert.strictEqual(counted.get("tawsil_webhook_outbox_pending")?.type, "gauge")
    assert.isAbove(
      PrometheusText.value(counted, "http_server_requests_total", {
        api: "store",
        route: "/v1/orders",
        status: "201"
      }) +
        PrometheusText.value(counted, "http_server_requests_total", {
          api: "store",
          route: "/v1/orders",
          status: "200"
        }),
      0
    )
  })

  it("the metrics are exported over OTLP too, and no exported byte holds the canary credential or query string", async () => {
    const exported = await until(
      () =>
        otlp.received.find(
          (entry) => entry.path === "/v1/metrics" && entry.text.includes("tawsil_webhook_attempts_total")
        ),
      "an OTLP metrics export"
    )
    const data: Json = JSON.parse(exported.text)
    const names = data.resourceMetrics.flatMap((resource: Json) =>
      resource.scopeMetrics.flatMap((scope: Json) => scope.metrics.map((metric: Json) => metric.name))
    )
    assert.includeMembers(names, ["http_server_requests_total", "tawsil_courier_requests_total"])
    const everything = otlp.received.map((entry) => entry.text).join("\n")
    assert.isNotEmpty(everything)
    assert.notInclude(everything, CANARY_KEY)
    assert.notInclude(everything, CANARY_HEADER)
    assert.notInclude(everything, "canary-query-7f")
    assert.notInclude(everything, "Amina Benali")
    assert.notInclude(everything, "0555123456")
  })
})
