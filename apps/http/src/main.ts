/**
 * `npm start`: reads the configuration, installs the egress guard, then runs both servers until SIGTERM or SIGINT.
 * A bad variable or a database that cannot be opened stops the start with one line on stderr and a non-zero exit.
 */
// First, so that V8's heap is set before any other module allocates (V8Heap.ts).
import "./V8Heap.ts"
// The module, not the package's index: the index imports every Node module of the platform (Redis, cluster, worker
// and child-process modules among them), which the app would then hold in memory for nothing (docs/memory.md).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer } from "effect"
import * as App from "./App.ts"
import * as AppConfig from "./AppConfig.ts"
import * as EgressGuard from "./EgressGuard.ts"

/** sysexits' EX_CONFIG: supervisors can tell a configuration mistake from a crash. */
const EXIT_CONFIG = 78

const stop = (code: number, line: string) =>
  Effect.sync(() => {
    process.stderr.write(`tawsil: ${line}\n`)
    return code
  })

// Which signal stopped the process, for its `stopping` line (NodeRuntime handles the signals themselves).
let stopSignal: string | undefined
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    stopSignal ??= signal
  })
}

const main = Effect.gen(function* () {
  const config = yield* AppConfig.load
  // Before any courier plugin is imported (discovery runs as the app starts), so an import-time escape is refused.
  yield* Effect.sync(() => EgressGuard.install(config))
  return yield* Layer.launch(App.layer(config, { stopSignal: () => stopSignal }))
}).pipe(
  Effect.catchTags({
    InvalidConfig: (error) => stop(EXIT_CONFIG, `invalid configuration: ${error.message}`),
    ConfigError: (error) => stop(EXIT_CONFIG, `invalid configuration: ${error.message}`),
    DatabaseStartError: (error) => stop(1, `cannot start: ${error.message}`),
    // A key file others may read, or that is not one, is the operator's to fix: a configuration mistake.
    KeyFileError: (error) => stop(error.reason === "Unusable" ? 1 : EXIT_CONFIG, `cannot start: ${error.message}`),
    InvalidAdapter: (error) => stop(1, `cannot start: ${error.message}`),
    MigrationError: (error) => stop(1, `cannot start: ${error.message}`),
    MetricsListenError: (error) => stop(1, `cannot start: ${error.message}`),
    RedisError: (error) => stop(1, `cannot start: Redis (REDIS_URL) is not reachable: ${error.message}`),
    SqlError: (error) => stop(1, `cannot start: ${error.message}`)
  })
)

NodeRuntime.runMain(main, {
  // A stop on a signal is the normal way out: exit 0 once the servers have drained.
  teardown: (exit, onExit) =>
    onExit(Exit.isSuccess(exit) ? Number(exit.value) : Cause.hasInterruptsOnly(exit.cause) ? 0 : 1)
})
