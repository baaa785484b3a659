/**
 * Typed clients of Tawsil's two APIs: `ShippingClient` and `StoreClient` for Effect programs (effect's
 * `HttpApiClient` over the definitions in `@tawsil/api`), and `Fetch`, a plain `fetch` client with no runtime
 * dependency (also `@tawsil/client/fetch`).
 */
export * as Fetch from "./fetch/index.ts"
export * as ShippingClient from "./ShippingClient.ts"
export * as StoreClient from "./StoreClient.ts"
