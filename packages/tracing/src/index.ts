/** Metrics updated on the request path: one series made once per attribute set. */
export * as MetricSeries from "./MetricSeries.ts"
/** Spans of Tawsil's services: one switch a host sets once. */
export * as ServiceSpans from "./ServiceSpans.ts"
