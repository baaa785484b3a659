/** Idempotency-Key rules and their store: key validation, request fingerprints, claim, replay, lease and TTL. */
export * as Idempotency from "./Idempotency.ts"
export * as IdempotencyMetrics from "./IdempotencyMetrics.ts"
export * as IdempotencyRequest from "./IdempotencyRequest.ts"
export * as IdempotencyStore from "./IdempotencyStore.ts"
export * as IdempotencyStoreSql from "./IdempotencyStoreSql.ts"
