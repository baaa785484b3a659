/**
 * One HTTP server for one API: its HttpApi routes and OpenAPI document, its docs page, the edge layer (request
 * id, access log, error envelope), the body-size limit, and a Node listener that drains in-flight requests on
 * shutdown. Both servers are built by this one function, so they behave alike.
 */

import type * as NodeHttp from "node:http"
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, type Duration, Effect, Layer } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer } from "effect/http"
import { type HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiScalar } from "effect/http-api"
import * as Edge from "./Edge.ts"

export interface ServerOptions<Id extends string, Groups extends HttpApiGroup.Constraint, E, R> {
  readonly name: string
  readonly api: HttpApi.HttpApi<Id, Groups>
  readonly handlers: Layer.Layer<HttpApiGroup.ToService<Id, Groups>, E, R>
  readonly envelope: Edge.Envelope
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  readonly shutdownTimeout: Duration.Duration
}

export const make = <Id extends string, Groups extends HttpApiGroup.Constraint, E, R>(
  options: ServerOptions<Id, Groups, E, R>
) => {
  const routes = Layer.mergeAll(
    HttpApiBuilder.layer(options.api, { openapiPath: "/v1/openapi.json" }).pipe(Layer.provide(options.handlers)),
    HttpApiScalar.layer(options.api, { path: "/docs" }),
    Edge.layer({ envelope: options.envelope, maxBodyBytes: options.maxBodyBytes })
  )
  // Tests and supervisors read the bound address (PORT=0 picks a free one) from this line.
  const listening = Layer.effectDiscard(
    HttpServer.addressFormattedWith((url) =>
      Effect.logInfo("listening").pipe(Effect.annotateLogs({ api: options.name, url }))
    )
  )
  // Node's close() ends the connections idle at that moment; a keep-alive connection whose request was still in
  // flight would then linger until its keep-alive timeout. Keep closing idle ones until the listener is closed.
  const listener = (nodeServer: NodeHttp.Server) => {
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
    return Layer.mergeAll(
      HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }),
      listening,
      closeIdleOnShutdown
    ).pipe(
      Layer.provideMerge(
        NodeHttpServer.layer(() => nodeServer, {
          host: options.host,
          port: options.port,
          gracefulShutdownTimeout: options.shutdownTimeout
        })
      ),
      Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(options.maxBodyBytes)))
    )
  }
  return Layer.unwrap(Effect.sync(() => listener(createServer())))
}
