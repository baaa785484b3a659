import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as Nonce from "../src/Nonce.ts"
import * as NonceGroupCommit from "../src/NonceGroupCommit.ts"

const KEY = "twpub_live_0000000000001"

/** A store in a `Set` that records every group it is given. */
const memory = () => {
  const used = new Set<string>()
  const groups: Array<ReadonlyArray<NonceGroupCommit.Entry>> = []
  const recordAll: NonceGroupCommit.RecordAll = (entries) =>
    Effect.sync(() => {
      groups.push(entries)
      return entries.map(({ keyId, nonce }) => {
        const id = `${keyId} ${nonce}`
        if (used.has(id)) return false
        used.add(id)
        return true
      })
    })
  return { recordAll, groups }
}

/** Calls started together, the window passed, their answers in order. */
const together = (consume: (keyId: string, nonce: string) => Effect.Effect<boolean>, calls: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fibers = yield* Effect.forEach(calls, (nonce) => Effect.forkChild(consume(KEY, nonce)))
    yield* TestClock.adjust("2 millis")
    return yield* Effect.forEach(fibers, (fiber) => Fiber.await(fiber))
  })

describe("NonceGroupCommit", () => {
  it.effect("records the calls of one window in one group, each answered by its own entry", () =>
    Effect.gen(function* () {
      const store = memory()
      const consume = NonceGroupCommit.make(store.recordAll)
      const [a, b, c] = [Nonce.make(), Nonce.make(), Nonce.make()]
      const answers = yield* together(consume, [a, b, c])
      assert.deepStrictEqual(answers, [Exit.succeed(true), Exit.succeed(true), Exit.succeed(true)])
      assert.strictEqual(store.groups.length, 1)
      assert.deepStrictEqual(
        store.groups[0]!.map((entry) => entry.nonce),
        [a, b, c]
      )
    })
  )

  it.effect("refuses a replay within one group: the first call passes, the store sees the nonce once", () =>
    Effect.gen(function* () {
      const store = memory()
      const consume = NonceGroupCommit.make(store.recordAll)
      const [a, b] = [Nonce.make(), Nonce.make()]
      const answers = yield* together(consume, [a, b, a.toUpperCase(), a])
      assert.deepStrictEqual(answers, [
        Exit.succeed(true),
        Exit.succeed(true),
        Exit.succeed(false),
        Exit.succeed(false)
      ])
      assert.deepStrictEqual(
        store.groups[0]!.map((entry) => entry.nonce),
        [a, b]
      )
    })
  )

  it.effect("refuses a replay across groups, by what the store answers", () =>
    Effect.gen(function* () {
      const store = memory()
      const consume = NonceGroupCommit.make(store.recordAll)
      const [a, b] = [Nonce.make(), Nonce.make()]
      assert.deepStrictEqual(yield* together(consume, [a]), [Exit.succeed(true)])
      assert.deepStrictEqual(yield* together(consume, [b, a]), [Exit.succeed(true), Exit.succeed(false)])
      assert.strictEqual(store.groups.length, 2)
    })
  )

  it.effect("records a full group at once, without waiting for the window", () =>
    Effect.gen(function* () {
      const store = memory()
      const consume = NonceGroupCommit.make(store.recordAll, { maxSize: 2, window: "1 hour" })
      const fibers = yield* Effect.forEach([Nonce.make(), Nonce.make(), Nonce.make()], (nonce) =>
        Effect.forkChild(consume(KEY, nonce))
      )
      yield* Effect.yieldNow
      assert.deepStrictEqual(yield* Fiber.await(fibers[0]!), Exit.succeed(true))
      assert.deepStrictEqual(yield* Fiber.await(fibers[1]!), Exit.succeed(true))
      assert.strictEqual(store.groups.length, 1, "the third call waits for its own group")
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* Fiber.await(fibers[2]!), Exit.succeed(true))
      assert.strictEqual(store.groups.length, 2)
    })
  )

  it.effect("fails every waiting call of a group whose recording fails; none passes", () =>
    Effect.gen(function* () {
      const consume = NonceGroupCommit.make(() => Effect.die(new Error("connection lost")))
      const answers = yield* together(consume, [Nonce.make(), Nonce.make(), Nonce.make()])
      assert.strictEqual(answers.length, 3)
      for (const answer of answers) assert.isTrue(Exit.hasDies(answer), "each call dies with the statement")
    })
  )

  it.effect("keeps keys apart: one nonce under two keys is two entries", () =>
    Effect.gen(function* () {
      const store = memory()
      const consume = NonceGroupCommit.make(store.recordAll)
      const nonce = Nonce.make()
      const fibers = yield* Effect.forEach(["twpub_live_a", "twpub_live_b"], (key) =>
        Effect.forkChild(consume(key, nonce))
      )
      yield* TestClock.adjust("2 millis")
      for (const fiber of fibers) assert.deepStrictEqual(yield* Fiber.await(fiber), Exit.succeed(true))
    })
  )
})
