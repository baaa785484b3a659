import * as NodeHttp from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { ErrorCategory } from "@tawsil/domain"
import { Context, Duration, Effect, Exit, Fiber, Layer, Logger, Schema, Scope } from "effect"
import { HttpServer, HttpServerRequest } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema
} from "effect/http-api"
import * as DirectRoute from "../src/DirectRoute.ts"
import * as Server from "../src/Server.ts"
import { envelope } from "../src/shipping/Errors.ts"
import { type Sent, send } from "./FramedPost.ts"

// An endpoint with everything a direct route derives from the definition: headers, a strict payload, a success,
// an error with a status, an error with a header, a middleware that reads the request and one that does not.
const Item = Schema.Struct({
  name: Schema.String.check(Schema.isBetweenLength(1, 10)),
  count: Schema.optionalKey(Schema.Int)
})

const ErrorBody = <Code extends string>(code: Code) =>
  Schema.Struct({
    code: Schema.Literal(code),
    message: Schema.String,
    fields: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  })

class Conflict extends Schema.Error<Conflict>("Conflict")({ error: ErrorBody("conflict") }, { httpApiStatus: 409 }) {}
class Invalid extends Schema.Error<Invalid>("Invalid")({ error: ErrorBody("invalid_input") }, { httpApiStatus: 400 }) {}
class Busy extends Schema.TaggedError<Busy>()("Busy", { retryAfterSeconds: Schema.Int }) {}
const BusyResponse = Busy.pipe(
  HttpApiSchema.encodeToWithHeaders(
    {
      body: Schema.Struct({ error: ErrorBody("busy") }).pipe(HttpApiSchema.status(429)),
      headers: { "retry-after": Schema.NumberFromString }
    },
    {
      decode: ({ headers }) => new Busy({ retryAfterSeconds: headers["retry-after"] }),
      encode: (error) => ({
        body: { error: { code: "busy" as const, message: "busy" } },
        headers: { "retry-after": error.retryAfterSeconds }
      })
    }
  )
)

/** Reads the request: refuses callers that send `x-gate: closed`. */
class Gate extends HttpApiMiddleware.Service<Gate>()("test/Gate", { error: BusyResponse }) {}
/** Reads nothing: turns decoding failures into `Invalid`. */
class Validation extends HttpApiMiddleware.Service<Validation>()("test/Validation", { error: Invalid }) {}

class TestApi extends HttpApi.make("test")
  .add(
    HttpApiGroup.make("items", { topLevel: true })
      .add(
        HttpApiEndpoint.post("create", "/items", {
          payload: Item,
          headers: { "x-mode": Schema.optionalKey(Schema.Literals(["fast", "careful"])) },
          success: Item,
          error: Conflict
        })
      )
      .middleware(Gate)
  )
  .middleware(Validation)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" }) {}

const gateClosed = new Busy({ retryAfterSeconds: 30 })

const gate = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request): Effect.Effect<void, Busy> =>
    request.headers["x-gate"] === "closed" ? Effect.fail(gateClosed) : Effect.void
)

const GateLayer = Layer.succeed(Gate, (httpEffect) => Effect.andThen(gate, httpEffect))

const ValidationLayer = HttpApiMiddleware.layerSchemaErrorTransform(Validation, (error) =>
  error.kind === "Body" || error.kind === "ResponseHeaders"
    ? Effect.fail(error)
    : Effect.fail(
        new Invalid({
          error: {
            code: "invalid_input",
            message: error.kind,
            fields: ErrorCategory.fromIssue(error.cause.issue) as Record<string, string>
          }
        })
      )
)

/** Which way each handled request went. */
interface Counts {
  routed: number
  direct: number
  interrupted: number
}

const handle =
  (counts: Counts) =>
  ({ payload }: { readonly payload: typeof Item.Type }): Effect.Effect<typeof Item.Type, Conflict | Busy> => {
    switch (payload.name) {
      case "conflict":
        return Effect.fail(new Conflict({ error: { code: "conflict", message: "already there" } }))
      case "busy":
        return Effect.fail(new Busy({ retryAfterSeconds: 7 }))
      case "boom":
        return Effect.die(new Error("kaboom /secret/path"))
      case "wait":
        return Effect.as(Effect.sleep("400 millis"), payload)
      case "hang":
        return Effect.never.pipe(
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              counts.interrupted++
            })
          )
        )
      default:
        return Effect.succeed(payload)
    }
  }

const handlers = (counts: Counts, middlewares: DirectRoute.Options<never, never, never>["middlewares"]) =>
  HttpApiBuilder.group(TestApi, "items", (handlers) =>
    Effect.gen(function* () {
      const core = handle(counts)
      yield* DirectRoute.register(TestApi, "items", "create", {
        middlewares,
        handler: (input) => {
          counts.direct++
          return core(input)
        }
      })
      return handlers.handle("create", (input) => {
        counts.routed++
        return core(input)
      })
    })
  ).pipe(Layer.provide([GateLayer, ValidationLayer]))

const directMiddlewares: DirectRoute.Options<never, never, never>["middlewares"] = {
  [Gate.key]: (effect, request) => (request.headers["x-gate"] === "closed" ? Effect.fail(gateClosed) : effect),
  [Validation.key]: DirectRoute.asIs
}

const MAX_BODY = 1024

const startServer = (scope: Scope.Closeable, middlewares = directMiddlewares) =>
  Effect.gen(function* () {
    const counts: Counts = { routed: 0, direct: 0, interrupted: 0 }
    const lines: Array<string> = []
    const capture = Logger.map(Logger.formatJson, (line) => {
      lines.push(line)
    })
    const context = yield* Layer.buildWithScope(
      Server.make(
        { host: "127.0.0.1", maxBodyBytes: MAX_BODY, shutdownTimeout: Duration.seconds(5) },
        { name: "test", api: TestApi, serve: { handlers: handlers(counts, middlewares) }, envelope, port: 0 }
      ).pipe(Layer.provide(Logger.layer([capture]))),
      scope
    )
    const url = new URL(HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address))
    return { port: Number(url.port), counts, lines }
  })

/** What must be identical both ways: status, headers (but the date) and body. */
const comparable = (sent: Sent) => {
  const { date: _, ...headers } = sent.headers
  return { status: sent.status, headers, body: sent.body }
}

const BOM = "\uFEFF"

describe("DirectRoute", () => {
  it.live("answers each request exactly as HttpApi answers it, and serves it without HttpApi", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { port, counts, lines } = yield* startServer(scope)
      const cases: ReadonlyArray<{
        readonly name: string
        readonly body: string
        readonly headers?: Record<string, string>
        readonly path?: string
        readonly status: number
        readonly handled: boolean
      }> = [
        { name: "a valid item", body: '{"name":"ok","count":2}', status: 200, handled: true },
        { name: "a query string", path: "/items?x=1", body: '{"name":"ok"}', status: 200, handled: true },
        { name: "a byte-order mark", body: `${BOM}{"name":"ok"}`, status: 200, handled: true },
        {
          name: "JSON with parameters, in capitals",
          body: '{"name":"ok"}',
          headers: { "content-type": "Application/JSON; charset=utf-8" },
          status: 200,
          handled: true
        },
        { name: "a handler error", body: '{"name":"conflict"}', status: 409, handled: true },
        { name: "an error with a header", body: '{"name":"busy"}', status: 429, handled: true },
        { name: "a defect", body: '{"name":"boom"}', status: 500, handled: true },
        { name: "invalid fields", body: '{"name":"","count":1.5,"extra":true}', status: 400, handled: false },
        { name: "not JSON", body: '{"name":', status: 400, handled: false },
        { name: "an empty body", body: "", status: 400, handled: false },
        { name: "JSON null", body: "null", status: 400, handled: false },
        {
          name: "an invalid header",
          body: '{"name":"ok"}',
          headers: { "x-mode": "turbo" },
          status: 400,
          handled: false
        },
        {
          name: "a refusing middleware",
          body: '{"name":"ok"}',
          headers: { "x-gate": "closed" },
          status: 429,
          handled: false
        },
        {
          name: "an invalid header behind a refusing middleware",
          body: "{",
          headers: { "x-gate": "closed", "x-mode": "turbo" },
          status: 429,
          handled: false
        }
      ]
      for (const [index, testCase] of cases.entries()) {
        // The same request id both ways, so that even the 500's message is the same.
        const headers = { "x-request-id": `case-${index}`, ...testCase.headers }
        const before = { ...counts }
        const direct = yield* send(port, { ...testCase, headers, chunked: false })
        const routed = yield* send(port, { ...testCase, headers, chunked: true })
        assert.strictEqual(direct.status, testCase.status, `${testCase.name}: ${direct.body}`)
        assert.deepStrictEqual(comparable(direct), comparable(routed), testCase.name)
        const handled = testCase.handled ? 1 : 0
        assert.deepStrictEqual(
          [counts.direct - before.direct, counts.routed - before.routed],
          [handled, handled],
          `${testCase.name}: the Content-Length request is answered directly, the chunked one by HttpApi`
        )
      }
      const busy = yield* send(port, { body: '{"name":"busy"}', chunked: false })
      assert.strictEqual(busy.headers["retry-after"], "7")
      assert.match(String(busy.headers["x-request-id"]), /^req_[0-9a-f]{24}$/)
      const logged = lines.join("\n")
      assert.strictEqual(logged.split("unhandled failure").length - 1, 2, "the defect is logged both ways")
      assert.notInclude(logged, "x=1", "no access line carries the query string")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("leaves to HttpApi what it would not read as one JSON body within the limit", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { port, counts } = yield* startServer(scope)
      const tooLarge = yield* send(port, { body: JSON.stringify({ name: "x".repeat(MAX_BODY) }), chunked: false })
      assert.strictEqual(tooLarge.status, 413)
      assert.strictEqual(JSON.parse(tooLarge.body).error.code, "payload_too_large")
      const text = yield* send(port, {
        body: '{"name":"ok"}',
        headers: { "content-type": "text/plain" },
        chunked: false
      })
      assert.strictEqual(text.status, 415)
      const slash = yield* send(port, { path: "/items/", body: '{"name":"ok"}', chunked: false })
      assert.strictEqual(slash.status, 200)
      assert.deepStrictEqual([counts.direct, counts.routed], [0, 1], "only the trailing-slash path reached a handler")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("does not start when a middleware of the endpoint has no direct form", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const exit = yield* Effect.exit(startServer(scope, { [Validation.key]: DirectRoute.asIs }))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "no direct form for middleware test/Gate")
      yield* Scope.close(scope, Exit.void)
    })
  )

  it.live("lets an in-flight direct request finish on shutdown", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { port, counts } = yield* startServer(scope)
      const inFlight = yield* Effect.forkChild(send(port, { body: '{"name":"wait"}', chunked: false }))
      yield* Effect.sleep("150 millis")
      yield* Scope.close(scope, Exit.void)
      const finished = yield* Fiber.join(inFlight)
      assert.strictEqual(finished.status, 200)
      assert.deepStrictEqual(JSON.parse(finished.body), { name: "wait" })
      assert.strictEqual(counts.direct, 1)
    })
  )

  it.live("interrupts the handler when the client goes away", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { port, counts } = yield* startServer(scope)
      yield* Effect.callback<void>((resume) => {
        const body = '{"name":"hang"}'
        const request = NodeHttp.request({
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/items",
          agent: false,
          headers: { "content-type": "application/json", "content-length": String(body.length) }
        })
        request.on("error", () => {})
        request.end(body)
        setTimeout(() => {
          request.destroy()
          resume(Effect.void)
        }, 150)
      })
      for (let attempt = 0; attempt < 50 && counts.interrupted === 0; attempt++) yield* Effect.sleep("20 millis")
      assert.deepStrictEqual([counts.direct, counts.interrupted], [1, 1])
      yield* Scope.close(scope, Exit.void)
    })
  )
})
