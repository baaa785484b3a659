/**
 * The shipping server: the shipping API's handlers (one folder per group: `shipping/`, `reference/`, `health/`) on
 * its own listener, over one gateway; the door that counts a client's window before a request is read, and the
 * `ClientRateLimit` middleware that counts it for any request the door did not see. Failures reach the wire through
 * `Errors.ts`.
 */

import { ShippingApi } from "@tawsil/api/shipping/Api"
import { Idempotency, IdempotencyStore, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { CapacityGuard, type Catalogue, ClientWindow, Gateway, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApi } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as Server from "../Server.ts"
import * as Errors from "./Errors.ts"
import * as HealthHandlers from "./health/Handlers.ts"
import * as ReferenceHandlers from "./reference/Handlers.ts"
import * as ShippingHandlers from "./shipping/Handlers.ts"

/** Node requests the door has counted in their client's window: the middleware does not count them again. */
const counted = new WeakSet<object>()

/** The parcel create, which the capacity guard also watches at the door. */
const CREATE = "POST /v1/orders"

/** The methods and route templates of the endpoints under `ClientRateLimit`: the ones the door watches. */
const windowed = (() => {
  const routes = new Set<string>()
  HttpApi.reflect(ShippingApi, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      if (group.identifier === "shipping") routes.add(`${endpoint.method} ${endpoint.path}`)
    }
  })
  return routes
})()

/**
 * The client's window counted at the door (`Server.Door`), before the router and before the body is read: a refused
 * request is answered there (429 with `Retry-After`, in the envelope), at a small part of a create's cost, so that
 * a flood of them does not take the core that serves everyone else (issue 22, decision 0025). The rule is the
 * gateway's window (`atDoor` here, `admit` in the middleware), counted once per request: here for requests that reach
 * the server through Node's `request` event, in the `ClientRateLimit` middleware for any other. Where the window
 * counts in this process, the door decides with plain calls: a refusal costs no fiber. A create the capacity guard
 * would turn away is answered there too (503 `overloaded`, as the guard answers it); one let through is still guarded
 * (decision 0025).
 */
const DoorLayer = Layer.effect(
  Server.Door,
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    const overloaded: Server.DoorAnswer = {
      status: 503,
      headers: { "retry-after": String(CapacityGuard.RETRY_AFTER_SECONDS) },
      body: Errors.envelope.render(
        Errors.itemError(new CapacityGuard.Overloaded({ retryAfterSeconds: CapacityGuard.RETRY_AFTER_SECONDS })),
        ""
      )
    }
    const answer = (verdict: Gateway.AtDoor): Server.DoorAnswer | undefined =>
      verdict === undefined
        ? undefined
        : verdict === "overloaded"
          ? overloaded
          : {
              status: 429,
              headers: { "retry-after": String(verdict.retryAfterSeconds) },
              body: Errors.envelope.render({ code: "rate_limited", message: ClientWindow.describe(verdict) }, "")
            }
    return Server.Door.of({
      check: (route, request) => {
        const endpoint = `${request.method} ${route}`
        if (!windowed.has(endpoint)) return undefined
        counted.add(request)
        const verdict = gateway.atDoor(request.socket.remoteAddress ?? "unknown", endpoint === CREATE)
        return Effect.isEffect(verdict) ? Effect.map(verdict, answer) : answer(verdict)
      }
    })
  })
)

const ClientRateLimitLayer = Layer.effect(
  Errors.ClientRateLimit,
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    return (httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        counted.has(request.source)
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
 * Creates resolve the recipient's commune in the reference communes (`COMMUNES_FILE`, else the bundled dataset).
 * The store server's courier rate sync reaches the couriers through one too.
 */
export const gatewayLayer = (
  config: Pick<AppConfig, "shippingRateLimitPerMinute" | "shippingMaxConcurrentCreates" | "communesFile">,
  catalogue: Catalogue.Catalogue
) => {
  const courierCore = Layer.unwrap(
    Effect.gen(function* () {
      const accountSecret = yield* IdempotencyStore.IdempotencyStore.use((store) => store.secret)
      const communes = yield* Communes.Communes
      return Shipping.Shipping.layer(catalogue, { accountSecret, communes })
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
    port: config.shippingPort
  }).pipe(Layer.provide(DoorLayer), Layer.provide(gateway))
}
