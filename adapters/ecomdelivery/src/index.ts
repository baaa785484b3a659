/** The E-COM Delivery courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as EcomDelivery from "./EcomDelivery.ts"
export { adapter } from "./EcomDelivery.ts"
export * as EcomDeliveryMapping from "./EcomDeliveryMapping.ts"
export * as EcomDeliveryStatus from "./EcomDeliveryStatus.ts"
export * as EcomDeliveryWire from "./EcomDeliveryWire.ts"
