/**
 * The whole app in the test's own process, for the courier end-to-end checks: `AppConfig.load` read from an
 * environment as `npm start` reads the process's (nothing inherited, ports chosen by the OS), and `App.layer` built
 * from it — both servers on loopback sockets, the embedded database, trace logs — against the loopback fakes the test
 * runs beside it. What the app writes to stdout and stderr while it runs is kept for the test (the canary checks read
 * every line), not printed.
 *
 * What a process adds is tested where a process is the thing tested (`AppProcess.ts`): the egress guard, which would
 * fence this whole process, is not installed here.
 *
 * Courier accounts are paced on windows a thousandth as long as declared (`CourierPacer.layerMemoryScaled`), so a
 * file's few hundred courier calls do not wait out minutes' limits in real time; `pace: 1` keeps the declared ones.
 */
import { CourierPacer } from "@tawsil/shipping"
import { Database } from "@tawsil/storage"
import { ConfigProvider, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as App from "../../src/App.ts"
import * as AppConfig from "../../src/AppConfig.ts"
import { environment } from "../AppProcess.ts"

export interface AppInProcess {
  readonly shippingUrl: string
  readonly storeUrl: string
  /** The Prometheus listener's `/metrics` URL, unless `METRICS_PORT=off`. */
  readonly metricsUrl: string | undefined
  /** Everything the app wrote to stdout so far: its JSON log lines. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Stops the app as a SIGTERM does (the servers drain and close, then the database; the last lines are written). */
  readonly stop: Effect.Effect<void>
}

export interface Options {
  /** Each declared courier limit's window times this (1: as declared). 0.001 unless told. */
  readonly pace?: number
  /** How long the servers may take to listen, in milliseconds. */
  readonly within?: number
}

/** The bound URLs of the `listening` lines among `stdout`'s JSON lines. */
const listeningUrls = (stdout: string) => {
  const urls: Record<string, string> = {}
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue
    const entry = JSON.parse(line) as { message: string; annotations?: { api?: string; url?: string } }
    if (entry.message === "listening" && entry.annotations?.api && entry.annotations.url) {
      urls[entry.annotations.api] = entry.annotations.url
    }
  }
  return urls
}

/**
 * Keeps what this process writes to `stream` from now until the returned `restore` (the app's logger writes
 * straight to the stream).
 */
const capture = (stream: NodeJS.WriteStream) => {
  let text = ""
  const write = stream.write
  stream.write = ((chunk: string | Uint8Array, ...rest: Array<unknown>) => {
    text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
    const callback = rest.find((argument) => typeof argument === "function") as (() => void) | undefined
    callback?.()
    return true
  }) as typeof stream.write
  return { text: () => text, restore: () => (stream.write = write) }
}

/** Starts the app and waits until both servers listen; it stops when the scope closes if the test has not. */
export const startApp = (
  env: Record<string, string>,
  options: Options = {}
): Effect.Effect<AppInProcess, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const config = yield* AppConfig.load.pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: environment(env) })),
      Effect.mapError((error) => new Error(`invalid configuration: ${error.message}`))
    )
    const stdout = capture(process.stdout)
    const stderr = capture(process.stderr)
    const scope = yield* Scope.make()
    let stopped = false
    const stop = Effect.suspend(() => {
      if (stopped) return Effect.void
      stopped = true
      return Scope.close(scope, Exit.void).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            stdout.restore()
            stderr.restore()
          })
        )
      )
    })
    yield* Effect.addFinalizer(() => stop)
    const pacer = CourierPacer.layerMemoryScaled(options.pace ?? 0.001)
    yield* Layer.buildWithScope(App.layer(config, { pacer }), scope).pipe(
      Effect.mapError((error) => new Error(`the app did not start: ${String(error)}\n${stderr.text()}`))
    )
    // The `listening` lines are in the logger's next batch (written 25 ms after its first line).
    const urls = yield* Effect.sync(() => listeningUrls(stdout.text())).pipe(
      Effect.repeat({
        until: (urls) => urls.shipping !== undefined && urls.store !== undefined,
        schedule: Schedule.spaced("5 millis")
      }),
      Effect.timeoutOrElse({
        duration: options.within ?? 30_000,
        orElse: () => Effect.fail(new Error(`the app did not listen in time:\n${stdout.text()}\n${stderr.text()}`))
      })
    )
    return {
      shippingUrl: urls.shipping!,
      storeUrl: urls.store!,
      metricsUrl: urls.metrics,
      stdout: stdout.text,
      stderr: stderr.text,
      stop
    }
  })

/** Every row of every table of the embedded database in `dataDir`, one JSON text a line (the canary checks). */
export const everyRow = (dataDir: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
    const rows: Array<string> = []
    for (const { table_name } of tables) {
      const table = yield* sql<{ row: string }>`SELECT row_to_json(t)::text AS row FROM ${sql(table_name)} t`
      rows.push(...table.map(({ row }) => row))
    }
    return rows.join("\n")
  }).pipe(Effect.provide(Database.layerEmbedded({ dataDir })))
