/**
 * How the admin CLI runs an operation, next to a running server or not:
 *
 * - with `DATABASE_URL`, on the database directly (a small pool of its own; servers are never blocked);
 * - with the embedded database, through the running server's admin listener when there is one (its address and
 *   secret are in the data directory), since only one process may open the directory; otherwise by opening the
 *   directory itself, under the storage package's data-directory lock. While a server holds the directory but has
 *   not published its listener yet (it is starting), the CLI waits for it.
 *
 * Either way the database is migrated first, so the CLI also works before the first start of the app.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Database, DataDirLock, Migrations } from "@tawsil/storage"
import { Clock, Duration, Effect, Layer, Option, Schema } from "effect"
import * as Announcements from "../Announcements.ts"
import type { AppConfig } from "../AppConfig.ts"
import { ADDRESS_FILE, Address, PATH, SECRET_FILE } from "./AdminListener.ts"
import { type AdminRequest, execute, layerSql } from "./AdminRequest.ts"
import * as SecretKeys from "./SecretKeys.ts"

/** The operation was refused, or could not be run; `message` says why, without any secret. */
export class AdminFailed extends Schema.TaggedError<AdminFailed>()("AdminFailed", { message: Schema.String }) {}

/** How long the CLI waits for a server that holds the data directory to publish its admin listener. */
export const WAIT_FOR_LISTENER = Duration.seconds(30)

const failed = (message: string) => new AdminFailed({ message })

/** Runs `request` on a database this process opens itself, with the keys the configuration names. */
const direct = (
  request: AdminRequest,
  database: Layer.Layer<Database.Services, Database.DatabaseStartError>,
  secretKeys: AppConfig["secretKeys"]
) =>
  execute(request).pipe(
    Effect.provide(
      Layer.mergeAll(layerSql.pipe(Layer.provide(Announcements.accessEvents)), SecretKeys.layer(secretKeys)).pipe(
        Layer.provideMerge(Migrations.layer),
        Layer.provide(database)
      )
    ),
    Effect.catchTags({
      AdminError: (error) => Effect.fail(failed(error.message)),
      KeyFileError: (error) => Effect.fail(failed(error.message)),
      DatabaseStartError: (error) => Effect.fail(failed(`cannot open the database: ${error.message}`)),
      MigrationError: (error) => Effect.fail(failed(`cannot migrate the database: ${error.message}`)),
      SqlError: (error) => Effect.fail(failed(`database error: ${error.message}`))
    })
  )

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The listener a live server published in `dataDir`, with its secret. */
const publishedListener = (dataDir: string) =>
  Effect.sync(() => {
    try {
      const address = Schema.decodeUnknownSync(Schema.fromJsonString(Address))(
        Fs.readFileSync(Path.join(dataDir, ADDRESS_FILE), "utf8")
      )
      const secret = Fs.readFileSync(Path.join(dataDir, SECRET_FILE), "utf8").trim()
      return isAlive(address.pid) ? Option.some({ url: address.url, secret }) : Option.none()
    } catch {
      return Option.none()
    }
  })

type ListenerOutcome =
  | { readonly _tag: "Answered"; readonly result: Record<string, unknown> }
  | { readonly _tag: "Refused"; readonly message: string }
  /** Not listening (any more), or it restarted with a new secret: look again. */
  | { readonly _tag: "Gone" }

const viaListener = (listener: { readonly url: string; readonly secret: string }, request: AdminRequest) =>
  Effect.tryPromise({
    try: async (signal): Promise<ListenerOutcome> => {
      const response = await fetch(`${listener.url}${PATH}`, {
        method: "POST",
        headers: { authorization: `Bearer ${listener.secret}`, "content-type": "application/json" },
        body: JSON.stringify(request),
        // A key rotation re-seals every stored secret in the server: it may take longer than an operator's change.
        signal: AbortSignal.any([signal, AbortSignal.timeout(request.op.startsWith("secrets.") ? 600_000 : 30_000)])
      })
      const body = (await response.json()) as { readonly error?: { readonly message?: string } }
      if (response.status === 200) return { _tag: "Answered", result: body as Record<string, unknown> }
      if (response.status === 401) return { _tag: "Gone" }
      return { _tag: "Refused", message: body.error?.message ?? `the admin listener answered ${response.status}` }
    },
    catch: (error) => error
  }).pipe(
    Effect.catch((error) => {
      const code = (error as { readonly cause?: { readonly code?: string } }).cause?.code
      return code === "ECONNREFUSED" || code === "ECONNRESET"
        ? Effect.succeed<ListenerOutcome>({ _tag: "Gone" })
        : Effect.fail(failed(`the server's admin listener did not answer: ${String(error)}`))
    })
  )

/** Whether no process holds the data directory right now. */
const isFree = (dataDir: string) =>
  Effect.scoped(DataDirLock.acquire(dataDir)).pipe(
    Effect.as(true),
    Effect.catchTag("DataDirInUse", () => Effect.succeed(false))
  )

const embedded = (
  request: AdminRequest,
  dataDir: string,
  secretKeys: AppConfig["secretKeys"],
  wait: Duration.Duration
) =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(wait)
    for (;;) {
      const listener = yield* publishedListener(dataDir)
      if (Option.isSome(listener)) {
        const outcome = yield* viaListener(listener.value, request)
        if (outcome._tag === "Answered") return outcome.result
        if (outcome._tag === "Refused") return yield* failed(outcome.message)
      } else if (yield* isFree(dataDir)) {
        // A server may take the directory in between: then opening it fails, and the next round finds it.
        const outcome = yield* Effect.result(direct(request, Database.layerEmbedded({ dataDir }), secretKeys))
        if (outcome._tag === "Success") return outcome.success
        if (!outcome.failure.message.startsWith("cannot open the database") || (yield* isFree(dataDir))) {
          return yield* outcome.failure
        }
      }
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* failed(
          `the data directory ${dataDir} is held by a process whose admin listener did not answer within ` +
            `${Duration.format(wait)}; is the server starting or stopping?`
        )
      }
      yield* Effect.sleep("200 millis")
    }
  })

/** Runs `request` where the configuration says the database is. */
export const run = (
  config: Pick<AppConfig, "database" | "secretKeys">,
  request: AdminRequest,
  options: { readonly wait?: Duration.Input | undefined } = {}
): Effect.Effect<Record<string, unknown>, AdminFailed> => {
  const database = config.database
  return database.kind === "server"
    ? direct(
        request,
        Database.layerServer({ url: database.url, maxConnections: 2, connectTimeout: "5 seconds" }),
        config.secretKeys
      )
    : embedded(
        request,
        Path.resolve(database.dataDir),
        config.secretKeys,
        Duration.fromInputUnsafe(options.wait ?? WAIT_FOR_LISTENER)
      )
}
