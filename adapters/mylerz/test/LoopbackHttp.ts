/** The SDK's loopback `CourierHttp` (`@tawsil/courier/testing`), bound to this adapter's fake. */
import { LoopbackHttp } from "@tawsil/courier/testing"
import { type Duration, Effect } from "effect"
import { MylerzFake } from "./fake/MylerzFake.ts"

/** The service bound to the fake in context. */
export const layer = (options: { readonly timeout?: Duration.Input } = {}) =>
  LoopbackHttp.layer(
    Effect.map(MylerzFake, (fake) => fake.origin),
    options
  )
