/**
 * What one SQL round trip costs the app's process in CPU, through the same driver and storage layer as the app
 * (`@effect/sql-pg` via `Database.layerServer`, 10 connections, 10 concurrent fibers): a bare `SELECT`, and a
 * transaction shaped like the store API's writes (BEGIN, a statement, a savepoint around another, COMMIT). It sizes
 * the round-trip part of a create's CPU in `docs/benchmarks.md` ("Store API").
 *
 *   DATABASE_URL=postgres://… taskset -c 0 node --conditions=@tawsil/source apps/bench/src/store/queryCost.ts [count]
 */
import { Database } from "@tawsil/storage"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const count = Number(process.argv[2] ?? 20_000)

/** Runs `effect` `times` times, 10 at once, after a warm-up; CPU µs and wall rate per run. */
const cost = <E, R>(times: number, effect: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    const all = (n: number) =>
      Effect.forEach(Array.from({ length: n }), () => effect, { concurrency: 10, discard: true })
    yield* all(Math.ceil(times / 10))
    const cpu = process.cpuUsage()
    const started = performance.now()
    yield* all(times)
    const used = process.cpuUsage(cpu)
    const seconds = (performance.now() - started) / 1000
    return {
      perSecond: Math.round(times / seconds),
      cpuMicros: (used.user + used.system) / times,
      systemMicros: used.system / times
    }
  })

const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const select = sql`SELECT ${1}::int AS one`
  const bare = yield* cost(count, select)
  const transaction = yield* cost(
    Math.ceil(count / 5),
    sql.withTransaction(Effect.andThen(select, sql.withTransaction(select)))
  )
  console.log(
    [
      `SELECT: ${bare.perSecond}/s, ${bare.cpuMicros.toFixed(1)} µs CPU each (${bare.systemMicros.toFixed(1)} in the kernel)`,
      `BEGIN, SELECT, SAVEPOINT, SELECT, RELEASE, COMMIT: ${transaction.perSecond}/s, ${transaction.cpuMicros.toFixed(1)} µs CPU each (${(transaction.cpuMicros / 6).toFixed(1)} per statement)`
    ].join("\n")
  )
})

await Effect.runPromise(
  program.pipe(Effect.provide(Database.layerServer({ url: Redacted.make(url), maxConnections: 10 })))
)
