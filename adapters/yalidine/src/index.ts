/** The Yalidine-engine courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Yalidine from "./Yalidine.ts"
export { adapter } from "./Yalidine.ts"
export * as YalidineMapping from "./YalidineMapping.ts"
export * as YalidinePush from "./YalidinePush.ts"
export * as YalidineStatus from "./YalidineStatus.ts"
export * as YalidineWire from "./YalidineWire.ts"
