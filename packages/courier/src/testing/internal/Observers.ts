/**
 * What the conformance kit watches while a check runs, outside the adapter's reach: every HTTP request the process
 * starts (node:http and fetch, through Node's diagnostics channels, so an adapter that bypasses `CourierHttp` is seen
 * too), and every log line and span the check's fiber produces.
 */
import * as DiagnosticsChannel from "node:diagnostics_channel"
import type * as Http from "node:http"
import { Effect, Formatter, Logger, References, Tracer } from "effect"

/** An HTTP request the process started: where it went (`scheme://host[:port]`) and its path. */
export interface Outgoing {
  readonly origin: string
  readonly path: string
}

/** Records every HTTP request started in this process until the scope closes. */
export const outgoing = Effect.acquireRelease(
  Effect.sync(() => {
    const seen: Array<Outgoing> = []
    const onHttp = (message: unknown) => {
      const { request } = message as { readonly request: Http.ClientRequest }
      seen.push({ origin: `${request.protocol}//${String(request.getHeader("host"))}`, path: request.path })
    }
    const onFetch = (message: unknown) => {
      const { request } = message as { readonly request: { readonly origin: string; readonly path: string } }
      seen.push({ origin: request.origin, path: request.path })
    }
    DiagnosticsChannel.subscribe("http.client.request.start", onHttp)
    DiagnosticsChannel.subscribe("undici:request:create", onFetch)
    const stop = () => {
      DiagnosticsChannel.unsubscribe("http.client.request.start", onHttp)
      DiagnosticsChannel.unsubscribe("undici:request:create", onFetch)
    }
    return { seen: seen as ReadonlyArray<Outgoing>, stop }
  }),
  ({ stop }) => Effect.sync(stop)
)

/** Every way a value could be shown to someone: as JSON on the wire, inspected, and as a string. */
export const renderings = (value: unknown): ReadonlyArray<string> => [
  Formatter.formatJson(value),
  Formatter.format(value),
  String(value)
]

/**
 * Runs `effect` with every log line (at any level) and every span it produces captured as text in `into`:
 * the log's message, annotations and cause; the span's name, attributes and events.
 */
export const capturing =
  (into: Array<string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const logger = Logger.make((options) => {
      into.push(Formatter.formatJson(Logger.formatStructured.log(options)))
    })
    return effect.pipe(
      Effect.withTracer(tracer),
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.ensuring(
        Effect.sync(() => {
          for (const span of spans) {
            into.push(Formatter.formatJson({ span: span.name, attributes: [...span.attributes], events: span.events }))
          }
        })
      )
    )
  }
