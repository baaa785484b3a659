/** The MDM Express courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Mdm from "./Mdm.ts"
export { adapter } from "./Mdm.ts"
export * as MdmMapping from "./MdmMapping.ts"
export * as MdmStatus from "./MdmStatus.ts"
export * as MdmWire from "./MdmWire.ts"
