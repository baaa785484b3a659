/** The Ecotrack courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Ecotrack from "./Ecotrack.ts"
export { adapter } from "./Ecotrack.ts"
export * as EcotrackMapping from "./EcotrackMapping.ts"
export * as EcotrackStatus from "./EcotrackStatus.ts"
export * as EcotrackWire from "./EcotrackWire.ts"
