/** The store server: the store API's handlers, its pipeline and the services behind them, on their own listener. */
import { Access } from "@tawsil/access"
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
import { PixelEntity, Pixels, StorefrontStoreSql, ThemeEntity, Themes } from "@tawsil/storefront"
import { Layer } from "effect"
import type { AppConfig } from "../AppConfig.ts"
import * as Server from "../Server.ts"
import { StoreApi } from "./Api.ts"
import { envelope } from "./Errors.ts"
import * as Handlers from "./Handlers.ts"
import * as Pipeline from "./Pipeline.ts"
import * as ReadCache from "./ReadCache.ts"

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

/** The domain services on the database (each needs only `SqlClient`). */
export const servicesLayer = Layer.mergeAll(
  Access.layerSql,
  Orders.layerSql,
  Layer.mergeAll(Products.layer, LandingPages.layer).pipe(
    Layer.provide(ProductStoreSql.layer),
    Layer.provide(LandingPageStoreSql.layer)
  ),
  StoreProfile.layer.pipe(Layer.provide(StoreProfileStoreSql.layer)),
  Idempotency.layer().pipe(Layer.provide(IdempotencyStoreSql.layer)),
  ReadCache.layer,
  configurationLayer
)

/** One listener of the store API, its pipeline in the given mode (the services come from the caller). */
export const listener = (config: AppConfig, name: string, mode: Pipeline.Mode, port: number) =>
  Server.make(config, {
    name,
    api: StoreApi,
    handlers: Handlers.layer.pipe(Layer.provide([Pipeline.gate(mode), Pipeline.idempotent(mode)])),
    envelope,
    port
  })

/** The store listener, and its origin listener when `STORE_ORIGIN_PORT` is set; both share the services. */
export const layer = (config: AppConfig) => {
  const store = listener(config, "store", "edge", config.storePort)
  const listeners =
    config.storeOriginPort === undefined
      ? store
      : Layer.merge(store, listener(config, "store-origin", "origin", config.storeOriginPort))
  return listeners.pipe(Layer.provide(servicesLayer))
}
