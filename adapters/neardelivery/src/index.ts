/** The Near Delivery courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as NearDelivery from "./NearDelivery.ts"
export { adapter } from "./NearDelivery.ts"
export * as NearDeliveryMapping from "./NearDeliveryMapping.ts"
export * as NearDeliveryStatus from "./NearDeliveryStatus.ts"
export * as NearDeliveryWire from "./NearDeliveryWire.ts"
