/**
 * What the store API's admission counts, as effect `Metric`s in the default registry (the host exports them): calls
 * refused by a store's limits, by reason — `minute` (429, the store's per-minute budget, on the edge listener),
 * `signed_minute` (429, the same budget spent by a signed call) and `month` (402, the monthly request quota). No
 * label names a store or a key.
 */
import { MetricSeries } from "@tawsil/tracing"
import { Effect, Metric } from "effect"

export const reasons = ["minute", "signed_minute", "month"] as const
export type Reason = (typeof reasons)[number]

const refusalsWith = (attributes?: Readonly<Record<string, string>>) =>
  Metric.counter("tawsil_store_limit_refusals_total", {
    description: "Store API calls refused by a limit: minute and signed_minute (429), month (402)",
    incremental: true,
    attributes
  })
export const refusals = refusalsWith()

// Each reason's series, made once (MetricSeries): a flood of refusals pays a lookup each.
const refusalSeries = MetricSeries.series(refusalsWith)

/** Counts one refusal. */
export const refused = (reason: Reason) => Metric.update(refusalSeries({ reason }), 1)

/** Every reason's series at zero, so the family is on `/metrics` from the start, before any refusal. */
export const zero = Effect.forEach(reasons, (reason) => Metric.value(refusalSeries({ reason })), { discard: true })
