/**
 * The app's egress guard (`ProcessEgress` from the courier SDK), configured from AppConfig: installed by `main.ts`
 * before anything imports a courier plugin, it lets the process reach only the database server, Redis and the OTLP
 * collector it is configured with, and the couriers through the core transport. Each destination it refuses is
 * logged once, as `egress refused` with the host, the port and the count refused so far — never a path, query or
 * credential.
 */
import { ProcessEgress } from "@tawsil/egress"
import { Effect, Layer, Redacted } from "effect"
import type { AppConfig } from "./AppConfig.ts"

/** Where the app itself connects: the database server and Redis, when configured. */
export const allowed = (config: AppConfig): ReadonlyArray<ProcessEgress.Destination> =>
  [
    ...(config.database.kind === "server"
      ? [ProcessEgress.destinationOfUrl(Redacted.value(config.database.url), 5432)]
      : []),
    ...(config.redisUrl === undefined ? [] : [ProcessEgress.destinationOfUrl(Redacted.value(config.redisUrl), 6379)]),
    // The OTLP collector, when traces or metrics are exported.
    ...[config.otlp.traces, config.otlp.metrics].flatMap((target) =>
      target === undefined
        ? []
        : [ProcessEgress.destinationOfUrl(target.url, target.url.startsWith("https:") ? 443 : 80)]
    )
  ].filter((destination) => destination !== undefined)

/** Installs the guard for this process. The servers' listen address may be a name, looked up to listen. */
export const install = (config: AppConfig): void =>
  ProcessEgress.install({ allow: allowed(config), lookups: [config.host] })

/**
 * Lets the process reach one of its own listeners at `url` (the MCP endpoint calls the app's two APIs there), when
 * the guard is installed. Known only once the listener listens (a port of 0 picks a free one).
 */
export const allowOwnListener = (url: string): void => {
  const destination = ProcessEgress.destinationOfUrl(url, 80)
  if (destination !== undefined && ProcessEgress.isInstalled()) ProcessEgress.install({ allow: [destination] })
}

/** Reports refusals as log lines, with the app's logger, for as long as the app runs (and those before it). */
export const reporting = Layer.effectDiscard(
  Effect.gen(function* () {
    const context = yield* Effect.context()
    const log = (attempt: ProcessEgress.Attempt, refused: number) =>
      Effect.runForkWith(context)(
        Effect.logWarning("egress refused").pipe(
          Effect.annotateLogs({
            kind: attempt.kind,
            host: attempt.host,
            ...(attempt.port === undefined ? {} : { port: attempt.port }),
            refused
          })
        )
      )
    yield* Effect.acquireRelease(
      Effect.sync(() => ProcessEgress.setReport(log)),
      () => Effect.sync(() => ProcessEgress.setReport(undefined))
    )
  })
)
