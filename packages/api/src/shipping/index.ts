/** The shipping API (`@tawsil/api/shipping`): its definition and its wire errors. */
export * as Api from "./Api.ts"
export { ShippingApi } from "./Api.ts"
export * as Errors from "./Errors.ts"
