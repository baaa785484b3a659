/** Schemas shared by the shipping API and the store API. */
export * as AlgerianMobile from "./AlgerianMobile.ts"
export * as AlgiersTime from "./AlgiersTime.ts"
export * as Dzd from "./Dzd.ts"
export * as FieldIssues from "./FieldIssues.ts"
export * as Ids from "./Ids.ts"
export * as Pagination from "./Pagination.ts"
export * as StoreAmount from "./StoreAmount.ts"
export * as WilayaCode from "./WilayaCode.ts"
