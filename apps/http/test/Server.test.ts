import * as Net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Logger, Schema, Scope } from "effect"
import { HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SqlError } from "effect/sql"
import * as NodeListener from "../src/NodeListener.ts"
import * as Server from "../src/Server.ts"
import { envelope as shippingEnvelope } from "../src/shipping/Errors.ts"
import { envelope as storeEnvelope } from "../src/store/Errors.ts"

const Echo = Schema.Struct({ name: Schema.String.check(Schema.isBetweenLength(1, 10)) })

class TestApi extends HttpApi.make("test").add(
  HttpApiGroup.make("probe", { topLevel: true })
    .add(HttpApiEndpoint.post("echo", "/echo", { payload: Echo, success: Echo }))
    .add(HttpApiEndpoint.get("slow", "/slow", { success: Schema.String }))
    .add(HttpApiEndpoint.get("boom", "/boom", { success: Schema.String }))
    .add(HttpApiEndpoint.get("databaseDown", "/database-down", { success: Schema.String }))
    .add(HttpApiEndpoint.get("badQuery", "/bad-query", { success: Schema.String }))
) {}

/** What the driver fails with when the database refuses the connection, and when a query is wrong (a bug). */
const connectionRefused = new SqlError.SqlError({
  reason: new SqlError.ConnectionError({
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    message: "PgConnection: Failed to connect",
    operation: "connect"
  })
})
const syntaxError = new SqlError.SqlError({
  reason: new SqlError.SqlSyntaxError({
    cause: new Error("syntax error at or near"),
    message: "PgConnection: Query failed"
  })
})

const handlers = HttpApiBuilder.group(TestApi, "probe", (handlers) =>
  handlers
    .handle("echo", ({ payload }) => Effect.succeed(payload))
    .handle("slow", () => Effect.as(Effect.sleep("800 millis"), "done"))
    .handle("boom", () => Effect.die(new Error("kaboom at /secret/internal/path")))
    // Infrastructure failures reach the edge as defects; one wrapping the driver's is the same failure.
    .handle("databaseDown", () => Effect.die(new Error("the write failed", { cause: connectionRefused })))
    .handle("badQuery", () => Effect.die(syntaxError))
)

const MAX_BODY = 1024

/** Starts a server on a free port inside `scope` and returns its base URL and the log lines it wrote. */
const startServer = (scope: Scope.Closeable, envelope = shippingEnvelope, door: Layer.Layer<never> = Layer.empty) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.map(Logger.formatJson, (line) => {
      lines.push(line)
    })
    const context = yield* Layer.buildWithScope(
      Server.make(
        { host: "127.0.0.1", maxBodyBytes: MAX_BODY, shutdownTimeout: Duration.seconds(5) },
        { name: "test", api: TestApi, handlers, envelope, port: 0 }
      ).pipe(Layer.provide(Logger.layer([capture])), Layer.provide(door)),
      scope
    )
    const server = Context.get(context, HttpServer.HttpServer)
    return { url: HttpServer.formatAddress(server.address), lines }
  })

const request = (url: string, init?: RequestInit) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: text === "" ? undefined : JSON.parse(text)
    }
  })

describe("Server", () => {
  it.live("answers 503 with Retry-After while it starts, and logs listening only once its routes serve", () =>
    Effect.gen(function* () {
      // A free port, so that the server can be reached before it says where it listens.
      const port = yield* Effect.callback<number>((resume) => {
        const probe = Net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = probe.address() as Net.AddressInfo
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const routesReady = yield* Deferred.make<void>()
      const lines: Array<string> = []
      const capture = Logger.map(Logger.formatJson, (line) => {
        lines.push(line)
      })
      const scope = yield* Scope.make()
      // The handlers wait for `routesReady`: the server listens meanwhile, its routes not attached yet.
      const slowHandlers = Layer.merge(handlers, Layer.effectDiscard(Deferred.await(routesReady)))
      const starting = yield* Layer.buildWithScope(
        Server.make(
          { host: "127.0.0.1", maxBodyBytes: MAX_BODY, shutdownTimeout: Duration.seconds(5) },
          { name: "test", api: TestApi, handlers: slowHandlers, envelope: shippingEnvelope, port }
        ).pipe(Layer.provide(Logger.layer([capture]))),
        scope
      ).pipe(Effect.forkChild)
      const url = `http://127.0.0.1:${port}`
      let early = yield* Effect.exit(request(`${url}/slow`))
      for (let tries = 0; Exit.isFailure(early) && tries < 200; tries++) {
        yield* Effect.sleep("10 millis")
        early = yield* Effect.exit(request(`${url}/slow`))
      }
      assert.isTrue(Exit.isSuccess(early), "the listener accepted a connection while starting")
      if (Exit.isSuccess(early)) {
        assert.strictEqual(early.value.status, 503)
        assert.strictEqual(early.value.headers.get("retry-after"), "1")
        assert.deepStrictEqual(early.value.json, { error: { code: "unavailable", message: "the server is starting" } })
      }
      assert.isFalse(
        lines.some((line) => line.includes("listening")),
        "no listening line before the routes serve"
      )
      yield* Deferred.succeed(routesReady, undefined)
      yield* Fiber.join(starting)
      assert.isTrue(lines.some((line) => line.includes("listening")))
      const echoed = yield* request(`${url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "amina" })
      })
      assert.strictEqual(echoed.status, 200)
      yield* Scope.close(scope, Exit.void)
    })
  )

  const refusal: NodeListener.DoorAnswer = {
    status: 429,
    headers: { "retry-after": "7" },
    body: { error: { code: "rate_limited", message: "refused at the door" } }
  }
  /** A door watching `/boom` (refused) and `/echo` (let through), deciding with a plain call or by an effect. */
  const door = (decides: "now" | "later") =>
    Layer.succeed(
      NodeListener.Door,
      NodeListener.Door.of({
        watches: (_method, route) => route === "/boom" || route === "/echo",
        decide:
          decides === "now"
            ? { now: (route) => (route === "/boom" ? refusal : undefined) }
            : { later: (route) => Effect.as(Effect.sleep("5 millis"), route === "/boom" ? refusal : undefined) }
      })
    )
  for (const decides of ["now", "later"] as const) {
    it.live(`a door deciding ${decides} answers before the router, and lets what it does not refuse through`, () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const { url, lines } = yield* startServer(scope, shippingEnvelope, door(decides))
        const refused = yield* request(`${url}/boom`, { headers: { "x-request-id": "door-test-1" } })
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(refused.headers.get("retry-after"), "7")
        assert.strictEqual(refused.headers.get("x-request-id"), "door-test-1")
        assert.deepStrictEqual(refused.json, refusal.body)
        const through = yield* request(`${url}/echo`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "ok" })
        })
        assert.strictEqual(through.status, 200)
        assert.deepStrictEqual(through.json, { name: "ok" })
        assert.isTrue(
          lines.some((line) => line.includes("door-test-1") && line.includes("429")),
          "the door's answer has its access line"
        )
        yield* Scope.close(scope, Exit.void)
      })
    )
  }

  it.live("answers an unknown route with 404 in the API's envelope", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope)
      const response = yield* request(`${url}/v9/nothing?x=1`)
      assert.strictEqual(response.status, 404)
      assert.deepStrictEqual(response.json, { error: { code: "not_found", message: "No route for GET /v9/nothing" } })
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("uses the store envelope, with meta.request_id equal to X-Request-Id", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope, storeEnvelope)
      const response = yield* request(`${url}/v1/nothing`)
      assert.strictEqual(response.status, 404)
      assert.strictEqual(response.json.error.code, "not_found")
      assert.deepStrictEqual(response.json.meta, {
        request_id: response.headers.get("x-request-id"),
        api_version: "v1"
      })
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answers a known path asked with another method with 405 and Allow", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope, storeEnvelope)
      const response = yield* request(`${url}/echo`, { method: "DELETE" })
      assert.strictEqual(response.status, 405)
      assert.strictEqual(response.headers.get("allow"), "POST")
      assert.strictEqual(response.json.error.code, "method_not_allowed")
      assert.strictEqual(response.json.error.message, "Method DELETE not allowed on /echo; use POST")
      const docs = yield* request(`${url}/v1/openapi.json`, { method: "POST" })
      assert.strictEqual(docs.status, 405)
      assert.strictEqual(docs.headers.get("allow"), "GET, HEAD")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("refuses a body over the limit with 413 in the envelope", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope)
      const response = yield* request(`${url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "x".repeat(MAX_BODY * 4) })
      })
      assert.strictEqual(response.status, 413)
      assert.deepStrictEqual(response.json, {
        error: { code: "payload_too_large", message: `Request body is larger than ${MAX_BODY} bytes` }
      })
      const small = yield* request(`${url}/echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "ok" })
      })
      assert.strictEqual(small.status, 200)
      assert.deepStrictEqual(small.json, { name: "ok" })
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answers malformed JSON, invalid fields and a non-JSON body with a 4xx envelope", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope)
      const post = (body: string, contentType: string) =>
        request(`${url}/echo`, { method: "POST", headers: { "content-type": contentType }, body })
      for (const [body, contentType] of [
        ["{not json", "application/json"],
        [JSON.stringify({ name: "" }), "application/json"],
        [JSON.stringify({ name: 42 }), "application/json"],
        ["name=x", "text/plain"]
      ] as const) {
        const response = yield* post(body, contentType)
        assert.isTrue(response.status >= 400 && response.status < 500, `${body} → ${response.status}`)
        assert.isString(response.json.error.code)
        assert.isString(response.json.error.message)
      }
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answers a defect with 500 in the envelope: request id in, internals out", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url, lines } = yield* startServer(scope)
      const response = yield* request(`${url}/boom`)
      assert.strictEqual(response.status, 500)
      assert.strictEqual(response.json.error.code, "internal_error")
      const requestId = response.headers.get("x-request-id")!
      assert.include(response.json.error.message, requestId)
      assert.notInclude(response.text, "kaboom")
      assert.notInclude(response.text, "/secret/internal/path")
      const logged = lines.join("\n")
      assert.include(logged, "unhandled failure", "the defect is logged for the operator")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("answers a database that cannot be reached with 503 unavailable and Retry-After, in each envelope", () =>
    Effect.gen(function* () {
      for (const [envelope, name] of [
        [shippingEnvelope, "shipping"],
        [storeEnvelope, "store"]
      ] as const) {
        const scope = yield* Scope.make()
        const { url, lines } = yield* startServer(scope, envelope)
        const response = yield* request(`${url}/database-down`)
        assert.strictEqual(response.status, 503, name)
        assert.strictEqual(response.headers.get("retry-after"), "5")
        assert.strictEqual(response.json.error.code, "unavailable")
        assert.match(response.json.error.message, /database cannot be reached; retry in 5 seconds/)
        assert.notInclude(response.text, "ECONNREFUSED")
        assert.notInclude(response.text, "5432")
        if (name === "store") {
          assert.strictEqual(response.json.error.retry_after, 5)
          assert.strictEqual(response.json.meta.request_id, response.headers.get("x-request-id"))
        } else {
          assert.deepStrictEqual(Object.keys(response.json.error).sort(), ["code", "message"])
        }
        const logged = lines.join("\n")
        assert.include(logged, "database unavailable")
        assert.notInclude(logged, "unhandled failure", "not logged as a bug")
        yield* Scope.close(scope, Exit.void)
      }
    })
  )

  it.live("still answers any other database failure with 500: a bug", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url, lines } = yield* startServer(scope, storeEnvelope)
      const response = yield* request(`${url}/bad-query`)
      assert.strictEqual(response.status, 500)
      assert.strictEqual(response.json.error.code, "internal_error")
      assert.isNull(response.headers.get("retry-after"))
      assert.include(lines.join("\n"), "unhandled failure")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("echoes a valid X-Request-Id and replaces an invalid one", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope)
      const echoed = yield* request(`${url}/nope`, { headers: { "x-request-id": "client-42:a.b_c-d" } })
      assert.strictEqual(echoed.headers.get("x-request-id"), "client-42:a.b_c-d")
      const replaced = yield* request(`${url}/nope`, { headers: { "x-request-id": "has spaces <script>" } })
      assert.match(replaced.headers.get("x-request-id")!, /^req_[0-9a-f]{24}$/)
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("logs one access line per request, without the query string", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url, lines } = yield* startServer(scope)
      yield* request(`${url}/v1/orders?customer_phone=0555123456`)
      const logged = lines.join("\n")
      assert.include(logged, '"path":"/v1/orders"')
      assert.include(logged, '"status":404')
      assert.notInclude(logged, "0555123456")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("lets an in-flight request finish on shutdown, then refuses new connections", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { url } = yield* startServer(scope)
      const inFlight = yield* Effect.forkChild(request(`${url}/slow`))
      yield* Effect.sleep("150 millis")
      yield* Scope.close(scope, Exit.void)
      const finished = yield* Fiber.join(inFlight)
      assert.strictEqual(finished.status, 200)
      assert.strictEqual(finished.json, "done")
      const after = yield* Effect.exit(Effect.tryPromise(() => fetch(`${url}/slow`)))
      assert.isTrue(Exit.isFailure(after), "the listener is closed")
    })
  )
})
