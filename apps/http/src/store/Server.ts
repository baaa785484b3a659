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
import { Idempotency, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Orders } from "@tawsil/orders"
import { Layer } from "effect"
import type { AppConfig } from "../AppConfig.ts"
import * as Server from "../Server.ts"
import { StoreApi } from "./Api.ts"
import { envelope } from "./Errors.ts"
import * as Handlers from "./Handlers.ts"
import * as Pipeline from "./Pipeline.ts"
import * as ReadCache from "./ReadCache.ts"

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
  ReadCache.layer
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
