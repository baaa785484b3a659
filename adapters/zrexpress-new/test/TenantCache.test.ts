import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as TenantCache from "../src/internal/TenantCache.ts"

const TENANT = "5b0e1d6c-3f4a-4c8e-9a27-6d1f0b2e7c31"

/** A loader that counts its runs and answers `value`. */
const counting = <A>(value: A) => {
  let runs = 0
  const load = Effect.sync(() => {
    runs += 1
    return value
  })
  return { load, runs: () => runs }
}

describe("TenantCache", () => {
  it.effect("loads once per tenant and part until the entry expires on the Clock", () =>
    Effect.gen(function* () {
      const cache = TenantCache.make<string>({ ttl: "1 hour", capacity: 10 })
      const loader = counting("ready-id")
      assert.strictEqual(yield* cache.get(TENANT, "ready", loader.load), "ready-id")
      assert.strictEqual(yield* cache.get(TENANT, "ready", loader.load), "ready-id")
      assert.strictEqual(loader.runs(), 1)
      yield* cache.get("0000000a-0000-4000-8000-000000000001", "ready", loader.load)
      yield* cache.get(TENANT, "wilayas", loader.load)
      assert.strictEqual(loader.runs(), 3, "another tenant, another part")
      yield* TestClock.adjust("59 minutes")
      yield* cache.get(TENANT, "ready", loader.load)
      assert.strictEqual(loader.runs(), 3)
      yield* TestClock.adjust("2 minutes")
      yield* cache.get(TENANT, "ready", loader.load)
      assert.strictEqual(loader.runs(), 4, "expired after an hour")
    })
  )

  it.effect("forgets an entry on demand, keeps nothing a load failed or refused to keep, and drops the oldest", () =>
    Effect.gen(function* () {
      const cache = TenantCache.make<ReadonlyArray<number>>({ ttl: "1 day", capacity: 2, keep: (a) => a.length > 0 })
      const full = counting([1])
      yield* cache.get(TENANT, "a", full.load)
      cache.invalidate(TENANT, "a")
      yield* cache.get(TENANT, "a", full.load)
      assert.strictEqual(full.runs(), 2)

      const empty = counting<ReadonlyArray<number>>([])
      yield* cache.get(TENANT, "b", empty.load)
      yield* cache.get(TENANT, "b", empty.load)
      assert.strictEqual(empty.runs(), 2, "an empty list is not kept")

      const failed = yield* Effect.flip(cache.get(TENANT, "c", Effect.fail("down")))
      assert.strictEqual(failed, "down")
      assert.strictEqual(cache.size(), 1)

      yield* cache.get(TENANT, "d", full.load)
      yield* cache.get(TENANT, "e", full.load)
      assert.strictEqual(cache.size(), 2, "capacity")
      yield* cache.get(TENANT, "a", full.load)
      assert.strictEqual(full.runs(), 5, "the oldest entry went first")
    })
  )
})
