/**
 * What the store API's admission counts, as effect `Metric`s in the default registry (the host exports them): calls
 * refused by a store's limits, by reason — `minute` (429, the store's per-minute budget, on the edge listener),
 * `signed_minute` (429, the same budget spent by a signed call) and `month` (402, the monthly request quota). No
 * label names a store or a key.
 */
import { MetricSeries } from "@tawsil/tracing"
import { Metric } from "effect"

export type Reason = "minute" | "signed_minute" | "month"

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
