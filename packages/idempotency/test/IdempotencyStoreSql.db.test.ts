import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Redacted, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Idempotency from "../src/Idempotency.ts"
import { IdempotencyStore } from "../src/IdempotencyStore.ts"

/** The installation secret these tests hash with. */
const testSecret = Redacted.make("test-installation-secret")

import { backends, sqlStore } from "./Backends.ts"

const request = (key: string): Idempotency.Request => ({
  scope: Idempotency.scopeWith(testSecret, ["sql-test", "store-7"]),
  key: Idempotency.IdempotencyKey.make(key),
  fingerprint: Idempotency.fingerprintWith(testSecret, { method: "POST", path: "/v1/orders", body: { qty: 1 } })
})

const created = new Idempotency.StoredResponse({
  status: 201,
  headers: { "content-type": "application/json" },
  body: '{"id":7}'
})

const claimed = (outcome: Idempotency.Claimed | Idempotency.Replay) => {
  assert.strictEqual(outcome._tag, "Claimed")
  return outcome as Idempotency.Claimed
}

class OutOfStock extends Schema.TaggedError<OutOfStock>()("OutOfStock", {}) {}

/** The business write the key protects: one row per execution. */
const insertOrder = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO probe_orders (key) VALUES (${key})`
  })

const ordersOf = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM probe_orders WHERE key = ${key}`
    return row!.n
  })

const probeTable = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE probe_orders (key text NOT NULL)`
  })
)

for (const backend of backends) {
  layer(probeTable.pipe(Layer.provideMerge(sqlStore(backend)), Layer.orDie), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(`IdempotencyStoreSql (${backend.name})`, (it) => {
    it.effect("leaves nothing behind when the claiming transaction rolls back: a retry runs at once", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const idempotency = yield* Idempotency.Idempotency
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.gen(function* () {
              claimed(yield* idempotency.claim(request("rolled-back")))
              return yield* new OutOfStock()
            })
          )
        )
        assert.strictEqual(exit._tag, "Failure")
        claimed(yield* idempotency.claim(request("rolled-back")))
      })
    )

    it.effect("commits the claim, the write and its answer together; a retry replays without writing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const idempotency = yield* Idempotency.Idempotency
        const once = sql.withTransaction(
          idempotency.run(request("together"), Effect.as(insertOrder("together"), created))
        )
        assert.deepStrictEqual(yield* once, { response: created, replayed: false })
        assert.deepStrictEqual(yield* once, { response: created, replayed: true })
        assert.strictEqual(yield* ordersOf("together"), 1)
      })
    )

    it.effect("records a 4xx answer while a savepoint undoes the write's partial effects", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const idempotency = yield* Idempotency.Idempotency
        const refused = new Idempotency.StoredResponse({ status: 422, headers: {}, body: '{"code":"out_of_stock"}' })
        const write = sql
          .withTransaction(Effect.andThen(insertOrder("refused"), Effect.fail(new OutOfStock())))
          .pipe(Effect.catchTag("OutOfStock", () => Effect.succeed(refused)))
        const first = yield* sql.withTransaction(idempotency.run(request("refused"), write))
        const retry = yield* sql.withTransaction(idempotency.run(request("refused"), write))
        assert.deepStrictEqual([first.replayed, retry.replayed], [false, true])
        assert.deepStrictEqual(retry.response, refused)
        assert.strictEqual(yield* ordersOf("refused"), 0)
      })
    )

    it.effect("rolls back a failed write with its claim: no effect, and the key is free", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const idempotency = yield* Idempotency.Idempotency
        const failing = Effect.andThen(insertOrder("failed"), Effect.die("database went away"))
        const exit = yield* Effect.exit(sql.withTransaction(idempotency.run(request("failed"), failing)))
        assert.strictEqual(exit._tag, "Failure")
        assert.strictEqual(yield* ordersOf("failed"), 0)
        claimed(yield* idempotency.claim(request("failed")))
      })
    )

    it.effect("transact commits the write with its answer in one transaction; a retry replays without writing", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const write = Effect.as(insertOrder("transact"), 7)
        const answers = { stored: () => created, refused: () => undefined }
        const first = yield* idempotency.transact(request("transact"), write, answers)
        assert.deepStrictEqual(first, new Idempotency.Fresh({ value: 7 }))
        const retry = yield* idempotency.transact(request("transact"), write, answers)
        assert.deepStrictEqual(retry, new Idempotency.Replay({ response: created }))
        assert.strictEqual(yield* ordersOf("transact"), 1)
      })
    )

    it.effect("transact rolls a refused write's row back, records the refusal alone and replays it", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const refused = new Idempotency.StoredResponse({ status: 422, headers: {}, body: '{"code":"out_of_stock"}' })
        const answers = { stored: () => created, refused: () => refused }
        const write = Effect.andThen(insertOrder("transact-refused"), Effect.fail(new OutOfStock()))
        const first = yield* idempotency.transact(request("transact-refused"), write, answers)
        assert.deepStrictEqual(first, new Idempotency.Refused({ error: new OutOfStock() }))
        assert.strictEqual(yield* ordersOf("transact-refused"), 0, "the write's row was rolled back")
        const retry = yield* idempotency.transact(request("transact-refused"), write, answers)
        assert.deepStrictEqual(retry, new Idempotency.Replay({ response: refused }))
        assert.strictEqual(yield* ordersOf("transact-refused"), 0)
      })
    )

    it.effect("transact rolls back a write failing with no answer, and frees its key", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const answers = { stored: () => created, refused: () => undefined }
        const failing = Effect.andThen(insertOrder("transact-failed"), Effect.fail(new OutOfStock()))
        const error = yield* Effect.flip(idempotency.transact(request("transact-failed"), failing, answers))
        assert.instanceOf(error, OutOfStock)
        const dying = Effect.andThen(insertOrder("transact-failed"), Effect.die("database went away"))
        assert.strictEqual(
          (yield* Effect.exit(idempotency.transact(request("transact-failed"), dying, answers)))._tag,
          "Failure"
        )
        assert.strictEqual(yield* ordersOf("transact-failed"), 0)
        claimed(yield* idempotency.claim(request("transact-failed")))
      })
    )

    // Lock contention needs several sessions: PGlite has one.
    if (backend.name !== "server") return

    it.effect("answers other claimers at once while a transaction holds the key, then replays its answer", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* IdempotencyStore
        const idempotency = yield* Idempotency.Idempotency
        const holding = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const holder = yield* Effect.forkChild(
          sql.withTransaction(
            idempotency.run(
              request("held"),
              Effect.gen(function* () {
                yield* Deferred.succeed(holding, undefined)
                yield* Deferred.await(proceed)
                return created
              })
            )
          )
        )
        yield* Deferred.await(holding)
        const during = yield* store.claim(request("held"), Idempotency.LEASE).pipe(Effect.timeout("1 second"))
        assert.deepStrictEqual(during, { _tag: "Pending", fingerprint: undefined })
        const waiter = yield* Effect.forkChild(idempotency.claim(request("held")))
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(proceed, undefined)
        assert.isFalse((yield* Fiber.join(holder)).replayed)
        assert.deepStrictEqual(yield* Fiber.join(waiter), new Idempotency.Replay({ response: created }))
      })
    )

    it.effect("lets exactly one of 50 concurrent claims acquire a key; all 50 then replay its answer", () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore
        const fifty = request("fifty")
        const claims = yield* Effect.all(
          Array.from({ length: 50 }, () => store.claim(fifty, Idempotency.LEASE)),
          { concurrency: "unbounded" }
        )
        const acquired = claims.filter((claim) => claim._tag === "Acquired")
        assert.strictEqual(acquired.length, 1)
        for (const claim of claims) {
          if (claim._tag === "Acquired") continue
          assert.strictEqual(claim._tag, "Pending")
          if (claim._tag === "Pending") assert.include([undefined, fifty.fingerprint], claim.fingerprint)
        }
        const winner = new Idempotency.Claimed({ ...fifty, token: acquired[0]!.token })
        assert.isTrue(yield* store.complete(winner, created, Idempotency.TTL))
        const replays = yield* Effect.all(
          Array.from({ length: 50 }, () => store.claim(fifty, Idempotency.LEASE)),
          { concurrency: "unbounded" }
        )
        for (const replay of replays) {
          assert.deepStrictEqual(replay, { _tag: "Completed", fingerprint: fifty.fingerprint, response: created })
        }
      })
    )

    it.effect(
      "runs the write of 50 concurrent transactions with one key once; the rest replay it or are told to retry",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const idempotency = yield* Idempotency.Idempotency
          const write = insertOrder("fifty-tx").pipe(Effect.andThen(Effect.sleep("200 millis")), Effect.as(created))
          const results = yield* Effect.all(
            Array.from({ length: 50 }, () =>
              Effect.result(sql.withTransaction(idempotency.run(request("fifty-tx"), write)))
            ),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(yield* ordersOf("fifty-tx"), 1)
          const answers = results.filter(Result.isSuccess).map((result) => result.success)
          assert.strictEqual(answers.filter((answer) => !answer.replayed).length, 1)
          for (const answer of answers) assert.deepStrictEqual(answer.response, created)
          for (const result of results.filter(Result.isFailure)) {
            assert.deepStrictEqual(
              result.failure,
              new Idempotency.InFlight({ key: "fifty-tx", retryAfterSeconds: Idempotency.RETRY_AFTER_SECONDS })
            )
          }
        })
    )

    it.effect("frees the key of a transaction whose connection died (a crashed instance) at once", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const idempotency = yield* Idempotency.Idempotency
        const backendPid = yield* Deferred.make<number>()
        const crashed = yield* Effect.forkChild(
          sql.withTransaction(
            Effect.gen(function* () {
              claimed(yield* idempotency.claim(request("crashed")))
              const [row] = yield* sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`
              yield* Deferred.succeed(backendPid, row!.pid)
              return yield* Effect.never
            })
          )
        )
        const pid = yield* Deferred.await(backendPid)
        yield* sql`SELECT pg_terminate_backend(${pid})`
        claimed(yield* idempotency.claim(request("crashed")))
        yield* Fiber.interrupt(crashed)
      })
    )
  })
}
