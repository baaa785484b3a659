/**
 * The contract of `NonceStore`, run against every implementation. `elapse` moves the store's clock forward:
 * `TestClock` for memory, stored expiry times shifted back for SQL (whose clock is the database's).
 */
import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as Nonce from "../src/Nonce.ts"
import { NonceStore } from "../src/NonceStore.ts"

let keys = 0
const newKey = () => `twpub_live_${String(++keys).padStart(13, "0")}`

export const NonceStoreSuite = <R>(
  it: Vitest.MethodsNonLive<NonceStore | R>,
  elapse: (duration: Duration.Input) => Effect.Effect<void, never, NonceStore | R>
) => {
  it.effect("passes a nonce once per key; another key may use the same nonce", () =>
    Effect.gen(function* () {
      const store = yield* NonceStore
      const [key, other] = [newKey(), newKey()]
      const nonce = Nonce.make()
      assert.isTrue(yield* store.consume(key, nonce))
      assert.isFalse(yield* store.consume(key, nonce))
      assert.isFalse(yield* store.consume(key, nonce.toUpperCase()), "nonces compare ignoring case")
      assert.isTrue(yield* store.consume(other, nonce))
      assert.isTrue(yield* store.consume(key, Nonce.make()))
    })
  )

  it.effect("keeps a nonce for one hour, then lets it be used again", () =>
    Effect.gen(function* () {
      const store = yield* NonceStore
      const key = newKey()
      const nonce = Nonce.make()
      assert.isTrue(yield* store.consume(key, nonce))
      yield* elapse(Duration.subtract(Nonce.LIFETIME, Duration.seconds(5)))
      assert.isFalse(yield* store.consume(key, nonce), "still remembered 5 s before the hour")
      yield* elapse(Duration.seconds(10))
      assert.isTrue(yield* store.consume(key, nonce), "free again after the hour")
      assert.isFalse(yield* store.consume(key, nonce), "and remembered again from its new use")
    })
  )

  it.effect("purges only the nonces past their lifetime", () =>
    Effect.gen(function* () {
      const store = yield* NonceStore
      const key = newKey()
      const [old, fresh] = [Nonce.make(), Nonce.make()]
      yield* store.consume(key, old)
      yield* elapse(Duration.minutes(50))
      yield* store.consume(key, fresh)
      yield* elapse(Duration.minutes(11))
      assert.isAtLeast(yield* store.purgeExpired, 1)
      assert.isTrue(yield* store.consume(key, old))
      assert.isFalse(yield* store.consume(key, fresh))
    })
  )

  it.effect("of 20 concurrent uses of one nonce, exactly one passes", () =>
    Effect.gen(function* () {
      const store = yield* NonceStore
      const key = newKey()
      const nonce = Nonce.make()
      const passed = yield* Effect.forEach(Array.from({ length: 20 }), () => store.consume(key, nonce), {
        concurrency: "unbounded"
      })
      assert.strictEqual(passed.filter(Boolean).length, 1)
    })
  )
}
