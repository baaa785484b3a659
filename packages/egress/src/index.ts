/** Where Tawsil may connect: the address rules (`Egress`) and the process-wide egress guard (`ProcessEgress`). */
export * as Egress from "./Egress.ts"
export * as ProcessEgress from "./ProcessEgress.ts"
