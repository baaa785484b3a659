/** The Zimou Express courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Zimou from "./Zimou.ts"
export { adapter } from "./Zimou.ts"
export * as ZimouMapping from "./ZimouMapping.ts"
export * as ZimouStatus from "./ZimouStatus.ts"
export * as ZimouWire from "./ZimouWire.ts"
