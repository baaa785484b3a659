/**
 * The pacer on each store: in this process always, in Redis where `REDIS_URL` is set (`.ci/run` sets it to the
 * machine's Redis), two pacers on one Redis sharing an account's queue, and a Redis that fails falling back to this
 * process's pace.
 */
import { randomUUID } from "node:crypto"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Fiber, Layer, Logger } from "effect"
import { Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as CourierPacer from "../src/CourierPacer.ts"
import { limit, settle, suite, takeAll } from "./CourierPacerSuite.ts"

const redisUrl = process.env.REDIS_URL

describe("CourierPacer", () => {
  suite("in this process", CourierPacer.layerMemory)

  it("drops the schedule of an account once it has been quiet for all its intervals", () => {
    const { store, accounts } = CourierPacer.makeStoreMemory()
    const limits = [{ id: "2/60000", budget: 1, burst: 1, intervalMillis: 60_000 }]
    for (let i = 0; i < 100; i++) Effect.runSync(store.reserve(`account-${i}`, limits, 0, 1))
    assert.strictEqual(accounts(), 100)
    Effect.runSync(store.reserve("later", limits, 120_000, 120_001))
    assert.strictEqual(accounts(), 1, "the quiet ones were swept, the new one kept")
  })

  it.effect("a scaled pacer keeps the declared schedule, each window that many times as long", () =>
    Effect.gen(function* () {
      // 5 a second at a tenth: 4 a 100 ms, one every 25 ms.
      const limits = [limit(5, "1 second")]
      const { times, fibers } = yield* takeAll("scaled", limits, 3)
      assert.deepStrictEqual(times, [0])
      yield* TestClock.adjust("25 millis")
      yield* settle
      assert.deepStrictEqual(times, [0, 25])
      yield* TestClock.adjust("25 millis")
      yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(times, [0, 25, 50])
      const pacer = yield* CourierPacer.CourierPacer
      const refused = yield* Effect.flip(pacer.take({ key: "scaled", limits, deadline: 51 }))
      assert.strictEqual(refused._tag, "CourierRateLimited", "the next slot, at 75 ms, is past the deadline")
    }).pipe(Effect.provide(CourierPacer.layerMemoryScaled(0.1)))
  )

  it.effect("paces by this process alone, and says so, when Redis fails", () =>
    Effect.gen(function* () {
      const down = () => Effect.fail(new Redis.RedisError({ cause: new Error("connection refused") }))
      const failing = Layer.succeed(
        Redis.Redis,
        Redis.Redis.of({
          send: down,
          eval: () => down,
          subscribe: () => Effect.die("unused"),
          reserve: Effect.die("unused")
        })
      )
      const lines: Array<string> = []
      const logger = Logger.make(({ message }) => lines.push(String(message)))
      const pacer = Context.get(
        yield* Layer.build(CourierPacer.layerRedis().pipe(Layer.provide(failing))),
        CourierPacer.CourierPacer
      )
      const limits = [limit(2, "1 minute")]
      yield* pacer.take({ key: "a", limits, deadline: 1 }).pipe(Effect.provide(Logger.layer([logger])))
      const refused = yield* Effect.flip(
        pacer.take({ key: "a", limits, deadline: 1 }).pipe(Effect.provide(Logger.layer([logger])))
      )
      assert.strictEqual(refused._tag, "CourierRateLimited", "still paced, in this process")
      assert.isTrue(lines.some((line) => line.includes("courier pacing store failed")))
    }).pipe(Effect.scoped)
  )

  if (redisUrl !== undefined) {
    const redis = NodeRedis.layer({ url: redisUrl })
    suite("in Redis", CourierPacer.layerRedis({ prefix: "tawsil:test:pace:" }).pipe(Layer.provide(redis)))

    it.effect("shares an account's queue between pacers on one Redis, as between instances of the host", () =>
      Effect.gen(function* () {
        const pacerOn = Effect.map(
          Layer.build(CourierPacer.layerRedis({ prefix: "tawsil:test:pace:" }).pipe(Layer.provide(redis))),
          (context) => Context.get(context, CourierPacer.CourierPacer)
        )
        const [first, second] = [yield* pacerOn, yield* pacerOn]
        const key = `shared:${randomUUID()}`
        const limits = [limit(5, "1 second")]
        const times: Array<number> = []
        const fibers = []
        for (const pacer of [first, second, first, second]) {
          fibers.push(
            yield* Effect.forkChild(
              Effect.andThen(
                pacer.take({ key, limits, deadline: 60_000 }),
                Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => times.push(now)))
              )
            )
          )
          yield* settle
        }
        yield* TestClock.adjust("1 second")
        yield* Effect.forEach(fibers, Fiber.join)
        assert.deepStrictEqual(times, [0, 250, 500, 750], "one queue: 4 a second in all, not 4 each")
      }).pipe(Effect.scoped)
    )
  }
})
