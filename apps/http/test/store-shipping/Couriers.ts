/**
 * The shipping API's gateway for the store server in tests, as the app builds it (`ShippingServer.gatewayLayer`):
 * the courier adapters the host discovers (the sandbox and the real ones), the egress-guarded transport with its
 * loopback overrides (`TAWSIL_COURIER_ORIGINS`: where a test points a courier at its fake), the courier accounts'
 * pace in this process. And for the in-memory handler tests, a gateway over the sandbox and the test courier of
 * `@tawsil/store-shipping`'s suite, with no HTTP at all.
 */
import type { CourierAdapter } from "@tawsil/courier"
import { Egress } from "@tawsil/egress"
import { Catalogue, ClientWindow, CourierPacer, Discovery, HttpTransport } from "@tawsil/shipping"
import { Effect, Layer } from "effect"
import type { AppConfig } from "../../src/AppConfig.ts"
import * as ShippingServer from "../../src/shipping/Server.ts"

export { gateway as memoryGateway } from "../../../../packages/store-shipping/test/TestCourier.ts"

/** The installed adapters, found as the app finds them at start, and `extra` ones a test defines. */
const catalogue = (extra: ReadonlyArray<CourierAdapter.Any>) =>
  Effect.map(Discovery.discover(import.meta.url), (adapters) => Catalogue.make([...adapters, ...extra]))

/**
 * The gateway over the installed couriers (and `extra` ones) on the database's idempotency records (needs
 * `SqlClient`); `origins` sends a courier's requests to a loopback fake; `pacer` paces the courier accounts (their
 * declared limits in this process unless told).
 */
export const gateway = (
  config: Pick<AppConfig, "shippingRateLimitPerMinute" | "shippingMaxConcurrentCreates" | "communesFile">,
  origins: Egress.Overrides = new Map(),
  extra: ReadonlyArray<CourierAdapter.Any> = [],
  pacer: Layer.Layer<CourierPacer.CourierPacer> = CourierPacer.layerMemory
) => {
  const limits = ClientWindow.layerStoreMemory()
  return Layer.unwrap(
    Effect.map(Effect.orDie(catalogue(extra)), (found) => ShippingServer.gatewayLayer(config, found))
  ).pipe(
    Layer.provide(HttpTransport.layer({ overrides: origins }).pipe(Layer.provide([Egress.Resolver.layer, pacer]))),
    Layer.provide(limits)
  )
}
