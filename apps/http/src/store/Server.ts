/**
 * The store server: the store API's handlers, its pipeline and the services behind them, on their own listener; and
 * the webhook dispatcher, which delivers what the store's writes queued.
 */
import { Access, KeyStoreSql, PublicAccess, ReadCache, SignedCallsSql, UsageStoreSql } from "@tawsil/access"
import { StoreApi } from "@tawsil/api/store/Api"
import {
  Categories,
  CategoryEntity,
  CategoryStoreSql,
  Inventory,
  LandingPageStoreSql,
  LandingPages,
  PageSectionEntity,
  PageSectionStoreSql,
  PageSections,
  ProductStoreSql,
  Products,
  StockEntity
} from "@tawsil/catalogue"
import { ChangeLog, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import { Idempotency, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Confirmation, ConfirmationStoreSql, Orders, Risk } from "@tawsil/orders"
import { PromoEntity, PromoStoreSql, Promos } from "@tawsil/promos"
import {
  CodLedger,
  CodLedgerStoreSql,
  CourierAccountStoreSql,
  CourierAccounts,
  Poller,
  PushApplier,
  PushIntake,
  PushSignal,
  Shipments,
  StoreOrigin,
  TrackingStoreSql
} from "@tawsil/shipments"
import {
  ShippingRates,
  ShippingRatesEntity,
  ShippingSettings,
  ShippingSettingsEntity,
  ShippingStore,
  ShippingStoreSql
} from "@tawsil/store-shipping"
import {
  Design,
  DesignEntity,
  HomeLayout,
  HomeLayoutEntity,
  HomeSections,
  HomeSectionsEntity,
  PixelEntity,
  Pixels,
  Settings,
  SettingsEntity,
  StorefrontStoreSql,
  ThemeEntity,
  Themes
} from "@tawsil/storefront"
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
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as Health from "../Health.ts"
import * as Server from "../Server.ts"
import * as AccessHandlers from "./access/Handlers.ts"
import * as CategoriesHandlers from "./categories/Handlers.ts"
import * as ChangesHandlers from "./changes/Handlers.ts"
import * as CodHandlers from "./cod/Handlers.ts"
import * as ConfirmationHandlers from "./confirmation/Handlers.ts"
import * as CourierHooksHandlers from "./courier-hooks/Handlers.ts"
import * as CustomersHandlers from "./customers/Handlers.ts"
import * as DesignHandlers from "./design/Handlers.ts"
import { envelope } from "./Errors.ts"
import * as HomeLayoutHandlers from "./home-layout/Handlers.ts"
import * as HomeSectionsHandlers from "./home-sections/Handlers.ts"
import * as LandingPageSectionsHandlers from "./landing-page-sections/Handlers.ts"
import * as LandingPagesHandlers from "./landing-pages/Handlers.ts"
import * as OrdersHandlers from "./orders/Handlers.ts"
import * as Pipeline from "./Pipeline.ts"
import * as PingHandlers from "./ping/Handlers.ts"
import * as PixelsHandlers from "./pixels/Handlers.ts"
import * as ProductsHandlers from "./products/Handlers.ts"
import * as ProfileHandlers from "./profile/Handlers.ts"
import * as PromoCodesHandlers from "./promo-codes/Handlers.ts"
import * as RiskHandlers from "./risk/Handlers.ts"
import * as ShipmentsHandlers from "./shipments/Handlers.ts"
import * as ShippingHandlers from "./shipping/Handlers.ts"
import * as StockHandlers from "./stock/Handlers.ts"
import * as ThemesHandlers from "./themes/Handlers.ts"
import * as TrackerHandlers from "./tracker/Handlers.ts"
import * as WebhooksHandlers from "./webhooks/Handlers.ts"

/**
 * Orders meet parcels (docs/cod-loop.md): the store's courier accounts, shipping its orders through them, the
 * receiver of courier push and the poller, over `Orders` (whose outbox tells what the parcels do to orders) and the
 * shipping API's gateway; on the database, with the app's secret keys (`Secrets`) sealing the accounts' credentials.
 */
/** The store's own origin wilaya (its shipping settings), where a ship request names none. */
export const storeOrigin = Layer.effect(
  StoreOrigin.StoreOrigin,
  Effect.map(ShippingStore.ShippingStore, (store) => ({
    of: (storeId) => Effect.map(store.settings(storeId), (settings) => settings.origin_wilaya ?? undefined)
  }))
)

const shipmentsLayer = (config: Pick<AppConfig, "shipments">) =>
  Layer.mergeAll(
    Shipments.layer,
    // The COD ledger: statements matched to shipments, the reconciliation report (docs/cod-ledger.md).
    CodLedger.layer.pipe(Layer.provide(CodLedgerStoreSql.layer)),
    // Courier pushes are acknowledged once recorded; every instance applies them behind the answer.
    PushApplier.layer(),
    config.shipments.poll === undefined ? Layer.empty : Poller.layer(config.shipments.poll)
  ).pipe(
    Layer.provideMerge(PushIntake.layer),
    Layer.provideMerge(CourierAccounts.layer),
    Layer.provide(
      Layer.mergeAll(
        CourierAccountStoreSql.layer,
        TrackingStoreSql.layer,
        PushSignal.layer,
        storeOrigin.pipe(Layer.provide(ShippingStoreSql.layer))
      )
    )
  )

/**
 * Webhooks: the API's operations, the outbox `Orders` tells its changes to, and (`dispatcher`) the delivery worker,
 * sharing this process's delivery signal; on the database, with DNS (`Egress.Resolver`) for the URL rules.
 */
const webhooksLayer = (config: Pick<AppConfig, "webhooks">) =>
  Layer.mergeAll(
    Webhooks.layer({ allowHosts: config.webhooks.allowHosts }),
    Orders.layerSql.pipe(Layer.provide([Outbox.layer, Risk.orderRiskSql])),
    Dispatcher.layer({
      allowHosts: config.webhooks.allowHosts,
      retryDelays: config.webhooks.retryDelays,
      connectTimeout: config.webhooks.connectTimeout,
      timeout: config.webhooks.timeout
    }).pipe(Layer.provide(WebhookHttp.layer))
  ).pipe(Layer.provide([WebhookStoreSql.layer, DeliverySignal.layer]))

/**
 * Signed calls (`PublicAccess`: the signature by `@tawsil/signing`, the nonce and the minute window in one statement
 * per group of calls) and the tracker they feed, written behind the answer.
 */
const signedLayer = Layer.mergeAll(
  PublicAccess.layer().pipe(Layer.provide([SignedCallsSql.layer, KeyStoreSql.layer, Access.layerSql])),
  Tracker.layer().pipe(Layer.provide([TrackerStoreSql.layer, UsageStoreSql.layer]))
)

/**
 * The confirmation workflow of pending orders (docs/confirmation.md) over `Orders`, and its timeout sweeper (every
 * instance sweeps; each order is taken by one). Links are signed under the app's secret key (`Secrets`).
 */
const confirmationLayer = Confirmation.layerSweeping({ every: "30 seconds" }).pipe(
  Layer.provide(ConfirmationStoreSql.layer)
)

/**
 * The entities whose changes this server can undo (`@tawsil/changes`); a new recorded entity is one more line here.
 */
export const entities = Entity.layer(
  PromoEntity.entity,
  ThemeEntity.entity,
  PixelEntity.entity,
  SettingsEntity.entity,
  DesignEntity.entity,
  HomeSectionsEntity.entity,
  HomeLayoutEntity.entity,
  PageSectionEntity.entity,
  ShippingRatesEntity.entity,
  ShippingSettingsEntity.entity,
  CategoryEntity.entity,
  StockEntity.entity
)

/**
 * The configuration services (spec store-api-config): promo codes, themes, pixels, landing page sections and the
 * change history, whose writes record their changes through one `ChangeLog` (off when `ChangeLog.Recording` is
 * false).
 */
export const configurationLayer = Layer.mergeAll(
  Promos.layer,
  Themes.layer,
  Pixels.layer,
  Settings.layer,
  Design.layer,
  HomeSections.layer,
  HomeLayout.layer,
  PageSections.layer,
  ShippingRates.layer,
  ShippingSettings.layer,
  Categories.layer,
  Inventory.layer,
  Changes.layer
).pipe(
  Layer.provide(entities),
  Layer.provide(ChangeLog.layer),
  // Categories and stock: the catalogue's tables.
  Layer.provide(Layer.merge(CategoryStoreSql.layer, ProductStoreSql.layer)),
  Layer.provide(
    Layer.mergeAll(PromoStoreSql.layer, StorefrontStoreSql.layer, PageSectionStoreSql.layer, ChangeStoreSql.layer)
  ),
  // The shipping rates and settings; the courier rate sync also needs the shipping API's gateway (`Gateway`).
  Layer.provide(ShippingStoreSql.layer)
)

/** The domain services on the database (each needs only `SqlClient`), webhooks and configuration included. */
export const services = (config: Pick<AppConfig, "webhooks" | "shipments">) =>
  Layer.mergeAll(
    Access.layerSql,
    Layer.merge(shipmentsLayer(config), confirmationLayer).pipe(Layer.provideMerge(webhooksLayer(config))),
    signedLayer,
    Layer.mergeAll(Products.layer, LandingPages.layer).pipe(
      Layer.provide(ProductStoreSql.layer),
      Layer.provide(CategoryStoreSql.layer),
      Layer.provide(LandingPageStoreSql.layer)
    ),
    Idempotency.layer().pipe(Layer.provideMerge(IdempotencyStoreSql.layer)),
    ReadCache.layer,
    configurationLayer,
    Risk.layerSql
  )

/** The services with the default webhook settings (nothing exempt from the URL rules), for tests and tools. */
export const servicesLayer = services({
  webhooks: {
    allowHosts: { hosts: new Set() },
    retryDelays: RetryPolicy.defaultDelays,
    connectTimeout: Dispatcher.DEFAULT_CONNECT_TIMEOUT,
    timeout: Dispatcher.DEFAULT_TIMEOUT
  },
  shipments: { poll: undefined }
})

/** Every group of `StoreApi`, implemented. */
export const handlers = Layer.mergeAll(
  PingHandlers.handlers,
  AccessHandlers.handlers,
  OrdersHandlers.handlers,
  CustomersHandlers.handlers,
  ProductsHandlers.handlers,
  StockHandlers.handlers,
  CategoriesHandlers.handlers,
  LandingPagesHandlers.handlers,
  LandingPageSectionsHandlers.handlers,
  ProfileHandlers.handlers,
  DesignHandlers.handlers,
  HomeSectionsHandlers.handlers,
  HomeLayoutHandlers.handlers,
  WebhooksHandlers.handlers,
  TrackerHandlers.handlers,
  PromoCodesHandlers.handlers,
  ThemesHandlers.handlers,
  PixelsHandlers.handlers,
  ShippingHandlers.handlers,
  ShipmentsHandlers.handlers,
  CourierHooksHandlers.handlers,
  ChangesHandlers.handlers,
  RiskHandlers.handlers,
  CodHandlers.handlers,
  ConfirmationHandlers.handlers,
  ConfirmationHandlers.pageHandlers,
  HttpApiBuilder.group(StoreApi, "health", (handlers) => handlers.handle("health", () => Health.check("store")))
)

/** The store API's routes in a listener's mode: the handlers behind the pipeline (the services from the caller). */
export const routes = (mode: Pipeline.Mode) =>
  handlers.pipe(Layer.provide([Pipeline.gate(mode), Pipeline.idempotent(mode), Pipeline.signed(mode)]))

/** One listener of the store API, its pipeline in the given mode (the services come from the caller). */
export const listener = (config: AppConfig, name: string, mode: Pipeline.Mode, port: number) =>
  Server.make(config, {
    name,
    api: StoreApi,
    handlers: routes(mode),
    envelope,
    port,
    // The spec's alias host has no signups or events.
    absentPaths: mode === "origin" ? Pipeline.SIGNED_PATHS : undefined
  })

/**
 * The store listener, and its origin listener when `STORE_ORIGIN_PORT` is set; both share the services, the webhook
 * dispatcher among them. Needs DNS (`Egress.Resolver`) for the webhook URL rules, and the shipping API's gateway
 * (`Gateway` of @tawsil/shipping: its couriers, transport and account limits) for the courier rate sync.
 */
export const layer = (config: AppConfig) => {
  const store = listener(config, "store", "edge", config.storePort)
  const listeners =
    config.storeOriginPort === undefined
      ? store
      : Layer.merge(store, listener(config, "store-origin", "origin", config.storeOriginPort))
  return listeners.pipe(Layer.provide(services(config)))
}
