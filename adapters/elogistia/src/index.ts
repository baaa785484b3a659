/** The Elogistia courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Elogistia from "./Elogistia.ts"
export { adapter } from "./Elogistia.ts"
export * as ElogistiaMapping from "./ElogistiaMapping.ts"
export * as ElogistiaStatus from "./ElogistiaStatus.ts"
export * as ElogistiaWire from "./ElogistiaWire.ts"
