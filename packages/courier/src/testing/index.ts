/**
 * Test support for courier adapters (the `@tawsil/courier/testing` subpath): the conformance kit. It imports
 * vitest, so production code never imports it.
 */
export * as Conformance from "./Conformance.ts"
