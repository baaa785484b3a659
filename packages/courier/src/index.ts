/**
 * The courier adapter SDK: what an adapter is (`CourierAdapter`), the one request shape (`Shipment`), canonical
 * statuses (`CanonicalStatus`), the reasons an operation fails with (`CourierError`), the only way to reach the
 * courier (`CourierHttp`), reading its answers (`CourierAnswer`, `RetryAfter`), reading what it pushes (`Push`), how
 * the host paces an account's calls under the declared limits (`Pace`), what an adapter may remember between calls
 * (`AdapterMemory`), the host's blanking of credentials
 * (`Redaction`), the live answers recorded for tests to replay (`Recorded`) and the wilayas by the French names
 * couriers take (`WilayaNames`); and what a host answers around the adapters, named by the API contract: the
 * catalogue entry (`CatalogueEntry`) and why a call fails (`ShippingError`). The host that runs adapters is
 * `@tawsil/shipping`; the conformance kit is `@tawsil/courier/testing`.
 */
export * as AdapterMemory from "./AdapterMemory.ts"
export * as CanonicalStatus from "./CanonicalStatus.ts"
export * as CatalogueEntry from "./CatalogueEntry.ts"
export * as CourierAdapter from "./CourierAdapter.ts"
export * as CourierAnswer from "./CourierAnswer.ts"
export * as CourierError from "./CourierError.ts"
export * as CourierHttp from "./CourierHttp.ts"
export * as Pace from "./Pace.ts"
export * as Push from "./Push.ts"
export * as Recorded from "./Recorded.ts"
export * as Redaction from "./Redaction.ts"
export * as RetryAfter from "./RetryAfter.ts"
export * as Shipment from "./Shipment.ts"
export * as ShippingError from "./ShippingError.ts"
export * as WilayaNames from "./WilayaNames.ts"
