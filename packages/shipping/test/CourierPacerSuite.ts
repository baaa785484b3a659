/**
 * What every `CourierPacer` promises, whichever store keeps the schedule: run on the in-process store always and on
 * Redis where `REDIS_URL` is set (`CourierPacer.test.ts`). Time is the test clock's; keys are fresh for each run, so
 * that a Redis shared with earlier runs holds nothing of theirs.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import type { RateLimit } from "@tawsil/courier/CourierAdapter"
import { Clock, Duration, Effect, Fiber, type Layer } from "effect"
import { TestClock } from "effect/testing"
import { CourierPacer } from "../src/CourierPacer.ts"

export const limit = (count: number, window: Duration.Input): RateLimit => ({
  limit: count,
  window: Duration.fromInputUnsafe(window)
})

export const yalidine = [limit(5, "1 second"), limit(50, "1 minute"), limit(1000, "1 hour"), limit(10_000, "1 day")]

/** Lets forked takes run up to their sleep on the test clock (the Redis store answers in real time). */
export const settle = Effect.andThen(TestClock.withLive(Effect.sleep("30 millis")), Effect.yieldNow)

/** `count` takes of `key` at once, each recording the test-clock time it was let through. */
export const takeAll = (key: string, limits: ReadonlyArray<RateLimit>, count: number, deadline = 3_600_000) =>
  Effect.gen(function* () {
    const pacer = yield* CourierPacer
    const times: Array<number> = []
    const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
    // One after another, so that the queue's order is the order of asking (as concurrent callers' is, one store
    // call each).
    for (let i = 0; i < count; i++) {
      fibers.push(
        yield* Effect.forkChild(
          Effect.andThen(
            pacer.take({ key, limits, deadline }),
            Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => times.push(now)))
          )
        )
      )
      yield* settle
    }
    return { times, fibers }
  })

export const suite = <E>(name: string, layer: Layer.Layer<CourierPacer, E>) =>
  describe(name, () => {
    const fresh = () => `test:${randomUUID()}`

    it.effect("lets callers through in the order they asked, each when its slot comes", () =>
      Effect.gen(function* () {
        const { times, fibers } = yield* takeAll(fresh(), [limit(5, "1 second")], 3)
        assert.deepStrictEqual(times, [0], "the first at once")
        yield* TestClock.adjust("250 millis")
        yield* settle
        assert.deepStrictEqual(times, [0, 250])
        yield* TestClock.adjust("250 millis")
        yield* Effect.forEach(fibers, Fiber.join)
        assert.deepStrictEqual(times, [0, 250, 500])
      }).pipe(Effect.provide(layer))
    )

    it.effect("keeps all of an account's limits: 12 calls at once on a Yalidine account, 4 a second at most", () =>
      Effect.gen(function* () {
        const { times, fibers } = yield* takeAll(fresh(), yalidine, 12)
        yield* TestClock.adjust("11 seconds")
        yield* Effect.forEach(fibers, Fiber.join)
        assert.deepStrictEqual(times, [0, 250, 500, 750, 1000, 1500, 3000, 4500, 6000, 7500, 9000, 10_500])
      }).pipe(Effect.provide(layer))
    )

    it.effect("refuses a call whose slot is past its deadline, taking nothing, and says when to come back", () =>
      Effect.gen(function* () {
        const pacer = yield* CourierPacer
        const key = fresh()
        const limits = [limit(2, "1 minute")]
        yield* pacer.take({ key, limits, deadline: 5000 })
        yield* TestClock.adjust("10 seconds")
        for (let i = 0; i < 3; i++) {
          const refused = yield* Effect.flip(pacer.take({ key, limits, deadline: 25_000 }))
          assert.strictEqual(refused._tag, "CourierRateLimited")
          assert.strictEqual(refused.retryAfterSeconds, 50)
        }
        yield* TestClock.adjust("50 seconds")
        const started = yield* Clock.currentTimeMillis
        yield* pacer.take({ key, limits, deadline: started + 1 })
        assert.strictEqual(yield* Clock.currentTimeMillis, started, "the refusals kept no slot: this one is free")
      }).pipe(Effect.provide(layer))
    )

    it.effect("paces each account apart, and lets an account without limits through at once", () =>
      Effect.gen(function* () {
        const pacer = yield* CourierPacer
        const limits = [limit(2, "1 minute")]
        const [first, second] = [fresh(), fresh()]
        yield* pacer.take({ key: first, limits, deadline: 1 })
        yield* pacer.take({ key: second, limits, deadline: 1 })
        assert.strictEqual(
          (yield* Effect.flip(pacer.take({ key: first, limits, deadline: 1 })))._tag,
          "CourierRateLimited"
        )
        for (let i = 0; i < 100; i++) yield* pacer.take({ key: first, limits: [], deadline: 1 })
      }).pipe(Effect.provide(layer))
    )

    it.effect("frees an account after a quiet spell: a full burst is available again", () =>
      Effect.gen(function* () {
        const key = fresh()
        const ecotrack = [limit(50, "1 minute")]
        const first = yield* takeAll(key, ecotrack, 6)
        yield* TestClock.adjust("2 seconds")
        yield* Effect.forEach(first.fibers, Fiber.join)
        assert.deepStrictEqual(first.times, [0, 0, 0, 0, 0, 1500])
        yield* TestClock.adjust(Duration.minutes(5))
        const start = yield* Clock.currentTimeMillis
        const again = yield* takeAll(key, ecotrack, 5)
        yield* Effect.forEach(again.fibers, Fiber.join)
        assert.deepStrictEqual(
          again.times.map((at) => at - start),
          [0, 0, 0, 0, 0]
        )
      }).pipe(Effect.provide(layer))
    )
  })
