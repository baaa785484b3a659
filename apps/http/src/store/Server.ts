/**
 * The store server: the store API's handlers, its pipeline and the services behind them, on their own listener; and
 * the webhook dispatcher, which delivers what the store's writes queued.
 */
import { Access, KeyStoreSql, PublicAccess, UsageStoreSql } from "@tawsil/access"
import {
  LandingPageStoreSql,
  LandingPages,
  ProductStoreSql,
  Products,
  StoreProfile,
  StoreProfileStoreSql
} from "@tawsil/catalogue"
import { ChangeLog, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import { Idempotency, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Orders } from "@tawsil/orders"
import { PromoEntity, PromoStoreSql, Promos } from "@tawsil/promos"
import { NonceStoreSql, RequestVerifier } from "@tawsil/signing"
import { PixelEntity, Pixels, StorefrontStoreSql, ThemeEntity, Themes } from "@tawsil/storefront"
import { Tracker, TrackerStoreSql } from "@tawsil/tracker"
import {
  DeliverySignal,
  Dispatcher,
  Outbox,
  RetryPolicy,
  WebhookHttp,
  WebhookStoreSql,
  Webhooks
} from "@tawsil/webhooks"
import { Layer } from "effect"
import type { AppConfig } from "../AppConfig.ts"
import * as Server from "../Server.ts"
import { StoreApi } from "./Api.ts"
import { envelope } from "./Errors.ts"
import * as Handlers from "./Handlers.ts"
import * as Pipeline from "./Pipeline.ts"
import * as ReadCache from "./ReadCache.ts"

/**
 * Webhooks: the API's operations, the outbox `Orders` tells its changes to, and (`dispatcher`) the delivery worker,
 * sharing this process's delivery signal; on the database, with DNS (`Egress.Resolver`) for the URL rules.
 */
const webhooksLayer = (config: Pick<AppConfig, "webhooks">) =>
  Layer.mergeAll(
    Webhooks.layer({ allowHosts: config.webhooks.allowHosts }),
    Orders.layerSql.pipe(Layer.provide(Outbox.layer)),
    Dispatcher.layer({
      allowHosts: config.webhooks.allowHosts,
      retryDelays: config.webhooks.retryDelays,
      connectTimeout: config.webhooks.connectTimeout,
      timeout: config.webhooks.timeout
    }).pipe(Layer.provide(WebhookHttp.layer))
  ).pipe(Layer.provide([WebhookStoreSql.layer, DeliverySignal.layer]))

/** Signed calls (`PublicAccess` over `@tawsil/signing`) and the tracker they feed, written behind the answer. */
const signedLayer = Layer.mergeAll(
  PublicAccess.layer().pipe(
    Layer.provide([RequestVerifier.layer.pipe(Layer.provide(NonceStoreSql.layer)), KeyStoreSql.layer])
  ),
  Tracker.layer().pipe(Layer.provide([TrackerStoreSql.layer, UsageStoreSql.layer]))
)

/**
 * The entities whose changes this server can undo (`@tawsil/changes`); a new recorded entity is one more line here.
 */
export const entities = Entity.layer(PromoEntity.entity, ThemeEntity.entity, PixelEntity.entity)

/**
 * The configuration services (spec store-api-config): promo codes, themes, pixels and the change history, whose
 * writes record their changes through one `ChangeLog` (off when `ChangeLog.Recording` is false).
 */
export const configurationLayer = Layer.mergeAll(Promos.layer, Themes.layer, Pixels.layer, Changes.layer).pipe(
  Layer.provide(entities),
  Layer.provide(ChangeLog.layer),
  Layer.provide(Layer.mergeAll(PromoStoreSql.layer, StorefrontStoreSql.layer, ChangeStoreSql.layer))
)

/** The domain services on the database (each needs only `SqlClient`), webhooks and configuration included. */
export const services = (config: Pick<AppConfig, "webhooks">) =>
  Layer.mergeAll(
    Access.layerSql,
    webhooksLayer(config),
    signedLayer,
    Layer.mergeAll(Products.layer, LandingPages.layer).pipe(
      Layer.provide(ProductStoreSql.layer),
      Layer.provide(LandingPageStoreSql.layer)
    ),
    StoreProfile.layer.pipe(Layer.provide(StoreProfileStoreSql.layer)),
    Idempotency.layer().pipe(Layer.provide(IdempotencyStoreSql.layer)),
    ReadCache.layer,
    configurationLayer
  )

/** The services with the default webhook settings (nothing exempt from the URL rules), for tests and tools. */
export const servicesLayer = services({
  webhooks: {
    allowHosts: { hosts: new Set() },
    retryDelays: RetryPolicy.defaultDelays,
    connectTimeout: Dispatcher.DEFAULT_CONNECT_TIMEOUT,
    timeout: Dispatcher.DEFAULT_TIMEOUT
  }
})

/** One listener of the store API, its pipeline in the given mode (the services come from the caller). */
export const listener = (config: AppConfig, name: string, mode: Pipeline.Mode, port: number) =>
  Server.make(config, {
    name,
    api: StoreApi,
    handlers: Handlers.layer.pipe(
      Layer.provide([Pipeline.gate(mode), Pipeline.idempotent(mode), Pipeline.signed(mode)])
    ),
    envelope,
    port,
    // The spec's alias host has no signups or events.
    absentPaths: mode === "origin" ? Pipeline.SIGNED_PATHS : undefined
  })

/**
 * The store listener, and its origin listener when `STORE_ORIGIN_PORT` is set; both share the services, the webhook
 * dispatcher among them. Needs DNS (`Egress.Resolver`) for the webhook URL rules.
 */
export const layer = (config: AppConfig) => {
  const store = listener(config, "store", "edge", config.storePort)
  const listeners =
    config.storeOriginPort === undefined
      ? store
      : Layer.merge(store, listener(config, "store-origin", "origin", config.storeOriginPort))
  return listeners.pipe(Layer.provide(services(config)))
}
