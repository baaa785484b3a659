/** The Colivraison Express courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as Colivraison from "./Colivraison.ts"
export { adapter } from "./Colivraison.ts"
export * as ColivraisonMapping from "./ColivraisonMapping.ts"
export * as ColivraisonStatus from "./ColivraisonStatus.ts"
export * as ColivraisonWire from "./ColivraisonWire.ts"
