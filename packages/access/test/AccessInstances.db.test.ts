/**
 * Several app instances on one database (issue 4's two-process test, in one process: separate connection pools, so
 * separate sessions): the per-minute limit and the 3-key limit hold across them. The embedded database has one
 * session, so there the same calls run through one instance.
 */
import { assert, describe, it } from "@effect/vitest"
import { Database, Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Clock, Context, Effect, Layer, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import * as Access from "../src/Access.ts"
import * as Admin from "../src/Admin.ts"
import * as Keys from "../src/Keys.ts"
import { backends, services, sqlStores } from "./Backends.ts"

const instance = <E>(database: Layer.Layer<Database.Services, E>) =>
  services(sqlStores).pipe(Layer.provideMerge(database), Layer.orDie)

/** One instance on the embedded database; two, each with its own pool, on the real server. */
const instances = (backend: TestDatabase.Backend) =>
  Effect.gen(function* () {
    if (backend.name === "embedded") {
      return [yield* Layer.build(instance(Migrations.layer.pipe(Layer.provideMerge(backend.layer))))]
    }
    const url = yield* TestDatabase.freshServerDatabase(TestDatabase.serverUrl!)
    const pool = () => Database.layerServer({ url, maxConnections: 8 })
    const first = yield* Layer.build(instance(Migrations.layer.pipe(Layer.provideMerge(pool()))))
    const second = yield* Layer.build(instance(pool()))
    return [first, second]
  })

const MINUTE = 60_000

/** Starts the calls with at least 20 s left in the minute, so they all fall in one window. */
const roomInMinute = Effect.flatMap(Clock.currentTimeMillis, (now) =>
  now % MINUTE > MINUTE - 20_000 ? Effect.sleep(MINUTE - (now % MINUTE) + 100) : Effect.void
)

for (const backend of backends) {
  describe(`Access on several instances (${backend.name})`, () => {
    it.live(
      "lets exactly 600 of 1000 calls in one minute through, whichever instance serves them",
      () =>
        Effect.gen(function* () {
          const contexts = yield* instances(backend)
          const created = yield* Context.get(contexts[0]!, Admin.Admin).createStore({ name: "Busy shop" })
          const authorization = `Bearer ${Redacted.value(created.platform_key.bearer_token)}`
          const callers = yield* Effect.forEach(contexts, (context) => {
            const access = Context.get(context, Access.Access)
            return Effect.map(access.authenticate(authorization, "192.0.2.1"), (principal) => ({ access, principal }))
          })
          if (contexts.length > 1) {
            const sessions = yield* Effect.forEach(
              contexts,
              (context) =>
                Context.get(context, SqlClient.SqlClient)<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
            )
            assert.notStrictEqual(sessions[0]![0]!.pid, sessions[1]![0]!.pid)
          }
          yield* roomInMinute
          const results = yield* Effect.all(
            Array.from({ length: 1000 }, (_, i) => {
              const caller = callers[i % callers.length]!
              return Effect.result(caller.access.meter(caller.principal))
            }),
            { concurrency: 64 }
          )
          const passed = results.filter(Result.isSuccess)
          assert.strictEqual(passed.length, 600)
          assert.deepStrictEqual(
            passed.map((result) => result.success.remaining).sort((a, b) => a - b),
            Array.from({ length: 600 }, (_, i) => i)
          )
          for (const result of results.filter(Result.isFailure))
            assert.strictEqual(result.failure.reason._tag, "RateLimited")
          const usage = yield* callers[0]!.access.usage(created.store.id)
          assert.deepStrictEqual(usage.usage, { request: { total: 1000, billable: 0 } })
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      "lets exactly the room left win among 10 concurrent creates on every instance",
      () =>
        Effect.gen(function* () {
          const contexts = yield* instances(backend)
          const created = yield* Context.get(contexts[0]!, Admin.Admin).createStore({ name: "Key race" })
          const authorization = `Bearer ${Redacted.value(created.platform_key.bearer_token)}`
          const callers = yield* Effect.forEach(contexts, (context) => {
            const access = Context.get(context, Access.Access)
            return Effect.map(access.authenticate(authorization, "192.0.2.1"), (principal) => ({ access, principal }))
          })
          const results = yield* Effect.all(
            Array.from({ length: 10 }, (_, i) => {
              const caller = callers[i % callers.length]!
              return Effect.result(caller.access.createKey(caller.principal, { name: `racer ${i}` }))
            }),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(results.filter(Result.isSuccess).length, 2)
          for (const result of results.filter(Result.isFailure)) {
            assert.strictEqual(result.failure.message, Keys.TOO_MANY_KEYS)
          }
          assert.strictEqual((yield* callers[0]!.access.listKeys(created.store.id)).items.length, 3)
        }).pipe(Effect.scoped),
      120_000
    )
  })
}
