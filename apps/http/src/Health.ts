/**
 * Health on both servers. `GET /health`: 200 while the database answers, 503 while it does not, with the same
 * document either way so that a person and a monitor read one shape. The probes of a balancer or an orchestrator,
 * answered by each listener itself (`Server.ts`): `GET /health/live`, 200 while the process runs (while it starts
 * and while it drains too); `GET /health/ready`, 200 only while this process should get requests — its routes
 * attached, the database reachable, every migration it knows applied, and no stop begun — else 503 in the server's
 * envelope. A stop first drains (`Lifecycle.draining`): readiness fails while the listeners still serve, for
 * `SHUTDOWN_DRAIN_MS`, so that a balancer following `/health/ready` stops sending before they stop accepting.
 */

import { HealthGroup, HealthReport, HealthUnavailable } from "@tawsil/api/Health"
import { Database, Migrations } from "@tawsil/storage"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

/** This process: its row in `app_instances`, its version and when it started. */
export class RunningInstance extends Context.Service<
  RunningInstance,
  { readonly id: string; readonly version: string; readonly startedAtMillis: number }
>()("@tawsil/http/Health/RunningInstance") {}

export { HealthGroup, HealthReport, HealthUnavailable }

/** Pings the database and reports. */
export const check = Effect.fn("Health.check")(function* (service: "shipping" | "store") {
  const database = yield* Database.Database
  const instance = yield* RunningInstance
  const started = yield* Clock.currentTimeMillis
  const ping = yield* Effect.result(database.ping)
  const now = yield* Clock.currentTimeMillis
  const common = {
    service,
    version: instance.version,
    instance: instance.id,
    uptimeSeconds: Math.floor((now - instance.startedAtMillis) / 1000)
  }
  if (ping._tag === "Failure") {
    return yield* new HealthUnavailable({
      status: "unavailable",
      ...common,
      database: { status: "down", kind: database.kind, error: ping.failure.reason }
    })
  }
  return new HealthReport({
    status: "ok",
    ...common,
    database: { status: "up", kind: database.kind, latencyMs: now - started }
  })
})

/**
 * This process's stop as the probes see it: `draining` turns true when a stop begins, before the listeners stop
 * accepting; from then on `/health/ready` answers 503 and every answer closes its connection.
 */
export class Lifecycle extends Context.Service<Lifecycle, { draining: boolean }>()("@tawsil/http/Health/Lifecycle") {}

export const layerLifecycle = Layer.sync(Lifecycle, () => Lifecycle.of({ draining: false }))

/** What `/health/ready` says when this process should get requests. */
export interface Ready {
  readonly database: { readonly kind: Database.Kind; readonly latencyMs: number }
  /** The latest migration this process knows, applied to the database. */
  readonly migration: string
}

/** Which check failed, and why, for the 503's message. */
export interface NotReady {
  readonly check: "starting" | "draining" | "database" | "migrations"
  readonly message: string
}

/**
 * The database side of readiness, built by the app: a ping (2 s at most), then whether the database holds every
 * migration this process knows. Effect's migrator counts a database as migrated up to its highest recorded id, so
 * that is the test; a database migrated further by a newer instance (a rolling upgrade) stays ready.
 */
export class Readiness extends Context.Service<Readiness, { readonly check: Effect.Effect<Ready, NotReady> }>()(
  "@tawsil/http/Health/Readiness"
) {}

const MIGRATIONS_TIMEOUT = Duration.seconds(2)

export const layerReadiness: Layer.Layer<Readiness, never, Database.Database | SqlClient.SqlClient> = Layer.effect(
  Readiness,
  Effect.gen(function* () {
    const database = yield* Database.Database
    const sql = yield* SqlClient.SqlClient
    const known = yield* Migrations.loader.pipe(Effect.orDie)
    const [latestId, latestName] = known.reduce((a, b) => (b[0] > a[0] ? b : a), [0, "none", Effect.void] as const)
    const latest = `${String(latestId).padStart(4, "0")}_${latestName}`
    const recorded = sql<{ readonly latest: number | null }>`SELECT max(migration_id) AS latest FROM ${sql(
      Migrations.TABLE
    )}`.pipe(
      Effect.map((rows) => rows[0]?.latest ?? 0),
      Effect.timeoutOrElse({
        duration: MIGRATIONS_TIMEOUT,
        orElse: () => Effect.fail(`no answer within ${Duration.format(MIGRATIONS_TIMEOUT)}`)
      }),
      Effect.mapError((error) => (typeof error === "string" ? error : error.message))
    )
    const check = Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      const ping = yield* Effect.result(database.ping)
      if (ping._tag === "Failure") {
        return yield* Effect.fail<NotReady>({
          check: "database",
          message: `the database is unreachable: ${ping.failure.reason}`
        })
      }
      const latencyMs = (yield* Clock.currentTimeMillis) - started
      const applied = yield* Effect.result(recorded)
      if (applied._tag === "Failure") {
        return yield* Effect.fail<NotReady>({
          check: "migrations",
          message: `the migrations could not be read: ${applied.failure}`
        })
      }
      if (applied.success < latestId) {
        return yield* Effect.fail<NotReady>({
          check: "migrations",
          message: `migration ${latest} is not applied to the database (it is at ${applied.success})`
        })
      }
      return { database: { kind: database.kind, latencyMs }, migration: latest }
    })
    return Readiness.of({ check })
  })
)
