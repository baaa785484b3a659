/**
 * The host's memory for adapters (`AdapterMemories`, decision 0035): each adapter's keys in its own space, values kept
 * for their time to live, and a failing store leaving the memory to this process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { Persistence } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as AdapterMemories from "../src/AdapterMemories.ts"

const store = Persistence.BackingPersistence.use((backing) => backing.make(AdapterMemories.STORE_ID)).pipe(
  Effect.provide(Persistence.layerBackingMemory)
)

const failing = (): Persistence.BackingPersistenceStore => {
  const fail = Effect.fail(new Persistence.PersistenceError({ message: "connection refused" }))
  return { get: () => fail, getMany: () => fail, set: () => fail, setMany: () => fail, remove: () => fail, clear: fail }
}

describe("AdapterMemories", () => {
  it.effect("gives each platform its own keys, each kept for its time to live", () =>
    Effect.gen(function* () {
      const kept = yield* store
      const memories = AdapterMemories.make(kept, kept)
      const sandbox = memories.of("sandbox")
      yield* sandbox.set("cancelled:SBX1", "1700000000", Duration.minutes(10))
      assert.strictEqual(yield* sandbox.get("cancelled:SBX1"), "1700000000")
      assert.isUndefined(yield* memories.of("other").get("cancelled:SBX1"), "another adapter's space is its own")
      assert.isDefined(yield* kept.get("sandbox:cancelled:SBX1"), "stored under the platform")
      yield* TestClock.adjust(Duration.minutes(11))
      assert.isUndefined(yield* sandbox.get("cancelled:SBX1"), "past its time to live")
    })
  )

  it.effect("keeps values in this process when its store fails", () =>
    Effect.gen(function* () {
      const memories = AdapterMemories.make(failing(), yield* store)
      const sandbox = memories.of("sandbox")
      yield* sandbox.set("k", "v", Duration.minutes(1))
      assert.strictEqual(yield* sandbox.get("k"), "v")
    })
  )
})
