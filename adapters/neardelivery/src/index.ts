/** The Near Delivery courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Neardelivery from "./Neardelivery.ts"
export { adapter } from "./Neardelivery.ts"
export * as NeardeliveryMapping from "./NeardeliveryMapping.ts"
export * as NeardeliveryStatus from "./NeardeliveryStatus.ts"
export * as NeardeliveryWire from "./NeardeliveryWire.ts"
