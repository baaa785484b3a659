/**
 * The HttpApi definitions of Tawsil's two APIs: what the servers are built from and what typed clients are made
 * from. `@tawsil/api/shipping` and `@tawsil/api/store` are the entry points; this one names both and the health group
 * they share.
 */
export * as Health from "./Health.ts"
export * as Shipping from "./shipping/index.ts"
export * as Store from "./store/index.ts"
