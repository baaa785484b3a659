/** The Mylerz courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Mylerz from "./Mylerz.ts"
export { adapter } from "./Mylerz.ts"
export * as MylerzMapping from "./MylerzMapping.ts"
export * as MylerzStatus from "./MylerzStatus.ts"
export * as MylerzWire from "./MylerzWire.ts"
