/**
 * What the shipping side counts, as effect `Metric`s in the default registry: the host exports them (the app serves
 * Prometheus text and, when configured, OTLP). Courier requests by courier key, platform and outcome, with their
 * latency; each courier origin's circuit; the shipping API's refusals by reason. Labels are keys, origins and
 * outcomes only — never credentials, accounts, tracking numbers or paths.
 */
import { MetricSeries } from "@tawsil/tracing"
import { type Context, Effect, Metric } from "effect"

/** One courier HTTP request's outcome: its status class, or why it got no answer. */
export type Outcome =
  | "2xx"
  | "3xx"
  | "4xx"
  | "5xx"
  | "timeout"
  | "unreachable"
  | "circuit_open"
  | "rate_limited"
  | "bad_response"
  | "blocked"
  | "interrupted"

export const statusClass = (status: number): Outcome =>
  status >= 500 ? "5xx" : status >= 400 ? "4xx" : status >= 300 ? "3xx" : "2xx"

const courierRequestsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.counter("tawsil_courier_requests_total", {
    description: "Courier HTTP requests by courier key, platform and outcome (status class, or why no answer came)",
    incremental: true,
    attributes
  })
export const courierRequests = courierRequestsWith()

const courierRequestSecondsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.histogram("tawsil_courier_request_duration_seconds", {
    description: "Courier HTTP request latency in seconds, rate-limit waits included, by courier key and platform",
    boundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    attributes
  })
export const courierRequestSeconds = courierRequestSecondsWith()

/** 0 closed, 1 half-open (a probe decides), 2 open (calls fail at once). */
export const circuitState = Metric.gauge("tawsil_courier_circuit_state", {
  description: "Circuit breaker of each courier origin: 0 closed, 1 half-open, 2 open"
})

export const circuitValue = (state: "Closed" | "HalfOpen" | "Open") =>
  state === "Open" ? 2 : state === "HalfOpen" ? 1 : 0

/** The shipping API's refusals: `client_window` (429, a client's per-minute window), `capacity` (503, creates). */
const refusalsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.counter("tawsil_shipping_refusals_total", {
    description: "Shipping API requests refused by a limit, by reason: client_window (429) or capacity (503)",
    incremental: true,
    attributes
  })
export const refusals = refusalsWith()

// Each attribute set's series, made once (MetricSeries).
const courierRequestSeries = MetricSeries.series(courierRequestsWith)
const courierRequestSecondsSeries = MetricSeries.series(courierRequestSecondsWith)
const refusalSeries = MetricSeries.series(refusalsWith)

/** Records one courier request: counted under its outcome, timed under its courier. */
export const recordRequest = (
  labels: { readonly courier: string; readonly platform: string },
  outcome: Outcome,
  seconds: number
) =>
  Effect.andThen(
    Metric.update(courierRequestSeries({ courier: labels.courier, platform: labels.platform, outcome }), 1),
    Metric.update(courierRequestSecondsSeries({ courier: labels.courier, platform: labels.platform }), seconds)
  )

export const refusalReasons = ["client_window", "capacity"] as const
export type RefusalReason = (typeof refusalReasons)[number]

/** Counts one refusal of the shipping API. */
export const refused = (reason: RefusalReason) => Metric.update(refusalSeries({ reason }), 1)

/** `refused` as a plain call, in the metrics of `context`: for code that runs with no fiber (the server's door). */
export const refusedIn = (context: Context.Context<never>, reason: RefusalReason) =>
  refusalSeries({ reason }).updateUnsafe(1, context)

/**
 * The families at zero, so they are on `/metrics` from the start: each refusal reason's series, and the courier
 * families' series without labels (their couriers and outcomes are only known as requests happen). The circuit gauge
 * appears at an origin's first transition.
 */
export const zero = Effect.all(
  [
    Metric.value(courierRequests),
    Metric.value(courierRequestSeconds),
    Effect.forEach(refusalReasons, (reason) => Metric.value(refusalSeries({ reason })), { discard: true })
  ],
  { discard: true }
)
