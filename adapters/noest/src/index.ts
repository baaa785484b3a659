/** The NOEST Express courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Noest from "./Noest.ts"
export { adapter } from "./Noest.ts"
export * as NoestMapping from "./NoestMapping.ts"
export * as NoestStatus from "./NoestStatus.ts"
export * as NoestWire from "./NoestWire.ts"
