/**
 * The loopback fake of the new ZR Express platform, for tests outside this package (the app's end-to-end tests point
 * `https://api.zrexpress.app` at it through `TAWSIL_COURIER_ORIGINS`). Exported as
 * `@tawsil/adapter-zrexpress-new/testing`, under the source condition only: it is test tooling, never part of the
 * built adapter.
 */
export * from "./ZrExpressNewFake.ts"
