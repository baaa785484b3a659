/**
 * Typed Effect clients of Tawsil's two APIs: `ShippingClient` and `StoreClient` (effect's `HttpApiClient` over the
 * definitions in `@tawsil/api`), taking requests as their JSON and answering decoded values. Callers without Effect
 * use `@tawsil/fetch-client`, which has no runtime dependency.
 */
export * as ShippingClient from "./ShippingClient.ts"
export * as StoreClient from "./StoreClient.ts"
