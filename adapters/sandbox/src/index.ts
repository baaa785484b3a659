/** The sandbox courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */
export { adapter } from "./Sandbox.ts"
export * as SandboxRates from "./SandboxRates.ts"
export * as SandboxTestValues from "./SandboxTestValues.ts"
export * as SandboxTrackingNumber from "./SandboxTrackingNumber.ts"
