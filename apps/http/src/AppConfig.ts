/**
 * The app's configuration, read once at start from the environment. Every variable is checked here, so a bad
 * value stops the start with one line naming the variable, before anything listens or opens a database.
 */

import { readFileSync } from "node:fs"
import { Egress } from "@tawsil/egress"
import { KeyFile, KeyRing } from "@tawsil/secrets"
import { Poller } from "@tawsil/shipments"
import { RetryPolicy, WebhookUrl } from "@tawsil/webhooks"
import { Config, Duration, Effect, Redacted, Result, Schema } from "effect"

export type LogLevel = "Trace" | "Debug" | "Info" | "Warn" | "Error"

export interface AppConfig {
  readonly version: string
  readonly host: string
  readonly shippingPort: number
  readonly storePort: number
  /** The store API's origin listener (the spec's alias host: no replay, no per-minute limit, no read cache); off when undefined. */
  readonly storeOriginPort: number | undefined
  /** Request bodies above this many bytes answer 413. */
  readonly maxBodyBytes: number
  /** How long a stopping server lets in-flight requests finish. */
  readonly shutdownTimeout: Duration.Duration
  /** How long a stop first drains: listeners serving, `/health/ready` answering 503, before they stop accepting. */
  readonly shutdownDrain: Duration.Duration
  readonly logLevel: LogLevel
  /** The communes dataset (CC0 format `[{ wilayaCode, name, nameAr }]`); without it `/v1/communes` answers 503. */
  readonly communesFile: string | undefined
  /** Shipping API: requests per minute per client address on every call of the `shipping` group (docs/operations.md). */
  readonly shippingRateLimitPerMinute: number
  /** Shipping API: creates allowed to talk to couriers at once; more answer 503. */
  readonly shippingMaxConcurrentCreates: number
  /** Courier adapter packages to load besides the installed ones that declare themselves. */
  readonly courierAdapters: ReadonlyArray<string>
  /** Loopback stand-ins for courier origins (tests and local runs only). */
  readonly courierOrigins: Egress.Overrides
  /**
   * Redis, where the shipping API's client windows and the pace of courier accounts are shared by every instance;
   * undefined: each process keeps its own.
   */
  readonly redisUrl: Redacted.Redacted<string> | undefined
  readonly database:
    | { readonly kind: "embedded"; readonly dataDir: string }
    | { readonly kind: "server"; readonly url: Redacted.Redacted<string>; readonly poolSize: number }
  /** The Prometheus listener (`METRICS_HOST`:`METRICS_PORT`, `GET /metrics`); off when undefined. */
  readonly metrics: { readonly host: string; readonly port: number } | undefined
  /** OTLP export (the `OTEL_*` variables, docs/operations.md "Traces and metrics"); nothing is exported when unset. */
  readonly otlp: Otlp
  /**
   * Where the key sealing kept secrets comes from (docs/operations.md "Secret key"): `TAWSIL_SECRET_KEY` (and
   * `TAWSIL_SECRET_KEY_PREVIOUS`); else, with the embedded database, the key file of the data directory; else none.
   */
  readonly secretKeys: SecretKeys
  /** Orders' parcels (docs/cod-loop.md): the poller's cycle; undefined when polling is off. */
  readonly shipments: { readonly poll: Poller.Options | undefined }
  /** Webhook delivery (docs/operations.md "Webhooks"). */
  readonly webhooks: {
    /** The delays after a delivery's attempts 1 to 4 (`WEBHOOK_RETRY_DELAYS`). */
    readonly retryDelays: ReadonlyArray<Duration.Duration>
    /** Hosts exempt from the URL rules (`WEBHOOK_ALLOW_HOSTS`). */
    readonly allowHosts: WebhookUrl.AllowList
    readonly connectTimeout: Duration.Duration
    readonly timeout: Duration.Duration
  }
}

export type SecretKeys =
  | { readonly kind: "variable"; readonly ring: KeyRing.KeyRing }
  | { readonly kind: "file"; readonly path: string }
  /** A server database and no variable: writes that must seal a secret are refused, naming the variable. */
  | { readonly kind: "none" }

/** Where one signal goes over OTLP/HTTP (JSON). The headers may hold a vendor's API key: never logged. */
export interface OtlpTarget {
  readonly url: string
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
}

export interface Otlp {
  readonly traces: OtlpTarget | undefined
  readonly metrics: OtlpTarget | undefined
  /** `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, else `tawsil`. */
  readonly serviceName: string
  /** How often finished spans are sent (`OTEL_BSP_SCHEDULE_DELAY`, default 5 s). */
  readonly tracesInterval: Duration.Duration
  /** How often metrics are sent (`OTEL_METRIC_EXPORT_INTERVAL`, default 60 s). */
  readonly metricsInterval: Duration.Duration
}

/** A variable is set to a value the app cannot use. The message never repeats a secret's value. */
export class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("InvalidConfig", {
  variable: Schema.String,
  expected: Schema.String,
  received: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    const received = this.received === undefined ? "" : `, got ${JSON.stringify(this.received)}`
    return `${this.variable}: expected ${this.expected}${received}`
  }
}

/** One entry per variable: the table in README.md is written from this. */
export const variables = {
  HOST: { default: "127.0.0.1", doc: "Interface both servers listen on." },
  SHIPPING_PORT: { default: "8080", doc: "Port of the shipping API (0: any free port, logged at start)." },
  STORE_PORT: { default: "8081", doc: "Port of the store API (0: any free port, logged at start)." },
  STORE_ORIGIN_PORT: {
    default: "",
    doc: "Port of the store API's origin listener (no idempotent replay, per-minute limit or read cache). Unset: off."
  },
  DATABASE_URL: { default: "", doc: "PostgreSQL URL (`postgres://user:pass@host:5432/db`). Unset: embedded database." },
  DATABASE_POOL_SIZE: {
    default: "10",
    doc: "Connections to a real server (2–100); one of them is held for change notices (LISTEN)."
  },
  DATA_DIR: { default: ".data", doc: "Directory of the embedded database (used when DATABASE_URL is unset)." },
  MAX_BODY_BYTES: { default: "1048576", doc: "Largest accepted request body in bytes; larger answers 413." },
  SHUTDOWN_TIMEOUT_MS: { default: "10000", doc: "On SIGTERM/SIGINT, how long in-flight requests may finish." },
  SHUTDOWN_DRAIN_MS: {
    default: "0",
    doc: "On SIGTERM/SIGINT, how long both listeners keep serving with `/health/ready` answering 503 before they stop accepting: at least a balancer's probe interval times its failure threshold."
  },
  LOG_LEVEL: { default: "info", doc: "trace, debug, info, warn or error. Logs are JSON lines on stdout." },
  SHIPPING_RATE_LIMIT_PER_MINUTE: {
    default: "120",
    doc: "Shipping API: requests per minute per client address on every call that may reach a courier (create, track, rates, compare, labels, cancel, stop desks, credentials check, commune resolution; not the reference reads); more answer 429."
  },
  SHIPPING_MAX_CONCURRENT_CREATES: {
    default: "64",
    doc: "Shipping API: parcel creates in flight at once; more answer 503 with Retry-After."
  },
  COURIER_ADAPTERS: {
    default: "",
    doc: "More courier adapter plugins to load besides the installed ones, comma-separated: package names, package folders (a plugin's own folder, or one installed from its tarball) or entry files, absolute or relative to the working directory (docs/adapters.md)."
  },
  TAWSIL_COURIER_ORIGINS: {
    default: "",
    doc: "Tests and local runs only: `https://origin=http://127.0.0.1:port,…` sends a courier's requests to a local fake."
  },
  SHIPMENT_POLL_INTERVAL_MS: {
    default: "30000",
    doc: "How often each instance claims the shipments due for a check and asks their couriers (docs/cod-loop.md); 0: this instance polls none."
  },
  TAWSIL_SECRET_KEY: {
    default: "",
    doc: "The key sealing the secrets a store keeps (courier credentials): 64 hex characters (`openssl rand -hex 32`); never logged. Unset: with the embedded database, a key file made in DATA_DIR at the first start; with DATABASE_URL, none, and storing a secret is refused."
  },
  TAWSIL_SECRET_KEY_PREVIOUS: {
    default: "",
    doc: "During a key rotation only: the former key(s), comma-separated, still read until `npm run admin -- secrets reseal` has re-sealed everything."
  },
  REDIS_URL: {
    default: "",
    doc: "Redis URL (`redis://host:6379`): the shipping API's per-client windows and the pace of courier accounts are shared by every instance. Unset: per process."
  },
  COMMUNES_FILE: {
    default: "",
    doc: "The communes dataset file (docs/operations.md says how to download it). Unset: `/v1/communes` answers 503."
  },
  WEBHOOK_RETRY_DELAYS: {
    default: RetryPolicy.DEFAULT_DELAYS,
    doc: "Delays between a webhook delivery's 5 attempts (1 to 4 durations: `ms`, `s`, `m`, `h`, `d`; missing ones double), ±20 % jitter."
  },
  WEBHOOK_ALLOW_HOSTS: {
    default: "",
    doc: "Hosts (names or addresses, comma-separated) exempt from the webhook URL rules: `http`, any port, private addresses. Tests and private deployments only."
  },
  WEBHOOK_CONNECT_TIMEOUT_MS: {
    default: "5000",
    doc: "Webhook delivery: how long to wait for the receiver's connection."
  },
  WEBHOOK_TIMEOUT_MS: { default: "15000", doc: "Webhook delivery: how long to wait for the receiver's whole answer." },
  METRICS_PORT: {
    default: "9464",
    doc: "Port of the Prometheus listener (`GET /metrics`), on METRICS_HOST only; 0: any free port (logged at start); `off`: no listener."
  },
  METRICS_HOST: {
    default: "127.0.0.1",
    doc: "Interface of the Prometheus listener. Keep it off the public network: a scraper on the host or a private one."
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    default: "",
    doc: "OTLP/HTTP collector (`http://127.0.0.1:4318`): traces and metrics are sent there as JSON (`/v1/traces`, `/v1/metrics`). Unset: nothing is exported and no tracer is installed."
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    default: "",
    doc: "Full URL for traces alone; overrides the one above for traces."
  },
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: {
    default: "",
    doc: "Full URL for metrics alone; overrides the one above for metrics."
  },
  OTEL_EXPORTER_OTLP_HEADERS: {
    default: "",
    doc: "Headers of every export, `name=value,…` (percent-encoded values), e.g. a vendor's API key; never logged."
  },
  OTEL_TRACES_EXPORTER: { default: "otlp", doc: "`otlp`, or `none` to send no traces (and install no tracer)." },
  OTEL_METRICS_EXPORTER: {
    default: "otlp",
    doc: "`otlp`, or `none` to send no metrics over OTLP (`/metrics` still serves them)."
  },
  OTEL_SERVICE_NAME: {
    default: "tawsil",
    doc: "`service.name` of the exported data; `OTEL_RESOURCE_ATTRIBUTES` adds others (`k=v,…`)."
  },
  OTEL_BSP_SCHEDULE_DELAY: { default: "5000", doc: "Milliseconds between two sends of finished spans." },
  OTEL_METRIC_EXPORT_INTERVAL: { default: "60000", doc: "Milliseconds between two sends of the metrics." }
} as const

type Variable = keyof typeof variables

const raw = (name: Variable) => Config.String(name).pipe(Config.withDefault(variables[name].default))

const integer = (name: Variable, value: string, minimum: number, maximum: number, expected: string) => {
  const parsed = /^[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN
  return parsed >= minimum && parsed <= maximum
    ? Effect.succeed(parsed)
    : Effect.fail(new InvalidConfig({ variable: name, expected, received: value }))
}

const logLevels: Record<string, LogLevel> = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error"
}

const readVersion = () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string
  }
  return manifest.version
}

/** Reads and checks every variable. */
export const load: Effect.Effect<AppConfig, InvalidConfig | Config.ConfigError> = Effect.gen(function* () {
  const host = yield* raw("HOST")
  if (host.trim() === "") return yield* new InvalidConfig({ variable: "HOST", expected: "a host name or address" })
  const port = (name: Variable) =>
    Effect.flatMap(raw(name), (value) =>
      integer(name, value, 0, 65535, "a port number from 0 (any free port) to 65535")
    )
  const shippingPort = yield* port("SHIPPING_PORT")
  const storePort = yield* port("STORE_PORT")
  if (shippingPort === storePort && shippingPort !== 0) {
    return yield* new InvalidConfig({
      variable: "STORE_PORT",
      expected: `a port other than SHIPPING_PORT (${shippingPort})`,
      received: String(storePort)
    })
  }
  const originRaw = (yield* raw("STORE_ORIGIN_PORT")).trim()
  const storeOriginPort = originRaw === "" ? undefined : yield* port("STORE_ORIGIN_PORT")
  const maxBodyBytes = yield* Effect.flatMap(raw("MAX_BODY_BYTES"), (value) =>
    integer("MAX_BODY_BYTES", value, 1, 1024 ** 3, "a whole number of bytes from 1 to 1073741824")
  )
  const pollMs = yield* Effect.flatMap(raw("SHIPMENT_POLL_INTERVAL_MS"), (value) =>
    integer("SHIPMENT_POLL_INTERVAL_MS", value, 0, 86_400_000, "milliseconds from 0 (no polling) to 86400000")
  )
  const shutdownMs = yield* Effect.flatMap(raw("SHUTDOWN_TIMEOUT_MS"), (value) =>
    integer("SHUTDOWN_TIMEOUT_MS", value, 0, 600_000, "milliseconds from 0 to 600000")
  )
  const drainMs = yield* Effect.flatMap(raw("SHUTDOWN_DRAIN_MS"), (value) =>
    integer("SHUTDOWN_DRAIN_MS", value, 0, 600_000, "milliseconds from 0 to 600000")
  )
  const levelName = yield* raw("LOG_LEVEL")
  const logLevel = logLevels[levelName.toLowerCase()]
  if (logLevel === undefined) {
    return yield* new InvalidConfig({
      variable: "LOG_LEVEL",
      expected: "one of trace, debug, info, warn, error",
      received: levelName
    })
  }
  const url = yield* Config.Redacted("DATABASE_URL").pipe(Config.withDefault(Redacted.make("")))
  let database: AppConfig["database"]
  if (Redacted.value(url) === "") {
    const dataDir = yield* raw("DATA_DIR")
    if (dataDir.trim() === "") return yield* new InvalidConfig({ variable: "DATA_DIR", expected: "a directory path" })
    database = { kind: "embedded", dataDir }
  } else {
    if (!isPostgresUrl(Redacted.value(url))) {
      // The value may hold a password: never echo it.
      return yield* new InvalidConfig({
        variable: "DATABASE_URL",
        expected: "a postgres:// or postgresql:// URL (value not shown: it may hold a password)"
      })
    }
    const poolSize = yield* Effect.flatMap(raw("DATABASE_POOL_SIZE"), (value) =>
      // One connection is held for the change notices (LISTEN): a pool of one would leave none for queries.
      integer("DATABASE_POOL_SIZE", value, 2, 100, "a number of connections from 2 to 100")
    )
    database = { kind: "server", url, poolSize }
  }
  const secretKeys = yield* loadSecretKeys(database)
  const origins = Egress.parseOverrides(yield* raw("TAWSIL_COURIER_ORIGINS"))
  if (Result.isFailure(origins)) {
    return yield* new InvalidConfig({
      variable: "TAWSIL_COURIER_ORIGINS",
      expected: `entries https://origin=http://127.0.0.1:port (${origins.failure.reason})`
    })
  }
  const shippingRateLimitPerMinute = yield* Effect.flatMap(raw("SHIPPING_RATE_LIMIT_PER_MINUTE"), (value) =>
    integer("SHIPPING_RATE_LIMIT_PER_MINUTE", value, 1, 1_000_000, "requests per minute from 1 to 1000000")
  )
  const shippingMaxConcurrentCreates = yield* Effect.flatMap(raw("SHIPPING_MAX_CONCURRENT_CREATES"), (value) =>
    integer("SHIPPING_MAX_CONCURRENT_CREATES", value, 1, 100_000, "a number of creates from 1 to 100000")
  )
  const redis = yield* Config.Redacted("REDIS_URL").pipe(Config.withDefault(Redacted.make("")))
  if (Redacted.value(redis) !== "" && !isRedisUrl(Redacted.value(redis))) {
    return yield* new InvalidConfig({
      variable: "REDIS_URL",
      expected: "a redis:// or rediss:// URL (value not shown: it may hold a password)"
    })
  }
  const retryDelays = RetryPolicy.parseDelays(yield* raw("WEBHOOK_RETRY_DELAYS"))
  if (Result.isFailure(retryDelays)) {
    return yield* new InvalidConfig({ variable: "WEBHOOK_RETRY_DELAYS", expected: retryDelays.failure })
  }
  const allowHosts = WebhookUrl.parseAllowHosts(yield* raw("WEBHOOK_ALLOW_HOSTS"))
  if (Result.isFailure(allowHosts)) {
    return yield* new InvalidConfig({
      variable: "WEBHOOK_ALLOW_HOSTS",
      expected: `comma-separated host names or IP addresses (${allowHosts.failure})`
    })
  }
  const webhookConnectMs = yield* Effect.flatMap(raw("WEBHOOK_CONNECT_TIMEOUT_MS"), (value) =>
    integer("WEBHOOK_CONNECT_TIMEOUT_MS", value, 1, 120_000, "milliseconds from 1 to 120000")
  )
  const webhookTimeoutMs = yield* Effect.flatMap(raw("WEBHOOK_TIMEOUT_MS"), (value) =>
    integer("WEBHOOK_TIMEOUT_MS", value, 1, 300_000, "milliseconds from 1 to 300000")
  )
  const metricsPortRaw = (yield* raw("METRICS_PORT")).trim().toLowerCase()
  const metricsHost = (yield* raw("METRICS_HOST")).trim()
  if (metricsHost === "") {
    return yield* new InvalidConfig({ variable: "METRICS_HOST", expected: "a host name or address" })
  }
  const metrics =
    metricsPortRaw === "off"
      ? undefined
      : {
          host: metricsHost,
          port: yield* integer("METRICS_PORT", metricsPortRaw, 0, 65535, "a port number from 0 to 65535, or off")
        }
  const otlp = yield* loadOtlp
  const courierAdapters = (yield* raw("COURIER_ADAPTERS"))
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")
  return {
    version: readVersion(),
    courierAdapters,
    shippingRateLimitPerMinute,
    shippingMaxConcurrentCreates,
    courierOrigins: origins.success,
    redisUrl: Redacted.value(redis) === "" ? undefined : redis,
    host,
    shippingPort,
    storePort,
    storeOriginPort,
    maxBodyBytes,
    shutdownTimeout: Duration.millis(shutdownMs),
    shutdownDrain: Duration.millis(drainMs),
    logLevel,
    communesFile: (yield* raw("COMMUNES_FILE")).trim() || undefined,
    database,
    secretKeys,
    metrics,
    otlp,
    shipments: {
      poll: pollMs === 0 ? undefined : { ...Poller.defaults, every: Duration.millis(pollMs) }
    },
    webhooks: {
      retryDelays: retryDelays.success,
      allowHosts: allowHosts.success,
      connectTimeout: Duration.millis(webhookConnectMs),
      timeout: Duration.millis(webhookTimeoutMs)
    }
  }
})

const NOT_SHOWN = "value not shown: it is a key"

/** `TAWSIL_SECRET_KEY` and its previous keys; the values are never echoed, not even in part. */
const loadSecretKeys = (
  database: AppConfig["database"]
): Effect.Effect<SecretKeys, InvalidConfig | Config.ConfigError> =>
  Effect.gen(function* () {
    const secret = (name: Variable) => Config.Redacted(name).pipe(Config.withDefault(Redacted.make("")))
    const currentText = Redacted.value(yield* secret("TAWSIL_SECRET_KEY")).trim()
    const previousText = Redacted.value(yield* secret("TAWSIL_SECRET_KEY_PREVIOUS")).trim()
    if (currentText === "") {
      if (previousText !== "") {
        return yield* new InvalidConfig({
          variable: "TAWSIL_SECRET_KEY_PREVIOUS",
          expected: "to be set only with TAWSIL_SECRET_KEY, during a key rotation"
        })
      }
      return database.kind === "embedded" ? { kind: "file", path: KeyFile.pathIn(database.dataDir) } : { kind: "none" }
    }
    const current = Result.flatMap(KeyRing.parse(currentText), (bytes) => Result.map(KeyRing.key(bytes), () => bytes))
    if (Result.isFailure(current)) {
      return yield* new InvalidConfig({ variable: "TAWSIL_SECRET_KEY", expected: `${current.failure}; ${NOT_SHOWN}` })
    }
    const previous: Array<Redacted.Redacted<Uint8Array>> = []
    for (const text of previousText.split(",").map((entry) => entry.trim())) {
      if (text === "") continue
      const key = KeyRing.parse(text)
      if (Result.isFailure(key)) {
        return yield* new InvalidConfig({
          variable: "TAWSIL_SECRET_KEY_PREVIOUS",
          expected: `keys of ${key.failure}, comma-separated; ${NOT_SHOWN}`
        })
      }
      previous.push(key.success)
    }
    const ring = KeyRing.make(current.success, previous)
    if (Result.isFailure(ring)) {
      return yield* new InvalidConfig({
        variable: "TAWSIL_SECRET_KEY_PREVIOUS",
        expected: `${ring.failure}; ${NOT_SHOWN}`
      })
    }
    return { kind: "variable", ring: ring.success }
  })

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, values percent-encoded (the OTel spec). */
export const parseOtlpHeaders = (text: string): Record<string, string> | undefined => {
  const headers: Record<string, string> = {}
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue
    const equals = entry.indexOf("=")
    if (equals <= 0) return undefined
    const name = entry.slice(0, equals).trim().toLowerCase()
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return undefined
    try {
      headers[name] = decodeURIComponent(entry.slice(equals + 1).trim())
    } catch {
      return undefined
    }
  }
  return headers
}

const loadOtlp: Effect.Effect<Otlp, InvalidConfig | Config.ConfigError> = Effect.gen(function* () {
  const optional = (name: string) => Config.String(name).pipe(Config.withDefault(""))
  const endpoint = (yield* optional("OTEL_EXPORTER_OTLP_ENDPOINT")).trim()
  const url = (variable: string, value: string) =>
    isHttpUrl(value)
      ? Effect.succeed(value)
      : Effect.fail(new InvalidConfig({ variable, expected: "an http:// or https:// URL" }))
  const base = endpoint === "" ? undefined : yield* url("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
  // The endpoint's signal paths, as the OTel spec appends them (a trailing slash or not).
  const under = (path: string) => (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/${path}`)
  const headersText = yield* Config.Redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault(Redacted.make("")))
  const parsed = parseOtlpHeaders(Redacted.value(headersText))
  if (parsed === undefined) {
    // The value may hold an API key: never echo it.
    return yield* new InvalidConfig({
      variable: "OTEL_EXPORTER_OTLP_HEADERS",
      expected: "name=value pairs separated by commas, values percent-encoded (value not shown: it may hold a key)"
    })
  }
  const headers = Redacted.make(parsed as Readonly<Record<string, string>>)
  const target = (signal: "TRACES" | "METRICS", path: string) =>
    Effect.gen(function* () {
      const exporter = (yield* optional(`OTEL_${signal}_EXPORTER`)).trim().toLowerCase() || "otlp"
      if (exporter === "none") return undefined
      if (exporter !== "otlp") {
        return yield* new InvalidConfig({
          variable: `OTEL_${signal}_EXPORTER`,
          expected: "otlp or none",
          received: exporter
        })
      }
      const own = (yield* optional(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`)).trim()
      const where = own === "" ? under(path) : yield* url(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`, own)
      return where === undefined ? undefined : { url: where, headers }
    })
  const millis = (name: "OTEL_BSP_SCHEDULE_DELAY" | "OTEL_METRIC_EXPORT_INTERVAL", fallback: string) =>
    Effect.flatMap(optional(name), (value) =>
      integer(name as Variable, value.trim() || fallback, 1, 3_600_000, "milliseconds from 1 to 3600000")
    )
  const attributes = (yield* optional("OTEL_RESOURCE_ATTRIBUTES"))
    .split(",")
    .map((entry) => entry.split("="))
    .find(([key]) => key?.trim() === "service.name")
  const serviceName =
    (yield* optional("OTEL_SERVICE_NAME")).trim() || attributes?.[1]?.trim() || variables.OTEL_SERVICE_NAME.default
  return {
    traces: yield* target("TRACES", "v1/traces"),
    metrics: yield* target("METRICS", "v1/metrics"),
    serviceName,
    tracesInterval: Duration.millis(
      yield* millis("OTEL_BSP_SCHEDULE_DELAY", variables.OTEL_BSP_SCHEDULE_DELAY.default)
    ),
    metricsInterval: Duration.millis(
      yield* millis("OTEL_METRIC_EXPORT_INTERVAL", variables.OTEL_METRIC_EXPORT_INTERVAL.default)
    )
  }
})

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

const isRedisUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== ""
  } catch {
    return false
  }
}

const isPostgresUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== ""
  } catch {
    return false
  }
}
