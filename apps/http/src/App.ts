/**
 * The whole app as one layer: JSON logging, the database (embedded or real) with its migrations, this start's
 * instance record, the two servers (the store's with its webhook dispatcher and signup/event writer), the hourly
 * purges and, on the embedded database, the admin listener. Layers are released in reverse: on shutdown readiness
 * fails first while the servers still serve (`SHUTDOWN_DRAIN_MS`), then the servers stop accepting and finish their
 * requests, then the database closes.
 */

import * as Os from "node:os"
import { UsageStore, UsageStoreSql } from "@tawsil/access"
import type { CourierAdapter } from "@tawsil/courier"
import { Egress } from "@tawsil/egress"
import { IdempotencyStore, IdempotencyStoreSql } from "@tawsil/idempotency"
import {
  AdapterMemories,
  Catalogue,
  ClientWindow,
  CommuneLists,
  CourierPacer,
  Discovery,
  HttpTransport
} from "@tawsil/shipping"
import { NonceStore, NonceStoreSql } from "@tawsil/signing"
import { AppInstance, Database, Migrations } from "@tawsil/storage"
import { Retention, WebhookStoreSql } from "@tawsil/webhooks"
import { Clock, Duration, Effect, Layer, Redacted, References, Schedule } from "effect"
import { Persistence, RateLimiter } from "effect/persistence"
import * as Announcements from "./Announcements.ts"
import type { AppConfig } from "./AppConfig.ts"
import * as AdminListener from "./admin/AdminListener.ts"
import * as AdminRequest from "./admin/AdminRequest.ts"
import * as SecretKeys from "./admin/SecretKeys.ts"
import * as BoundUrls from "./BoundUrls.ts"
import * as Edge from "./Edge.ts"
import * as EgressGuard from "./EgressGuard.ts"
import * as Health from "./Health.ts"
import { RunningInstance } from "./Health.ts"
import * as HttpMetrics from "./HttpMetrics.ts"
import * as JsonLogger from "./JsonLogger.ts"
import * as MetricsListener from "./MetricsListener.ts"
import * as ShippingServer from "./shipping/Server.ts"
import * as StoreServer from "./store/Server.ts"
import * as Telemetry from "./Telemetry.ts"

export const databaseLayer = (config: AppConfig) =>
  config.database.kind === "embedded"
    ? Database.layerEmbedded({ dataDir: config.database.dataDir })
    : Database.layerServer({ url: config.database.url, maxConnections: config.database.poolSize })

export const loggingLayer = (config: AppConfig) =>
  Layer.mergeAll(JsonLogger.layer, Layer.succeed(References.MinimumLogLevel, config.logLevel))

const instanceLayer = (config: AppConfig) =>
  Layer.effect(
    RunningInstance,
    Effect.gen(function* () {
      const row = yield* AppInstance.register({ hostname: Os.hostname(), pid: process.pid, version: config.version })
      const database = yield* Database.Database
      yield* Effect.logInfo("started").pipe(
        Effect.annotateLogs({
          instance: row.id,
          version: config.version,
          database: database.kind,
          location: database.location
        })
      )
      return RunningInstance.of({ id: row.id, version: config.version, startedAtMillis: row.startedAt.getTime() })
    })
  )

/** The installed courier adapters, found at start; a malformed one stops the start (fail closed). */
const catalogue = (config: AppConfig) =>
  Effect.gen(function* () {
    const adapters = yield* Discovery.discover(import.meta.url, config.courierAdapters)
    const catalogue = yield* Effect.try({
      try: () => Catalogue.make(adapters),
      catch: (error) => error as CourierAdapter.InvalidAdapter
    })
    yield* Effect.logInfo("courier adapters loaded").pipe(
      Effect.annotateLogs({
        platforms: adapters.map((adapter) => adapter.platform),
        couriers: catalogue.entries.length
      })
    )
    return catalogue
  })

/** Idempotency records live 24 hours; once an hour the expired ones are deleted. */
const purgeIdempotency = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* IdempotencyStore.IdempotencyStore
    yield* store.purgeExpired.pipe(
      Effect.tap((deleted) =>
        deleted > 0
          ? Effect.logInfo("expired idempotency records deleted").pipe(Effect.annotateLogs({ deleted }))
          : Effect.void
      ),
      Effect.repeat(Schedule.spaced("1 hour")),
      Effect.forkScoped
    )
  })
).pipe(Layer.provide(IdempotencyStoreSql.layer))

/** The store API's rate windows are read for a minute; once an hour the ones older than an hour are deleted. */
const purgeRateWindows = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* UsageStore.UsageStore
    yield* store.purgeWindows.pipe(Effect.repeat(Schedule.spaced("1 hour")), Effect.forkScoped)
  })
).pipe(Layer.provide(UsageStoreSql.layer))

/** Runs `purge` every hour, the first time an hour after the start (a start does no more database work than needed). */
const hourly = <A, R>(purge: Effect.Effect<A, never, R>) =>
  Effect.sleep("1 hour").pipe(Effect.andThen(purge), Effect.forever, Effect.forkScoped)

/** Nonces of signed calls are remembered an hour; once an hour the expired ones are deleted. */
const purgeNonces = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* NonceStore.NonceStore
    yield* hourly(store.purgeExpired)
  })
).pipe(Layer.provide(NonceStoreSql.layer))

/** Webhook events past their retention (`@tawsil/webhooks` `Retention`), with their delivery log, deleted hourly. */
const purgeWebhookEvents = Layer.effectDiscard(hourly(Retention.purge)).pipe(Layer.provide(WebhookStoreSql.layer))

/**
 * The admin CLI's way in while this process owns the embedded database (docs/operations.md "Admin CLI"). With a
 * real server the CLI connects to the database itself, so there is no listener.
 */
const adminListener = (config: AppConfig) =>
  config.database.kind === "embedded"
    ? AdminListener.layer({ dataDir: config.database.dataDir }).pipe(Layer.provide(AdminRequest.layerSql))
    : Layer.empty

/**
 * The two lines of a stop: `stopping` as it begins (what stopped it, how many requests are in flight) — acquired
 * last, so released first — and `stopped` once the servers have drained and the database has closed, just before
 * the log itself is flushed. Between `stopping` and the servers' close, the drain: readiness answers 503 and the
 * listeners keep serving for `drain`, so that a balancer following `/health/ready` stops sending first.
 */
const stopLines = (signal: () => string | undefined, drain: Duration.Duration) => {
  const began = Layer.effectDiscard(
    Effect.gen(function* () {
      const inFlight = yield* Edge.InFlight
      const lifecycle = yield* Health.Lifecycle
      yield* Effect.addFinalizer(() =>
        Effect.logInfo("stopping").pipe(
          Effect.annotateLogs({
            signal: signal() ?? "none",
            inFlight: inFlight.count,
            drainMs: Duration.toMillis(drain)
          }),
          Effect.andThen(
            Effect.sync(() => {
              lifecycle.draining = true
            })
          ),
          Effect.andThen(Effect.sleep(drain))
        )
      )
    })
  )
  const ended = Layer.effectDiscard(
    Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      yield* Effect.addFinalizer(() =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.logInfo("stopped").pipe(Effect.annotateLogs({ uptimeSeconds: Math.round((now - started) / 1000) }))
        )
      )
    })
  )
  return { began, ended }
}

/**
 * Where rate windows are counted, courier accounts paced, couriers' commune lists kept and adapters' memories (the
 * sandbox's cancels) held: in Redis when `REDIS_URL` is set, so every instance shares them (a client behind a load
 * balancer gets its limit once, not once per instance; a courier account is paced once in all; a commune list is
 * read once for all; a parcel cancelled through one instance tracks as cancelled through another), else in this
 * process. One Redis client serves them all.
 */
export const limitLayers = (config: AppConfig) => {
  if (config.redisUrl === undefined) {
    return {
      windows: ClientWindow.layerStoreMemory(),
      pacer: CourierPacer.layerMemory,
      hostStores: Layer.merge(CommuneLists.layerMemory, AdapterMemories.layerMemory)
    }
  }
  const redis = redisClient(config.redisUrl)
  return {
    windows: RateLimiter.layerStoreRedis({ prefix: "tawsil:ratelimit:" }).pipe(Layer.provide(redis)),
    pacer: CourierPacer.layerRedis({ prefix: "tawsil:pace:" }).pipe(Layer.provide(redis)),
    hostStores: Layer.merge(CommuneLists.layerRedis, AdapterMemories.layerRedis).pipe(
      Layer.provide(Persistence.layerBackingRedis),
      Layer.provide(redis)
    )
  }
}

/**
 * The Redis client, imported only when `REDIS_URL` is set: the `redis` package is some 600 modules, held in memory
 * once imported, that a process without Redis would carry for nothing (docs/memory.md).
 */
const redisClient = (url: Redacted.Redacted<string>) =>
  Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@effect/platform-node/NodeRedis")),
      (NodeRedis) => NodeRedis.layer({ url: Redacted.value(url) })
    )
  )

const inFlight = Layer.sync(Edge.InFlight, () => ({ count: 0 }))

export interface Options {
  /** The signal that stopped the process, once one has (for the `stopping` line). */
  readonly stopSignal?: (() => string | undefined) | undefined
  /**
   * The courier accounts' pacer instead of the configured one: tests of the app in their own process pace the fakes
   * with `CourierPacer.layerMemoryScaled`, running each declared minute's limit in milliseconds.
   */
  readonly pacer?: Layer.Layer<CourierPacer.CourierPacer> | undefined
}

export const layer = (config: AppConfig, options: Options = {}) => {
  const storage = Migrations.layer.pipe(Layer.provideMerge(databaseLayer(config)))
  // The key file is created after the data directory's lock is taken (in the database's layer).
  const runtime = Layer.mergeAll(
    instanceLayer(config),
    Announcements.accessEvents,
    Health.layerReadiness,
    SecretKeys.announce(config.secretKeys).pipe(Layer.provideMerge(SecretKeys.layer(config.secretKeys)))
  ).pipe(Layer.provideMerge(storage))
  const servers = (catalogue: Catalogue.Catalogue) =>
    Layer.mergeAll(
      ShippingServer.layer(config, catalogue),
      StoreServer.layer(config).pipe(
        Layer.provide(Egress.Resolver.layer),
        // The courier rate sync: the shipping API's couriers, through a gateway over the same catalogue and transport.
        Layer.provide(ShippingServer.gatewayLayer(config, catalogue))
      )
    )
  // The client windows' store, the pace of courier accounts, and the stores kept for couriers (lists, memories).
  const { windows: limits, pacer, hostStores } = limitLayers(config)
  const transport = HttpTransport.layer({ overrides: config.courierOrigins }).pipe(
    Layer.provide([Egress.Resolver.layer, options.pacer ?? pacer])
  )
  const stop = stopLines(options.stopSignal ?? (() => undefined), config.shutdownDrain)
  // The adapters are found first: a malformed or clashing one stops the start before the database is opened or
  // migrated (fail closed, in about a second). The guard's reports are logged from before they are imported.
  const app = Layer.unwrap(
    Effect.map(catalogue(config), (catalogue) =>
      stop.began.pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            servers(catalogue),
            purgeIdempotency,
            purgeRateWindows,
            purgeNonces,
            purgeWebhookEvents,
            adminListener(config),
            // Every documented metric family at zero from the first scrape or export, not at its first event.
            Layer.effectDiscard(HttpMetrics.zero),
            config.metrics === undefined ? Layer.empty : MetricsListener.layer(config.metrics)
          )
        ),
        Layer.provide([runtime, transport, inFlight, Health.layerLifecycle, limits, hostStores, BoundUrls.layer]),
        Layer.provide(stop.ended)
      )
    )
  )
  return app.pipe(
    Layer.provide(EgressGuard.reporting),
    Layer.provide([loggingLayer(config), Telemetry.serviceSpans(config), Telemetry.layer(config)])
  )
}
