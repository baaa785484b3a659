/**
 * Traces and metrics over OTLP, through effect's own exporters (`effect/observability`: `OtlpTracer`, `OtlpMetrics`,
 * `OtlpSerialization` JSON over HTTP), configured by the `OTEL_*` variables (AppConfig). With no endpoint nothing is
 * installed: no tracer (effect's HTTP server then opens no request span, decision 0013's `ServiceSpans` stay off)
 * and no exporter, so the untraced path is the one measured in docs/benchmarks.md.
 *
 * With traces on, the tracer is effect's OTLP one behind `SpanHygiene`, which drops what must never leave the
 * process: query strings (`url.query`, and `url.full` cut at the `?`), the client's address, and any captured
 * header. The service spans are switched on, so a request's trace holds its server span, the domain spans and SQL
 * statements beneath it, and the courier calls as client spans (`@tawsil/shipping` `HttpTransport`).
 */
import { ServiceSpans } from "@tawsil/tracing"
import { Duration, Effect, Layer, Redacted, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpExporter, OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { AppConfig } from "./AppConfig.ts"

/** Span attributes never exported: they carry query strings, the caller's address or headers. */
const DROPPED = new Set(["url.query", "client.address", "network.peer.address", "http.request.header.authorization"])

/** `url.full` without its query string, fragment and userinfo. */
export const withoutQuery = (url: string) => {
  try {
    const parsed = new URL(url)
    parsed.search = ""
    parsed.hash = ""
    parsed.username = ""
    parsed.password = ""
    return parsed.href
  } catch {
    const cut = url.search(/[?#]/)
    return cut === -1 ? url : url.slice(0, cut)
  }
}

/** Whether an attribute may be exported, and as what (undefined: dropped). */
export const safeAttribute = (key: string, value: unknown): unknown => {
  if (DROPPED.has(key) || key.startsWith("http.request.header.") || key.startsWith("http.response.header.")) {
    return undefined
  }
  if (key === "url.full" && typeof value === "string") return withoutQuery(value)
  return value
}

/** A tracer whose spans pass every attribute through `safeAttribute` first. */
export const SpanHygiene = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(options) {
      const span = tracer.span(options)
      const attribute = (key: string, value: unknown) => {
        const safe = safeAttribute(key, value)
        if (safe !== undefined) span.attribute(key, safe)
      }
      return new Proxy(span, {
        get: (target, property) => {
          if (property === "attribute") return attribute
          const value = Reflect.get(target, property, target)
          return typeof value === "function" ? value.bind(target) : value
        }
      })
    },
    ...(tracer.context === undefined ? {} : { context: tracer.context })
  })

const resource = (config: AppConfig) => ({ serviceName: config.otlp.serviceName, serviceVersion: config.version })

/** Whether a tracer is installed: the services then open their spans (`ServiceSpans`, decision 0013). */
export const traced = (config: AppConfig) => config.otlp.traces !== undefined

/** The service spans: on where a tracer listens, off where they would be built and dropped. */
export const serviceSpans = (config: AppConfig) => Layer.succeed(ServiceSpans.ServiceSpans, traced(config))

/** The OTLP exporters the configuration asks for; `Layer.empty` when it asks for none (the default). */
export const layer = (config: AppConfig) => {
  const { traces, metrics } = config.otlp
  if (traces === undefined && metrics === undefined) return Layer.empty
  const parts = [
    ...(traces === undefined
      ? []
      : [
          Layer.effect(
            Tracer.Tracer,
            Effect.map(
              OtlpTracer.make({
                url: traces.url,
                headers: Redacted.value(traces.headers),
                resource: resource(config),
                exportInterval: config.otlp.tracesInterval,
                shutdownTimeout: Duration.seconds(3)
              }),
              SpanHygiene
            )
          )
        ]),
    ...(metrics === undefined
      ? []
      : [
          OtlpMetrics.layer({
            url: metrics.url,
            headers: Redacted.value(metrics.headers),
            resource: resource(config),
            exportInterval: config.otlp.metricsInterval,
            shutdownTimeout: Duration.seconds(3)
          })
        ])
  ]
  return Layer.mergeAll(...(parts as [Layer.Layer<never>, ...Array<Layer.Layer<never>>])).pipe(
    Layer.provide([OtlpExporter.layerFlusher, OtlpSerialization.layerJson, FetchHttpClient.layer])
  )
}
