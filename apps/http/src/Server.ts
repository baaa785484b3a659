/**
 * One HTTP server for one API: its HttpApi routes (`HttpApiBuilder`, from the API's group handlers) and OpenAPI
 * document, its docs page, the probes `/health/live` and `/health/ready` (Health.ts), the edge layer (request id,
 * access log, error envelope), the body-size limit, and a Node listener that drains in-flight requests on shutdown.
 * Both servers are built by this one function, so they behave alike.
 */

import * as NodeHttp from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ByteSize, Effect, Layer, Option, References, Scope } from "effect"
import { FindMyWay, HttpIncomingMessage, HttpMiddleware, HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiScalar } from "effect/http-api"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import type { AppConfig } from "./AppConfig.ts"
import { BoundUrls } from "./BoundUrls.ts"
import * as Edge from "./Edge.ts"
import * as Health from "./Health.ts"
import * as NodeListener from "./NodeListener.ts"

export interface ServerOptions<Id extends string, Groups extends HttpApiGroup.Constraint, E, R, RR = never> {
  readonly name: string
  readonly api: HttpApi.HttpApi<Id, Groups>
  readonly envelope: Edge.Envelope
  readonly port: number
  /** Every group of `api`, implemented (`HttpApiBuilder.group`), with the middlewares they use. */
  readonly handlers: Layer.Layer<HttpApiGroup.ToService<Id, Groups>, E, R>
  /** Paths of `api` this listener does not serve: the edge answers them as unknown routes (404), whatever the method. */
  readonly absentPaths?: ReadonlySet<string> | undefined
  /** Routes this listener serves beside the API's (the MCP endpoint), on its router and behind its edge. */
  readonly routes?: Layer.Layer<never, never, HttpRouter.HttpRouter | RR> | undefined
}

const OPENAPI_PATH = "/v1/openapi.json"
const DOCS_PATH = "/docs"
export const LIVE_PATH = "/health/live"
export const READY_PATH = "/health/ready"

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const

/** The methods each path of the API answers (its endpoints, plus the OpenAPI document and the docs page). */
const allowedMethods = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const routes = FindMyWay.make<true>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.on(endpoint.method, endpoint.path as FindMyWay.PathInput, true)
  })
  routes.on("GET", OPENAPI_PATH, true)
  routes.on("GET", DOCS_PATH, true)
  routes.on("GET", LIVE_PATH, true)
  routes.on("GET", READY_PATH, true)
  return (path: string): ReadonlyArray<string> =>
    METHODS.filter((method) => routes.find(method === "HEAD" ? "GET" : method, path) !== undefined)
}

/**
 * The route template answering a method and path (`/v1/orders/:id`), for the request metrics and the server span's
 * name; the probes, the OpenAPI document and the docs page are routes too. Undefined for a path no route knows.
 */
export const routeTemplates = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) => {
  const routes = FindMyWay.make<string>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) =>
      routes.on(endpoint.method, endpoint.path as FindMyWay.PathInput, endpoint.path as string)
  })
  for (const path of [OPENAPI_PATH, DOCS_PATH, LIVE_PATH, READY_PATH] as const) routes.on("GET", path, path)
  return (method: string, path: string): string | undefined =>
    routes.find(method === "HEAD" ? "GET" : method, path)?.handler
}

/**
 * The reference page at `/docs` asks no other host for anything, so that it tells no third party who reads it and
 * renders the same with no network: Scalar's bundle is inline (`HttpApiScalar.layer`, not the CDN one), and its two
 * default fonts (Inter and JetBrains Mono, from fonts.scalar.com) are off, the page using the reader's system fonts.
 */
export const DOCS_SCALAR: HttpApiScalar.ScalarConfig = {
  withDefaultFonts: false,
  customCss:
    ':root { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; ' +
    '--scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; }'
}

/**
 * The reference page of `api` at `/docs`. Scalar's bundle is 6 MB of source, held twice in the heap once loaded: it
 * is loaded by the page's first request, not at start, so that a process nobody reads the page of does not carry it
 * (issue 22: idle memory). The page is then built once and served from memory, as before.
 */
export const docsPage = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  HttpRouter.use((router) =>
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const page = yield* Effect.cached(
        HttpRouter.toHttpEffect(HttpApiScalar.layer(api, { path: DOCS_PATH, scalar: DOCS_SCALAR })).pipe(
          Scope.provide(scope)
        )
      )
      yield* router.add("GET", DOCS_PATH, Effect.orDie(Effect.flatten(page)))
    })
  )

const NO_STORE = { "cache-control": "no-store" }

/** `/health/live`'s answer: the process runs. */
const liveBody = (draining: boolean) => JSON.stringify({ status: "live", draining })

/**
 * The probes, as routes behind the edge. `/health/ready` asks the app's `Readiness` (database and migrations) when
 * there is one (a server built alone, in tests, has none: its readiness is its own state).
 */
const probes = (
  envelope: Edge.Envelope,
  lifecycle: Health.Lifecycle["Service"],
  readiness: Health.Readiness["Service"] | undefined
) => {
  const notReady = (failed: Health.NotReady) =>
    Effect.map(Edge.RequestId, (requestId) =>
      HttpServerResponse.jsonUnsafe(
        envelope.render({ code: Edge.codeOf(envelope, 503), message: `not ready: ${failed.message}` }, requestId),
        { status: 503, headers: NO_STORE }
      )
    )
  const draining: Health.NotReady = { check: "draining", message: "this process is stopping" }
  const ready = Effect.gen(function* () {
    if (lifecycle.draining) return yield* notReady(draining)
    const checked = readiness === undefined ? undefined : yield* Effect.result(readiness.check)
    if (checked?._tag === "Failure") return yield* notReady(checked.failure)
    // A stop may have begun during the check.
    if (lifecycle.draining) return yield* notReady(draining)
    return HttpServerResponse.jsonUnsafe(
      { status: "ready", ...(checked === undefined ? {} : checked.success) },
      { headers: NO_STORE }
    )
  })
  const live = Effect.sync(() =>
    HttpServerResponse.text(liveBody(lifecycle.draining), { contentType: "application/json", headers: NO_STORE })
  )
  return HttpRouter.use((router) =>
    Effect.andThen(router.add("GET", LIVE_PATH, live), router.add("GET", READY_PATH, ready))
  )
}

/**
 * Every endpoint's request bodies decoded by code effect's schema compiler generates once per schema, instead of by
 * its interpreter walking the schema on every request: the same rules and the same issues, a third of a create's
 * decoding cost (issue 22, docs/benchmarks.md). Called before the API's handlers are built, which is when they take
 * their decoders. A schema the compiler cannot handle keeps the interpreter.
 */
const compileBodyDecoders = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
) =>
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      for (const { schemas } of endpoint.payload.values())
        for (const schema of schemas) SchemaJITCompiler.enable(schema.ast)
    }
  })

export const make = <Id extends string, Groups extends HttpApiGroup.Constraint, E, R, RR = never>(
  config: Pick<AppConfig, "host" | "maxBodyBytes" | "shutdownTimeout">,
  options: ServerOptions<Id, Groups, E, R, RR>
) => {
  compileBodyDecoders(options.api)
  const templates = routeTemplates(options.api)
  const routeOf = (method: string, path: string) =>
    options.absentPaths?.has(path) ? undefined : templates(method, path)
  const edge: Edge.EdgeOptions = {
    api: options.name,
    routeOf,
    envelope: options.envelope,
    maxBodyBytes: config.maxBodyBytes,
    allowedMethods:
      options.absentPaths === undefined
        ? allowedMethods(options.api)
        : (
            (allowed) => (path: string) =>
              options.absentPaths!.has(path) ? [] : allowed(path)
          )(allowedMethods(options.api))
  }
  const listener = (
    nodeServer: NodeHttp.Server,
    lifecycle: Health.Lifecycle["Service"],
    readiness: Health.Readiness["Service"] | undefined,
    door: NodeListener.Door["Service"] | undefined
  ) => {
    const handoff = NodeListener.attach(nodeServer, { edge, routeOf, lifecycle, door, livePath: LIVE_PATH, liveBody })
    // Tests and supervisors read the bound address (PORT=0 picks a free one) from this line, so it is written
    // whatever LOG_LEVEL says. It is written once the router serves.
    const listening = Layer.effectDiscard(
      HttpServer.addressFormattedWith((url) =>
        handoff.attached.pipe(
          // Outside the annotations and the level below: the door's checks and answers run in this context.
          Effect.andThen(handoff.serve),
          // The app's own clients (the MCP endpoint) reach this listener at its bound address.
          Effect.andThen(
            Effect.flatMap(Effect.serviceOption(BoundUrls), (bound) =>
              bound._tag === "Some" ? bound.value.report(options.name, url) : Effect.void
            )
          ),
          Effect.andThen(
            Effect.logInfo("listening").pipe(
              Effect.annotateLogs({ api: options.name, url }),
              Effect.provideService(References.MinimumLogLevel, "Info")
            )
          )
        )
      )
    )
    const endpoints = HttpApiBuilder.layer(options.api, { openapiPath: OPENAPI_PATH }).pipe(
      Layer.provide(options.handlers)
    )
    const routes = Layer.mergeAll(
      endpoints,
      docsPage(options.api),
      probes(options.envelope, lifecycle, readiness),
      Edge.layer(edge),
      options.routes ?? Layer.empty
    )
    // Node's close() ends the connections idle at that moment; a keep-alive connection whose request was still in
    // flight would then linger until its keep-alive timeout. Keep closing idle ones until the listener is closed.
    const closeIdleOnShutdown = Layer.effectDiscard(
      Effect.gen(function* () {
        yield* HttpServer.HttpServer
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            nodeServer.closeIdleConnections()
            const timer = setInterval(() => nodeServer.closeIdleConnections(), 25)
            timer.unref()
            nodeServer.once("close", () => clearInterval(timer))
          })
        )
      })
    )
    // Read only where a tracer opens the request's server span: `GET /v1/orders/:id`, as OpenTelemetry names them.
    const spanNames = Layer.succeed(HttpMiddleware.SpanNameGenerator, (request) => {
      const arrival = Edge.arrivalOf(request.source as object)
      const route = arrival === undefined ? routeOf(request.method, Edge.pathOf(request.url)) : arrival.route
      return route === undefined ? request.method : `${request.method} ${route}`
    })
    return Layer.mergeAll(
      listening.pipe(
        Layer.provide(
          HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(Layer.provide(spanNames))
        )
      ),
      closeIdleOnShutdown
    ).pipe(
      Layer.provideMerge(
        NodeHttpServer.layer(() => nodeServer, {
          host: config.host,
          port: options.port,
          gracefulShutdownTimeout: config.shutdownTimeout
        })
      ),
      Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(config.maxBodyBytes)))
    )
  }
  // The app's stop state and readiness checks (App.ts); a server built alone drains with nobody to tell.
  return Layer.unwrap(
    Effect.map(
      Effect.all([
        Effect.serviceOption(Health.Lifecycle),
        Effect.serviceOption(Health.Readiness),
        Effect.serviceOption(NodeListener.Door)
      ]),
      ([lifecycle, readiness, door]) =>
        listener(
          NodeHttp.createServer(),
          Option.getOrElse(lifecycle, () => ({ draining: false })),
          Option.getOrUndefined(readiness),
          Option.getOrUndefined(door)
        )
    )
  )
}
