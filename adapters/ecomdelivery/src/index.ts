/** The E-COM Delivery courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Ecomdelivery from "./Ecomdelivery.ts"
export { adapter } from "./Ecomdelivery.ts"
export * as EcomdeliveryMapping from "./EcomdeliveryMapping.ts"
export * as EcomdeliveryStatus from "./EcomdeliveryStatus.ts"
export * as EcomdeliveryWire from "./EcomdeliveryWire.ts"
