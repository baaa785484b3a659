/**
 * How courier adapters reach the network. The egress-guarded transport (pinned origins, DNS checks, timeouts,
 * circuit breaker) is not wired yet: until it is, every courier request is refused as unreachable, so only the
 * `sandbox` courier — which never calls out — works end to end. Nothing leaves the process.
 */
import { CourierError, CourierHttp, Shipping } from "@tawsil/courier"
import { Effect, Layer } from "effect"

export const layerDisabled = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({
    bind: ({ courier }) =>
      CourierHttp.CourierHttp.of({
        request: () =>
          Effect.fail(
            new CourierError.Unreachable({ message: `outbound calls to ${courier.name} are not enabled in this build` })
          )
      })
  })
)
