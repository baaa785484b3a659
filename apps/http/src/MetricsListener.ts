/**
 * The Prometheus listener: `GET /metrics` answers every metric of the process in the Prometheus text format
 * (`effect/observability` `PrometheusMetrics`), on `METRICS_HOST`:`METRICS_PORT` (127.0.0.1:9464 by default), apart
 * from both APIs' public ports (decision 0021). Any other path answers 404, any other method 405. It serves nothing
 * else and needs no credential: keep it on loopback or a private network, where only the scraper reaches it.
 *
 * A plain `node:http` server rather than a third HttpApi: one route, no body, nothing to decode, and no request of
 * its own counted in the metrics it serves. It starts with the app, answers while the app drains, and closes with it.
 */
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, References, Schema } from "effect"
import { PrometheusMetrics } from "effect/observability"

export const PATH = "/metrics"

/** The listener could not listen (the port is taken, the address is not this host's): the start stops. */
export class MetricsListenError extends Schema.TaggedError<MetricsListenError>()("MetricsListenError", {
  message: Schema.String
}) {}

/** The listener on `host`:`port` (0: any free port), its address logged as `listening` with `api: "metrics"`. */
export const layer = (options: { readonly host: string; readonly port: number }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const server = NodeHttp.createServer((request, response) => {
        const path = (request.url ?? "").split("?")[0]
        if (path !== PATH) {
          response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n")
        } else if (request.method !== "GET" && request.method !== "HEAD") {
          response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end()
        } else {
          const body = PrometheusMetrics.formatUnsafe(context)
          response.writeHead(200, {
            "content-type": "text/plain; version=0.0.4; charset=utf-8",
            "cache-control": "no-store"
          })
          response.end(request.method === "HEAD" ? undefined : body)
        }
      })
      const address = yield* Effect.acquireRelease(
        Effect.callback<AddressInfo, MetricsListenError>((resume) => {
          server.once("error", (error: NodeJS.ErrnoException) =>
            resume(
              Effect.fail(
                new MetricsListenError({
                  message: `the metrics listener cannot listen on ${options.host}:${options.port} (${error.code ?? error.message}); set METRICS_PORT (or off)`
                })
              )
            )
          )
          server.listen(options.port, options.host, () => resume(Effect.succeed(server.address() as AddressInfo)))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address
      yield* Effect.logInfo("listening").pipe(
        Effect.annotateLogs({ api: "metrics", url: `http://${host}:${address.port}${PATH}` }),
        Effect.provideService(References.MinimumLogLevel, "Info")
      )
    })
  )
