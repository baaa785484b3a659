/**
 * Test support for courier adapters (the `@tawsil/courier/testing` subpath): the conformance kit, the skeleton of a
 * loopback fake courier with the kit's standard failure rows, the delivery loop of a fake courier that pushes, and a
 * loopback `CourierHttp` for unit tests against a fake. It imports vitest, so production code never imports it.
 */
export * as Conformance from "./Conformance.ts"
export * as FakeCourier from "./FakeCourier.ts"
export * as FakePusher from "./FakePusher.ts"
export * as LoopbackHttp from "./LoopbackHttp.ts"
