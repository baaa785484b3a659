/**
 * Requests of both servers, counted and timed per API, method, route template and status (effect `Metric`s in the
 * default registry, served on `/metrics` and sent over OTLP when configured). The route is the endpoint's template
 * (`/v1/orders/:id`), never the path as sent: ids, tracking numbers and query strings stay out of the labels, and
 * a path no route knows counts as `unmatched`, so a scan of random URLs cannot grow the series.
 *
 * Written for the request path (it runs on every request, traced or not): one `Map` lookup per request finds the
 * series' two metrics, made once per (api, method, route, status).
 */
import { AccessMetrics } from "@tawsil/access"
import { IdempotencyMetrics } from "@tawsil/idempotency"
import { ShipmentMetrics } from "@tawsil/shipments"
import * as ShippingMetrics from "@tawsil/shipping/ShippingMetrics"
import { TrackerMetrics } from "@tawsil/tracker"
import { WebhookMetrics } from "@tawsil/webhooks"
import { type Context, Effect, Metric } from "effect"

const requestsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.counter("http_server_requests_total", {
    description: "HTTP requests answered, by API, method, route template and status",
    incremental: true,
    attributes
  })
export const requests = requestsWith()

const durationWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.histogram("http_server_request_duration_seconds", {
    description:
      "HTTP request duration in seconds (until the answer is ready), by API, method, route template and status",
    boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    attributes
  })
export const duration = durationWith()

/** What a path no route of the API knows is counted under. */
export const UNMATCHED = "unmatched"

interface Series {
  readonly requests: Metric.Metric<number, unknown>
  readonly duration: Metric.Metric<number, unknown>
}

// Bounded: methods × the APIs' route templates × statuses.
const series = new Map<string, Series>()

const seriesOf = (api: string, method: string, route: string, status: number): Series => {
  const key = `${api} ${method} ${route} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    const attributes = { api, method, route, status: String(status) }
    // Made with their attributes, so that an update is a lookup (see @tawsil/tracing's MetricSeries).
    found = { requests: requestsWith(attributes), duration: durationWith(attributes) }
    series.set(key, found)
  }
  return found
}

/** Records one answered request, in the registry of `context`. */
export const record = (
  context: Context.Context<never>,
  request: { readonly api: string; readonly method: string; readonly route: string | undefined },
  status: number,
  durationMs: number
) => {
  const found = seriesOf(request.api, request.method, request.route ?? UNMATCHED, status)
  found.requests.updateUnsafe(1, context)
  found.duration.updateUnsafe(durationMs / 1000, context)
}

/**
 * Every documented family of the process at zero (docs/operations.md "Traces and metrics"), registered at start: a
 * scraper sees each family from the first scrape, not at its first event. Requests' families without labels (their
 * routes and statuses come with requests); the circuit gauge appears at an origin's first transition, as documented.
 */
export const zero = Effect.all(
  [
    Metric.value(requests),
    Metric.value(duration),
    ShippingMetrics.zero,
    AccessMetrics.zero,
    IdempotencyMetrics.zero,
    WebhookMetrics.zero,
    ShipmentMetrics.zero,
    // Until the tracker's writer registers its reading of the queue.
    Metric.value(TrackerMetrics.queueRows)
  ],
  { discard: true }
)
