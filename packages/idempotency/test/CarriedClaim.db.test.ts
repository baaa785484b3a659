/**
 * A claim carried by the write's first statement (`transact` with `claimCarried`, `IdempotencyStoreSql.carryPending`,
 * decision 0027) keeps every rule of a claim taken first: the answer commits with the write, a retry replays it
 * without the write going past its claim, another request under the key is refused, a refusal before the claim is
 * recorded and replayed, a concurrent holder makes the claim wait and then answer `InFlight`, and a rollback frees
 * the key. On each database (embedded always, the real server with DATABASE_URL; contention on the server only).
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Redacted, Ref, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Idempotency from "../src/Idempotency.ts"
import * as IdempotencyStoreSql from "../src/IdempotencyStoreSql.ts"
import { backends, sqlStore } from "./Backends.ts"

const testSecret = Redacted.make("carried-claim-secret")

const request = (key: string, body: unknown = { qty: 1 }): Idempotency.Request => ({
  scope: Idempotency.scopeWith(testSecret, ["carried-test", "store-9"]),
  key: Idempotency.IdempotencyKey.make(key),
  fingerprint: Idempotency.fingerprintWith(testSecret, { method: "POST", path: "/v1/orders", body })
})

const created = new Idempotency.StoredResponse({ status: 200, headers: {}, body: '{"data":{"id":7}}' })

class InvalidBody extends Schema.TaggedError<InvalidBody>()("InvalidBody", {}) {}
const refusal = new Idempotency.StoredResponse({ status: 400, headers: {}, body: '{"error":"bad_request"}' })
const answers = {
  stored: () => created,
  refused: (error: unknown) => (error instanceof InvalidBody ? refusal : undefined)
}

const carried = { claimCarried: true }

/**
 * A write as the order create is: its first statement carries the claim in front of a read, then it writes one row;
 * `passed` counts the writes that went past their claim.
 */
const carryingWrite = (key: string, passed: Ref.Ref<number>, pause?: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const claim = yield* IdempotencyStoreSql.carryPending(sql)
    assert.isDefined(claim, "transact left the claim to the write")
    const [row] = yield* sql<{ readonly now: Date; readonly claim: unknown }>`
      WITH ${claim!.ctes} SELECT now() AS now, ${claim!.found} AS claim`.pipe(Effect.orDie)
    yield* claim!.settle(row!.claim)
    assert.isUndefined(yield* IdempotencyStoreSql.carryPending(sql), "a claim is carried once")
    yield* Ref.update(passed, (n) => n + 1)
    if (pause !== undefined) yield* pause
    yield* sql`INSERT INTO carried_orders (key) VALUES (${key})`.pipe(Effect.orDie)
    return 7
  })

const ordersOf = (key: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM carried_orders WHERE key = ${key}`
    return row!.n
  })

const probeTable = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE carried_orders (key text NOT NULL)`
  })
)

for (const backend of backends) {
  layer(probeTable.pipe(Layer.provideMerge(sqlStore(backend)), Layer.orDie), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(`a claim carried by the write (${backend.name})`, (it) => {
    it.effect("commits the write with its answer; a retry replays it, the write stopping at its claim", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const passed = yield* Ref.make(0)
        const write = carryingWrite("fresh", passed)
        const first = yield* idempotency.transact(request("fresh"), write, answers, carried)
        assert.deepStrictEqual(first, new Idempotency.Fresh({ value: 7 }))
        const retry = yield* idempotency.transact(request("fresh"), write, answers, carried)
        assert.deepStrictEqual(retry, new Idempotency.Replay({ response: created }))
        assert.strictEqual(retry._tag === "Replay" && retry.response.body, created.body, "the same bytes")
        assert.strictEqual(yield* Ref.get(passed), 1, "the replay's write stopped at its claim")
        assert.strictEqual(yield* ordersOf("fresh"), 1)
        const reused = yield* Effect.flip(
          idempotency.transact(request("fresh", { qty: 2 }), carryingWrite("fresh", passed), answers, carried)
        )
        assert.instanceOf(reused, Idempotency.KeyReused)
        assert.strictEqual(yield* ordersOf("fresh"), 1)
      })
    )

    it.effect("records a refusal made before the claim was taken, and replays it", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const passed = yield* Ref.make(0)
        const refused = Effect.andThen(Effect.fail(new InvalidBody()), carryingWrite("refused", passed))
        const first = yield* idempotency.transact(request("refused"), refused, answers, carried)
        assert.deepStrictEqual(first, new Idempotency.Refused({ error: new InvalidBody() }))
        const retry = yield* idempotency.transact(
          request("refused"),
          carryingWrite("refused", passed),
          answers,
          carried
        )
        assert.deepStrictEqual(retry, new Idempotency.Replay({ response: refusal }))
        assert.strictEqual(yield* Ref.get(passed), 0)
        assert.strictEqual(yield* ordersOf("refused"), 0)
      })
    )

    it.effect("a write that cannot carry its claim takes it first; the claim is then carried by no statement", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const write = Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* Idempotency.claimPending
          assert.isUndefined(yield* IdempotencyStoreSql.carryPending(sql))
          yield* sql`INSERT INTO carried_orders (key) VALUES ('first')`.pipe(Effect.orDie)
          return 7
        })
        assert.deepStrictEqual(
          yield* idempotency.transact(request("first"), write, answers, carried),
          new Idempotency.Fresh({ value: 7 })
        )
        assert.deepStrictEqual(
          yield* idempotency.transact(request("first"), write, answers, carried),
          new Idempotency.Replay({ response: created })
        )
        assert.strictEqual(yield* ordersOf("first"), 1)
      })
    )

    it.effect("rolls a failed write back with its carried claim: the key is free at once", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const passed = yield* Ref.make(0)
        const dying = carryingWrite("died", passed, Effect.die("database went away"))
        assert.strictEqual(
          (yield* Effect.exit(idempotency.transact(request("died"), dying, answers, carried)))._tag,
          "Failure"
        )
        assert.strictEqual(yield* ordersOf("died"), 0)
        const retry = yield* idempotency.transact(request("died"), carryingWrite("died", passed), answers, carried)
        assert.deepStrictEqual(retry, new Idempotency.Fresh({ value: 7 }))
        assert.strictEqual(yield* ordersOf("died"), 1)
      })
    )

    // Lock contention needs several sessions: PGlite has one.
    if (backend.name !== "server") return

    it.effect("a concurrent request under the key waits for the holder, answers InFlight, then replays", () =>
      Effect.gen(function* () {
        const idempotency = yield* Idempotency.Idempotency
        const passed = yield* Ref.make(0)
        const holding = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()
        const pause = Effect.andThen(Deferred.succeed(holding, undefined), Deferred.await(proceed))
        const holder = yield* Effect.forkChild(
          idempotency.transact(request("held"), carryingWrite("held", passed, pause), answers, carried)
        )
        yield* Deferred.await(holding)
        const during = yield* Effect.flip(
          idempotency.transact(request("held"), carryingWrite("held", passed), answers, carried)
        )
        assert.instanceOf(during, Idempotency.InFlight, "after the short wait")
        const waiter = yield* Effect.forkChild(
          idempotency.transact(request("held"), carryingWrite("held", passed), answers, carried)
        )
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(proceed, undefined)
        assert.deepStrictEqual(yield* Fiber.join(holder), new Idempotency.Fresh({ value: 7 }))
        assert.deepStrictEqual(yield* Fiber.join(waiter), new Idempotency.Replay({ response: created }))
        assert.strictEqual(yield* Ref.get(passed), 1)
        assert.strictEqual(yield* ordersOf("held"), 1)
      })
    )
  })
}
