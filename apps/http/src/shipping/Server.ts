/**
 * The shipping server: the shipping API's handlers (one folder per group: `shipping/`, `reference/`, `health/`) on
 * its own listener, over one gateway; the door that counts a client's window before a request is read, and the
 * `ClientRateLimit` middleware that counts it for any request the door did not see. Failures reach the wire through
 * `Errors.ts`.
 */

import { ShippingApi } from "@tawsil/api/shipping/Api"
import { Idempotency, IdempotencyStore, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { AdapterMemories, type Catalogue, CommuneLists, Gateway, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import type { AppConfig } from "../AppConfig.ts"
import * as Mcp from "../Mcp.ts"
import * as Server from "../Server.ts"
import * as Door from "./Door.ts"
import * as Errors from "./Errors.ts"
import * as HealthHandlers from "./health/Handlers.ts"
import * as ReferenceHandlers from "./reference/Handlers.ts"
import * as ShippingHandlers from "./shipping/Handlers.ts"

const ClientRateLimitLayer = Layer.effect(
  Errors.ClientRateLimit,
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    return (httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Door.countedAtDoor(request.source)
          ? httpEffect
          : gateway
              .admit(Option.getOrElse(request.remoteAddress, () => "unknown"))
              .pipe(Effect.mapError(Errors.fromGateway), Effect.andThen(httpEffect))
      )
  })
)

/**
 * The shipping API's handlers with its middleware (decoding failures as `invalid_input`, the client's window), over a
 * gateway and the reference communes: what the listener serves, and the in-memory tests run.
 */
export const handlers = Layer.mergeAll(
  ShippingHandlers.handlers,
  ReferenceHandlers.handlers,
  HealthHandlers.handlers
).pipe(Layer.provide([Errors.ValidationLayer, ClientRateLimitLayer]))

/**
 * The gateway on the database's idempotency records; the client windows and the couriers' per-account limits count
 * in the app's rate-limiter store, the accounts named under this installation's secret (shared by every instance).
 * Creates resolve the recipient's commune in the reference communes (`COMMUNES_FILE`, else the bundled dataset),
 * against couriers' commune lists kept where the app keeps them (`CommuneLists`, when it provides one: Redis or this
 * process); adapters remember what they must in the app's `AdapterMemories` likewise (the sandbox's cancels). The store server's courier rate sync reaches the couriers through one too.
 */
export const gatewayLayer = (
  config: Pick<AppConfig, "shippingRateLimitPerMinute" | "shippingMaxConcurrentCreates" | "communesFile">,
  catalogue: Catalogue.Catalogue
) => {
  const courierCore = Layer.unwrap(
    Effect.gen(function* () {
      const accountSecret = yield* IdempotencyStore.IdempotencyStore.use((store) => store.secret)
      const communes = yield* Communes.Communes
      const communeLists = Option.getOrUndefined(yield* Effect.serviceOption(CommuneLists.CommuneLists))
      const adapterMemories = Option.getOrUndefined(yield* Effect.serviceOption(AdapterMemories.AdapterMemories))
      return Shipping.Shipping.layer(catalogue, { accountSecret, communes, communeLists, adapterMemories })
    })
  ).pipe(Layer.provide(Communes.layerFileOptional(config.communesFile)))
  return Gateway.layer({
    requestsPerMinute: config.shippingRateLimitPerMinute,
    maxConcurrentCreates: config.shippingMaxConcurrentCreates
  }).pipe(Layer.provide(courierCore), Layer.provide(Idempotency.layer()), Layer.provide(IdempotencyStoreSql.layer))
}

export const layer = (config: AppConfig, catalogue: Catalogue.Catalogue) => {
  // One gateway for the handlers and the door: the same windows.
  const gateway = gatewayLayer(config, catalogue)
  return Server.make(config, {
    name: "shipping",
    api: ShippingApi,
    handlers: handlers.pipe(Layer.provide(Communes.layerFileOptional(config.communesFile)), Layer.provide(gateway)),
    envelope: Errors.envelope,
    port: config.shippingPort,
    routes: Mcp.routes
  }).pipe(Layer.provide(Door.layer), Layer.provide(gateway))
}
