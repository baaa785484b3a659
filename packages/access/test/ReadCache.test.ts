import { assert, describe, it } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Duration, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { Principal } from "../src/Principal.ts"
import * as ReadCache from "../src/ReadCache.ts"

const principal = (keyId: string) =>
  new Principal({
    kind: "platform_key",
    store: { id: Ids.StoreId.make(7), name: "Boutique", slug: "boutique", plan: "enterprise" },
    keyId,
    keyType: "platform",
    name: "default",
    scopes: [],
    pilot: true,
    rateLimitTier: "enterprise",
    dashboardKey: false
  })

const first = principal("twpk_live_aaaaaaaaaaaaaa")
const second = principal("twpk_live_bbbbbbbbbbbbbb")

describe("ReadCache", () => {
  it.effect("answers a cached payload within 30 seconds, and nothing from then on", () =>
    Effect.gen(function* () {
      const cache = yield* ReadCache.make
      const key = ReadCache.keyOf(first, "/v1/products?limit=2")
      assert.isTrue(Option.isNone(yield* cache.get(key)))
      yield* cache.set(key, '[{"id":1}]')
      yield* TestClock.adjust(Duration.subtract(ReadCache.WINDOW, Duration.millis(1)))
      assert.deepStrictEqual(yield* cache.get(key), Option.some('[{"id":1}]'))
      yield* TestClock.adjust(Duration.millis(1))
      assert.isTrue(Option.isNone(yield* cache.get(key)))
      assert.strictEqual(Duration.toSeconds(ReadCache.WINDOW), 30)
    })
  )

  it.effect("keeps each API key's answers apart, and the query string in the key", () =>
    Effect.gen(function* () {
      const cache = yield* ReadCache.make
      yield* cache.set(ReadCache.keyOf(first, "/v1/store"), '{"name":"first"}')
      assert.isTrue(Option.isNone(yield* cache.get(ReadCache.keyOf(second, "/v1/store"))))
      assert.isTrue(Option.isNone(yield* cache.get(ReadCache.keyOf(first, "/v1/store?x=1"))))
      yield* cache.set(ReadCache.keyOf(second, "/v1/store"), '{"name":"second"}')
      assert.deepStrictEqual(yield* cache.get(ReadCache.keyOf(first, "/v1/store")), Option.some('{"name":"first"}'))
      assert.deepStrictEqual(yield* cache.get(ReadCache.keyOf(second, "/v1/store")), Option.some('{"name":"second"}'))
    })
  )

  it.effect("holds at most CAPACITY answers, dropping the least recently used first", () =>
    Effect.gen(function* () {
      const cache = yield* ReadCache.make
      const url = (i: number) => ReadCache.keyOf(first, `/v1/products?cursor=${i}`)
      for (let i = 0; i < ReadCache.CAPACITY; i++) yield* cache.set(url(i), String(i))
      // Read last, the first entry is now the most recently used: the second is the one to go.
      assert.deepStrictEqual(yield* cache.get(url(0)), Option.some("0"))
      yield* cache.set(url(ReadCache.CAPACITY), "new")
      assert.isTrue(Option.isNone(yield* cache.get(url(1))))
      assert.deepStrictEqual(yield* cache.get(url(0)), Option.some("0"))
      assert.deepStrictEqual(yield* cache.get(url(ReadCache.CAPACITY)), Option.some("new"))
      let kept = 0
      for (let i = 0; i <= ReadCache.CAPACITY; i++) if (Option.isSome(yield* cache.get(url(i)))) kept++
      assert.strictEqual(kept, ReadCache.CAPACITY)
      assert.strictEqual(ReadCache.CAPACITY, 10_000)
    })
  )
})
