/**
 * One HTTP server for one API: its HttpApi routes and OpenAPI document, its docs page, the edge layer (request
 * id, access log, error envelope), the body-size limit, the direct routes its handlers register (`DirectRoute`),
 * and a Node listener that drains in-flight requests on shutdown. Both servers are built by this one function, so
 * they behave alike.
 */

import * as NodeHttp from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Context, Effect, Layer, References, Scope } from "effect"
import { FindMyWay, HttpIncomingMessage, HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiScalar, OpenApi } from "effect/http-api"
import type { AppConfig } from "./AppConfig.ts"
import * as DirectRoute from "./DirectRoute.ts"
import * as Edge from "./Edge.ts"

export interface ServerOptions<Id extends string, Groups extends HttpApiGroup.Constraint, E, R> {
  readonly name: string
  readonly api: HttpApi.HttpApi<Id, Groups>
  readonly envelope: Edge.Envelope
  readonly port: number
  /**
   * How the API's endpoints are served: through `HttpApiBuilder` from the group handlers, or by routes the API
   * adds to the router itself (the store API, whose pipeline needs the raw request: see
   * docs/decisions/0010-store-api-pipeline.md). Either way the OpenAPI document comes from `api`. Both may
   * register direct routes (`DirectRoute.register`), which the server answers from Node's `request` event.
   */
  readonly serve:
    | { readonly handlers: Layer.Layer<HttpApiGroup.ToService<Id, Groups>, E, R> }
    | { readonly routes: Layer.Layer<never, E, R | HttpRouter.HttpRouter> }
}

const OPENAPI_PATH = "/v1/openapi.json"
const DOCS_PATH = "/docs"

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
  return (path: string): ReadonlyArray<string> =>
    METHODS.filter((method) => routes.find(method === "HEAD" ? "GET" : method, path) !== undefined)
}

/** A Node server whose `request` events go to its direct routes first, then to HttpApi. */
class Listener extends NodeHttp.Server {
  readonly lane = new DirectRoute.Lane()

  override emit(event: string | symbol, ...args: Array<unknown>): boolean {
    if (
      event === "request" &&
      this.lane.take(args[0] as NodeHttp.IncomingMessage, args[1] as NodeHttp.ServerResponse)
    ) {
      return true
    }
    return super.emit(event as string, ...args)
  }
}

export const make = <Id extends string, Groups extends HttpApiGroup.Constraint, E, R>(
  config: Pick<AppConfig, "host" | "maxBodyBytes" | "shutdownTimeout">,
  options: ServerOptions<Id, Groups, E, R>
) => {
  const edge: Edge.EdgeOptions = {
    envelope: options.envelope,
    maxBodyBytes: config.maxBodyBytes,
    allowedMethods: allowedMethods(options.api)
  }
  // Tests and supervisors read the bound address (PORT=0 picks a free one) from this line, so it is written
  // whatever LOG_LEVEL says.
  const listening = Layer.effectDiscard(
    HttpServer.addressFormattedWith((url) =>
      Effect.logInfo("listening").pipe(
        Effect.annotateLogs({ api: options.name, url }),
        Effect.provideService(References.MinimumLogLevel, "Info")
      )
    )
  )
  const listener = (nodeServer: Listener) => {
    const registry = Layer.succeed(DirectRoute.Registry, { add: (route) => nodeServer.lane.add(route) })
    const endpoints =
      "handlers" in options.serve
        ? HttpApiBuilder.layer(options.api, { openapiPath: OPENAPI_PATH }).pipe(
            Layer.provide(options.serve.handlers),
            Layer.provide(registry)
          )
        : Layer.mergeAll(
            options.serve.routes,
            HttpRouter.add("GET", OPENAPI_PATH, HttpServerResponse.jsonUnsafe(OpenApi.fromApi(options.api)))
          ).pipe(Layer.provide(registry))
    const routes = Layer.mergeAll(endpoints, HttpApiScalar.layer(options.api, { path: DOCS_PATH }), Edge.layer(edge))
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
    // The direct routes' requests drain like the routed ones: on shutdown they may finish until the listener has
    // closed (at most the shutdown timeout); whatever still runs then is interrupted.
    const directLane = Layer.effectDiscard(
      Effect.gen(function* () {
        yield* HttpServer.HttpServer
        let closed = false
        nodeServer.once("close", () => {
          closed = true
        })
        const requests = yield* Scope.fork(yield* Effect.scope)
        yield* Effect.addFinalizer(() =>
          Effect.callback<void>((resume) => {
            if (closed) return resume(Effect.void)
            nodeServer.once("close", () => resume(Effect.void))
          }).pipe(Effect.timeoutOrElse({ duration: config.shutdownTimeout, orElse: () => Effect.void }))
        )
        const context = Context.omit(Scope.Scope)(yield* Effect.context<never>()) as Context.Context<never>
        nodeServer.lane.start({ context, scope: requests, edge })
      })
    )
    return Layer.mergeAll(
      HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }),
      listening,
      closeIdleOnShutdown,
      directLane
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
  return Layer.unwrap(Effect.sync(() => listener(new Listener())))
}
