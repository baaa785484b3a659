/**
 * The store server in this process, on a fresh migrated database of each backend (embedded always, the real
 * server with `DATABASE_URL`), listening on a loopback port; plus a small HTTP client for its envelope.
 */
import { Admin } from "@tawsil/access"
import type { CourierAdapter } from "@tawsil/courier"
import { Egress } from "@tawsil/egress"
import { Secrets } from "@tawsil/secrets"
import type { Poller } from "@tawsil/shipments"
import { CourierPacer } from "@tawsil/shipping"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { RetryPolicy, WebhookUrl } from "@tawsil/webhooks"
import { Duration, Effect, Layer, Redacted, References } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import * as Announcements from "../src/Announcements.ts"
import type { AppConfig } from "../src/AppConfig.ts"
import { RunningInstance } from "../src/Health.ts"
import * as StoreServer from "../src/store/Server.ts"
import * as Couriers from "./store-shipping/Couriers.ts"

export const backends = TestDatabase.backends

const config: AppConfig = {
  version: "test",
  host: "127.0.0.1",
  shippingPort: 0,
  storePort: 0,
  storeOriginPort: undefined,
  maxBodyBytes: 1_048_576,
  shutdownTimeout: Duration.seconds(1),
  shutdownDrain: Duration.zero,
  logLevel: "Error",
  communesFile: undefined,
  shippingRateLimitPerMinute: 600,
  shippingMaxConcurrentCreates: 64,
  courierAdapters: [],
  courierOrigins: {} as AppConfig["courierOrigins"],
  redisUrl: undefined,
  database: { kind: "embedded", dataDir: "" },
  secretKeys: { kind: "none" },
  metrics: undefined,
  otlp: {
    traces: undefined,
    metrics: undefined,
    serviceName: "tawsil",
    tracesInterval: Duration.seconds(5),
    metricsInterval: Duration.seconds(60)
  },
  webhooks: {
    retryDelays: RetryPolicy.defaultDelays,
    allowHosts: WebhookUrl.noHostsAllowed,
    connectTimeout: Duration.seconds(5),
    timeout: Duration.seconds(15)
  },
  // A test runs a poll cycle itself (`Poller.cycle`) where it needs one.
  shipments: { poll: undefined }
}

const instance = Layer.succeed(
  RunningInstance,
  RunningInstance.of({ id: "test", version: "test", startedAtMillis: Date.now() })
)

/** Errors only: an access-log line per request would slow the tests and bury their output. */
const quiet = Layer.succeed(References.MinimumLogLevel, "Error")

/** What a test may change of the store server's configuration, and DNS as the test says it is. */
export interface ServerOptions {
  readonly webhooks?: Partial<AppConfig["webhooks"]> | undefined
  readonly resolver?: Layer.Layer<Egress.Resolver> | undefined
  /** Couriers' origins sent to loopback fakes (`TAWSIL_COURIER_ORIGINS`), for the courier rate sync. */
  readonly courierOrigins?: Egress.Overrides | undefined
  /** The secret key sealing courier accounts: a random one unless told. */
  readonly secrets?: Layer.Layer<Secrets.Secrets> | undefined
  /** The shipments' poller and its loop (`SHIPMENT_POLL_INTERVAL_MS`); none unless told. */
  readonly poll?: Poller.Options | undefined
  /** Couriers a test defines, beside the installed ones. */
  readonly couriers?: ReadonlyArray<CourierAdapter.Any> | undefined
  /**
   * Courier accounts paced on windows `pace` times as long as declared (`CourierPacer.layerMemoryScaled`), where the
   * pace is not what a test is about; the declared pace unless told.
   */
  readonly pace?: number | undefined
}

/** The migrated database of `backend` and the store server on it. */
export const storeServer = (backend: TestDatabase.Backend, options: ServerOptions = {}) => {
  const database = TestDatabase.migrated(backend)
  const server = StoreServer.layer({
    ...config,
    webhooks: { ...config.webhooks, ...options.webhooks },
    shipments: { poll: options.poll }
  }).pipe(
    Layer.provide(options.resolver ?? Egress.Resolver.layer),
    Layer.provide(
      Couriers.gateway(
        config,
        options.courierOrigins,
        options.couriers,
        options.pace === undefined ? CourierPacer.layerMemory : CourierPacer.layerMemoryScaled(options.pace)
      )
    )
  )
  return Layer.mergeAll(server, Admin.layerSql).pipe(
    Layer.provide(Announcements.accessEvents),
    Layer.provide(options.secrets ?? Secrets.layerTest),
    Layer.provideMerge(Layer.mergeAll(database, instance, quiet)),
    Layer.orDie
  )
}

/** The store API's origin listener alone (no replay, per-minute limit or read cache) on `backend`. */
export const originServer = (backend: TestDatabase.Backend) => {
  const database = TestDatabase.migrated(backend)
  const origin = StoreServer.listener(config, "store-origin", "origin", 0).pipe(
    Layer.provide(StoreServer.servicesLayer),
    Layer.provide([Egress.Resolver.layer, Couriers.gateway(config), Secrets.layerTest])
  )
  return Layer.mergeAll(origin, Admin.layerSql).pipe(
    Layer.provide(Announcements.accessEvents),
    Layer.provideMerge(Layer.mergeAll(database, instance, quiet)),
    Layer.orDie
  )
}

/** A store (Enterprise and pilot-enrolled unless told) and its first platform key's bearer token. */
export const createStore = (input: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const created = yield* admin.createStore({ name: `Boutique ${Math.random().toString(36).slice(2, 8)}`, ...input })
    return { id: created.store.id, token: Redacted.value(created.platform_key.bearer_token) }
  }).pipe(Effect.orDie)

/** The base URL the store server listens on. */
export const baseUrl = Effect.map(HttpServer.HttpServer, (server) =>
  HttpServer.formatAddress(server.address).replace("0.0.0.0", "127.0.0.1")
)

export interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
  readonly body: any
  readonly text: string
}

export interface RequestOptions {
  readonly token?: string | undefined
  readonly key?: string | undefined
  readonly body?: unknown
  /** Sent as is (for malformed JSON). */
  readonly raw?: string | undefined
  /** Sent as these exact bytes, with the headers given (a courier's push). */
  readonly bytes?: Uint8Array | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** One call; parses the JSON answer (the `text` is kept for byte comparisons). */
export const call = (base: string, method: string, path: string, options: RequestOptions = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    if (options.key !== undefined) headers["idempotency-key"] = options.key
    const body = options.bytes ?? options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    if (body !== undefined && options.bytes === undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${base}${path}`, body === undefined ? { method, headers } : { method, headers, body })
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed, text }
  })

/** Runs SQL on the server's database (fixtures: a product's stock, a clock-independent check). */
export const sql = SqlClient.SqlClient
