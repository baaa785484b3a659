/**
 * The shipping server: the shipping API's handlers on its own listener. Each decodes (HttpApi), calls the `Gateway`
 * of @tawsil/shipping, and encodes its answer or maps its error (`Errors.ts`); the per-client window runs as the
 * `ClientRateLimit` middleware, before a request is read.
 */

import { ShippingApi } from "@tawsil/api/shipping/Api"
import { WilayaCode } from "@tawsil/domain"
import { Idempotency, IdempotencyStore, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Communes, Wilayas } from "@tawsil/reference"
import { type Catalogue, Gateway, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Option, Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as Health from "../Health.ts"
import * as Server from "../Server.ts"
import * as Door from "./Door.ts"
import * as Errors from "./Errors.ts"

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

const ShippingHandlers = HttpApiBuilder.group(ShippingApi, "shipping", (handlers) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    return handlers
      .handle("createOrder", ({ payload, headers }) =>
        gateway.create(payload, headers["idempotency-key"]).pipe(Effect.mapError(Errors.fromGateway))
      )
      .handle("track", ({ payload }) =>
        "trackingNumbers" in payload
          ? gateway.trackBatch(payload).pipe(
              Effect.map((items) => ({
                results: items.map((item) =>
                  "result" in item
                    ? item.result
                    : { trackingNumber: item.trackingNumber, error: Errors.itemError(item.error) }
                )
              })),
              Effect.mapError(Errors.fromGateway)
            )
          : gateway.track(payload).pipe(Effect.mapError(Errors.fromGateway))
      )
      .handle("rates", ({ payload }) => gateway.rates(payload).pipe(Effect.mapError(Errors.fromGateway)))
      .handle("label", ({ payload }) =>
        gateway.label(payload).pipe(
          Effect.map((label) => label.bytes),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("cancel", ({ payload, headers }) =>
        gateway.cancel(payload, headers["idempotency-key"]).pipe(Effect.mapError(Errors.fromCancel))
      )
      .handle("stopDesks", ({ payload }) =>
        gateway.stopDesks(payload).pipe(
          Effect.map((desks) =>
            desks.map(({ id, name, wilayaCode, communeName, address, phone }) => ({
              id,
              name,
              wilayaCode,
              ...(communeName === undefined ? {} : { communeName }),
              ...(address === undefined ? {} : { address }),
              ...(phone === undefined ? {} : { phone })
            }))
          ),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("checkCredentials", ({ payload }) =>
        gateway.checkCredentials(payload).pipe(
          Effect.map((check) => ({
            courier: gateway.catalogue.resolve(payload.courier)?.entry.key ?? payload.courier,
            valid: check._tag === "Accepted",
            ...(check._tag === "Rejected" ? { message: check.message } : {})
          })),
          Effect.mapError(Errors.fromGateway)
        )
      )
      .handle("resolveCommune", ({ payload }) => {
        const { courier, credentials, options, wilayaCode, communeName } = payload
        const call = courier === undefined ? undefined : { courier, credentials, options }
        return gateway.resolveCommune({ call, wilayaCode, communeName }).pipe(
          // Here the name is the body's own `communeName`, not an order's.
          Effect.mapError((error) =>
            error._tag === "UnknownCommune" ? Errors.unknownCommune(error, "communeName") : Errors.fromGateway(error)
          ),
          Effect.map((resolved) => ({
            wilayaCode: resolved.commune.wilayaCode,
            nameFr: resolved.commune.name,
            nameAr: resolved.commune.nameAr,
            exact: resolved.exact,
            ...(call === undefined
              ? {}
              : {
                  courier: {
                    key: gateway.catalogue.resolve(call.courier)?.entry.key ?? call.courier,
                    listed: resolved.courier !== undefined,
                    ...(resolved.courier === undefined
                      ? { home: false, stopdesk: false }
                      : {
                          name: resolved.courier.name,
                          ...(resolved.courier.id === undefined ? {} : { id: resolved.courier.id }),
                          home: resolved.courier.home,
                          stopdesk: resolved.courier.stopdesk
                        })
                  }
                })
          }))
        )
      })
      .handle("compareRates", ({ payload }) =>
        gateway.compareRates(payload).pipe(
          Effect.map((quotes) => ({
            quotes: quotes.map((quote) =>
              quote._tag === "Priced"
                ? { index: quote.index, courier: quote.courier, rates: quote.rates }
                : { index: quote.index, courier: quote.courier, error: Errors.itemError(quote.error) }
            )
          }))
        )
      )
  })
)

/** `?16`: a query string that is only a number (the dzship client's shorthand for a code). */
const shorthandCode = (url: string): number | undefined => {
  const match = /\?0*(\d{1,3})$/.exec(url)
  return match ? Number(match[1]) : undefined
}

const ReferenceHandlers = HttpApiBuilder.group(ShippingApi, "reference", (handlers) =>
  Effect.gen(function* () {
    const gateway = yield* Gateway.Gateway
    const communes = yield* Communes.Communes
    return handlers
      .handle("couriers", ({ query }) => Effect.succeed(gateway.catalogue.list(query)))
      .handle("wilayas", ({ query, request }) => {
        const code = query.code ?? shorthandCode(request.url)
        if (code === undefined) {
          const all = query.all === "1" || query.all === "true"
          return Effect.succeed(query.q ? Wilayas.search(query.q, { all }) : Wilayas.list({ all }))
        }
        return Option.match(Wilayas.byCode(code), {
          onSome: Effect.succeed,
          onNone: () =>
            Effect.fail(
              new Errors.NotFound({
                error: {
                  code: "not_found",
                  message: `no wilaya has code ${code}; codes run from 1 to 58, and 59 to 69 for the 2026 division`
                }
              })
            )
        })
      })
      .handle("communes", ({ query, request }) => {
        const wilaya = query.wilaya ?? shorthandCode(request.url)
        if (wilaya !== undefined && !Schema.is(WilayaCode.WilayaCode)(wilaya)) {
          return Effect.fail(
            new Errors.InvalidInput({
              error: {
                code: "invalid_input",
                message: "Request validation failed",
                fields: { "query.wilaya": "Expected a wilaya code, an integer from 1 to 58" }
              }
            })
          )
        }
        return communes.search({ wilaya, q: query.q }).pipe(
          Effect.map((found) =>
            found.map((commune) => ({ wilayaCode: commune.wilayaCode, nameFr: commune.name, nameAr: commune.nameAr }))
          ),
          Effect.mapError(
            (error) => new Errors.Unavailable({ error: { code: "communes_unavailable", message: error.message } })
          )
        )
      })
  })
)

const HealthHandlers = HttpApiBuilder.group(ShippingApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("shipping"))
)

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
    handlers: Layer.mergeAll(ShippingHandlers, ReferenceHandlers, HealthHandlers).pipe(
      Layer.provide([Communes.layerFileOptional(config.communesFile), Errors.ValidationLayer, ClientRateLimitLayer]),
      Layer.provide(gateway)
    ),
    envelope: Errors.envelope,
    port: config.shippingPort
  }).pipe(Layer.provide(Door.layer), Layer.provide(gateway))
}
