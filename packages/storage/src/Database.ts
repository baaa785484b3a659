/**
 * Tawsil's PostgreSQL, embedded or real, behind one `SqlClient`.
 *
 * `layerEmbedded` runs PostgreSQL in-process (PGlite) on a data directory; `layerServer` connects to a real
 * server. The app picks one from its configuration (`DATABASE_URL` set or not). Both go through `@effect/sql-pg`,
 * so every query, codec and migration is the same on both. This module (with `TestDatabase`) is the only place that names the driver.
 */

import * as Path from "node:path"
import { PgClient } from "@effect/sql-pg"
import type { PGlite } from "@electric-sql/pglite"
import { Context, Duration, Effect, Layer, Redacted, Schedule, Schema } from "effect"
import { type SqlClient, SqlError } from "effect/sql"
import * as DataDirLock from "./DataDirLock.ts"
import { pgliteStream } from "./internal/pgliteStream.ts"
import * as Notifications from "./Notifications.ts"

export type Kind = "embedded" | "server"

/** The database answered nothing useful within the ping timeout. */
export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", {
  reason: Schema.String
}) {}

/** The database could not be opened or reached at start. */
export class DatabaseStartError extends Schema.TaggedError<DatabaseStartError>()("DatabaseStartError", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * Whether a failure means that the database cannot be reached for now — a connection refused, reset, closed or timed
 * out (the pool could not open one), the embedded database closed — rather than a bug: a request that meets it is
 * answered "unavailable, retry later" (503), and the same request succeeds once the database is back. The driver's
 * `SqlError` with a `ConnectionError` reason, or the ping's `DatabaseUnavailable`, found on the error or along its
 * `cause` links (an error that wraps the driver's). Anything else the database answers (a syntax error, a constraint)
 * is not.
 */
export const isUnreachable = (failure: unknown): boolean => {
  let error = failure
  for (let depth = 0; depth < 8 && typeof error === "object" && error !== null; depth++) {
    if (SqlError.isSqlError(error)) return error.reason._tag === "ConnectionError"
    if (error instanceof DatabaseUnavailable) return true
    error = (error as { readonly cause?: unknown }).cause
  }
  return false
}

export class Database extends Context.Service<
  Database,
  {
    readonly kind: Kind
    /** Where the data is, safe to log: a directory, or the server's host, port and database (no credentials). */
    readonly location: string
    /** A round trip to the database, bounded by a short timeout. */
    readonly ping: Effect.Effect<void, DatabaseUnavailable>
  }
>()("@tawsil/storage/Database") {}

export type Services = Database | PgClient.PgClient | SqlClient.SqlClient | Notifications.Notifications

const PING_TIMEOUT = Duration.seconds(2)

const makePing = (client: PgClient.PgClient) =>
  client`SELECT 1`.pipe(
    Effect.asVoid,
    Effect.mapError((error) => new DatabaseUnavailable({ reason: error.message })),
    Effect.timeoutOrElse({
      duration: PING_TIMEOUT,
      orElse: () =>
        Effect.fail(new DatabaseUnavailable({ reason: `no answer within ${Duration.format(PING_TIMEOUT)}` }))
    })
  )

const withDatabase = (kind: Kind, location: string) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient
      return Context.make(Database, Database.of({ kind, location, ping: makePing(client) }))
    })
  )

/**
 * The embedded database's buffer pool. PostgreSQL's default, 128MB, is memory the process holds from the start
 * (PGlite touches all of it): the app restarted on an existing directory measured about 390 MB resident with it and
 * about 300 MB with 32MB (docs/memory.md). Pages beyond it are read back from the data directory's files, which the
 * OS caches.
 */
const EMBEDDED_SHARED_BUFFERS = "32MB"

/** The embedded database in `dataDir`, created on first use. One process at a time may hold a directory. */
export const layerEmbedded = (options: { readonly dataDir: string }): Layer.Layer<Services, DatabaseStartError> => {
  const dataDir = Path.resolve(options.dataDir)
  const client = Layer.unwrap(
    Effect.gen(function* () {
      yield* DataDirLock.acquire(dataDir).pipe(
        Effect.mapError((error) => new DatabaseStartError({ reason: error.message }))
      )
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            // Imported here, not at the top: a process on a real server never loads PGlite (issue 22: idle memory).
            const { PGlite } = await import("@electric-sql/pglite")
            const db: PGlite = new PGlite({
              dataDir,
              startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`]
            })
            await db.waitReady
            return db
          },
          catch: (cause) =>
            new DatabaseStartError({
              reason: `cannot open the embedded database in ${dataDir}: ${cause instanceof Error ? cause.message : String(cause)}`
            })
        }),
        (db) => Effect.promise(() => db.close())
      )
      // PGlite has a single backend session: one connection, kept open for the life of the app.
      return PgClient.layerFrom(
        PgClient.make({
          stream: pgliteStream(db),
          username: "postgres",
          database: "postgres",
          maxConnections: 1,
          idleTimeout: Duration.infinity,
          applicationName: "tawsil"
        }).pipe(Effect.mapError((error) => new DatabaseStartError({ reason: error.message })))
      )
    })
  )
  return Layer.mergeAll(withDatabase("embedded", dataDir), Notifications.layerMemory).pipe(Layer.provideMerge(client))
}

/** Host, port and database of a connection URL, without user or password. */
export const describeUrl = (url: Redacted.Redacted<string>): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`
  } catch {
    return "an unparseable DATABASE_URL"
  }
}

/**
 * A real PostgreSQL server. At start it waits up to `connectTimeout` for the server to answer (it may still be
 * starting next to us), then fails with a message naming where it looked.
 */
export const layerServer = (options: {
  readonly url: Redacted.Redacted<string>
  readonly maxConnections?: number | undefined
  readonly connectTimeout?: Duration.Input | undefined
}): Layer.Layer<Services, DatabaseStartError> => {
  const location = describeUrl(options.url)
  const connectTimeout = Duration.fromInputUnsafe(options.connectTimeout ?? Duration.seconds(30))
  const client = PgClient.layerFrom(
    PgClient.make({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      connectTimeout: Duration.seconds(5),
      applicationName: "tawsil"
    }).pipe(
      Effect.mapError(
        (error) => new DatabaseStartError({ reason: `cannot reach PostgreSQL at ${location}: ${error.message}` })
      )
    )
  )
  const reachable = Layer.effectDiscard(
    Effect.gen(function* () {
      const client = yield* PgClient.PgClient
      yield* client`SELECT 1`.pipe(
        Effect.tapError((error) => Effect.logWarning(`waiting for PostgreSQL at ${location}: ${error.message}`)),
        Effect.retry(Schedule.spaced("1 second").pipe(Schedule.upTo({ duration: connectTimeout }))),
        Effect.mapError(
          (error) => new DatabaseStartError({ reason: `cannot reach PostgreSQL at ${location}: ${error.message}` })
        )
      )
    })
  )
  return Layer.mergeAll(withDatabase("server", location), reachable, Notifications.layerPostgres).pipe(
    Layer.provideMerge(client)
  )
}
