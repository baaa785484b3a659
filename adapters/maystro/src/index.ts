/** The Maystro Delivery courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Maystro from "./Maystro.ts"
export { adapter } from "./Maystro.ts"
export * as MaystroMapping from "./MaystroMapping.ts"
export * as MaystroPush from "./MaystroPush.ts"
export * as MaystroStatus from "./MaystroStatus.ts"
export * as MaystroWire from "./MaystroWire.ts"
