/** The new ZR Express platform's courier adapter (discovered through `"tawsil": { "courierAdapter": true }` in package.json). */

export * as ZrExpressNew from "./ZrExpressNew.ts"
export { adapter } from "./ZrExpressNew.ts"
export * as ZrExpressNewMapping from "./ZrExpressNewMapping.ts"
export * as ZrExpressNewStatus from "./ZrExpressNewStatus.ts"
export * as ZrExpressNewWire from "./ZrExpressNewWire.ts"
export * as ZrExpressPush from "./ZrExpressPush.ts"
