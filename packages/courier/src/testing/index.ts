/**
 * Test support for courier adapters (the `@tawsil/courier/testing` subpath): the conformance kit and a loopback
 * `CourierHttp` for unit tests against a fake. It imports vitest, so production code never imports it.
 */
export * as Conformance from "./Conformance.ts"
export * as LoopbackHttp from "./LoopbackHttp.ts"
