/** The Procolis courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Procolis from "./Procolis.ts"
export { adapter } from "./Procolis.ts"
export * as ProcolisMapping from "./ProcolisMapping.ts"
export * as ProcolisStatus from "./ProcolisStatus.ts"
export * as ProcolisWire from "./ProcolisWire.ts"
