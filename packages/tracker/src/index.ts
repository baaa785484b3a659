/** The signup and event tracker of the store API: body rules, deduplication, usage counting, writes batched behind the answer and drained on shutdown; TrackerStore port (memory and SQL). */
export * as Tracker from "./Tracker.ts"
export * as TrackerBodies from "./TrackerBodies.ts"
export * as TrackerError from "./TrackerError.ts"
export * as TrackerMetrics from "./TrackerMetrics.ts"
export * as TrackerStore from "./TrackerStore.ts"
export * as TrackerStoreSql from "./TrackerStoreSql.ts"
