/**
 * The store API (`@tawsil/api/store`): its definition, its wire errors, what every endpoint is made of (`Endpoint`)
 * and how a domain module's reasons reach a wire code (`Reasons`).
 */
export * as Api from "./Api.ts"
export { StoreApi } from "./Api.ts"
export * as Endpoint from "./Endpoint.ts"
export * as Errors from "./Errors.ts"
export * as Reasons from "./Reasons.ts"
