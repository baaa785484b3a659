/**
 * The loopback Procolis fake, for tests outside this package (the app's end-to-end tests point the Procolis origin
 * at it through `TAWSIL_COURIER_ORIGINS`). Exported as `@tawsil/adapter-procolis/testing`, under the source
 * condition only: it is test tooling, never part of the built adapter.
 */
export * from "./ProcolisFake.ts"
