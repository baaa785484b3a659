/**
 * `SignedCalls` on memory (the two ports one after the other), PGlite and PostgreSQL (one statement per group of
 * calls): a fresh nonce is recorded once and its call counted in its store's minute window, each call of a store with
 * its own distinct count; a replay — earlier, or twice within one group — is refused and counted nowhere; a call not
 * metered keeps its nonce and leaves the window alone.
 */
import { assert, layer, type Vitest } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Nonce, NonceStore } from "@tawsil/signing"
import { Clock, Effect, Layer } from "effect"
import * as SignedCalls from "../src/SignedCalls.ts"
import * as SignedCallsSql from "../src/SignedCallsSql.ts"
import * as UsageStore from "../src/UsageStore.ts"
import * as UsageStoreSql from "../src/UsageStoreSql.ts"
import { backends, migrated } from "./Backends.ts"

const MINUTE = 60_000

/** Starts with a few seconds left in the minute (memory and database alike count on the live clock here). */
const steady = Effect.flatMap(Clock.currentTimeMillis, (now) =>
  now % MINUTE > MINUTE - 5_000 ? Effect.sleep(MINUTE - (now % MINUTE) + 100) : Effect.void
)

// Stores no other run of these tests (on a shared database) counts in.
const storeIds = () => {
  const base = 1_000_000 + Math.floor(Math.random() * 1_000_000_000)
  return [Ids.StoreId.make(base), Ids.StoreId.make(base + 1)] as const
}

const windowOf = (recorded: SignedCalls.Fresh | SignedCalls.Replay) =>
  recorded._tag === "Fresh" ? (recorded.window?.windowCount ?? "unmetered") : "replay"

const suite = (it: Vitest.MethodsNonLive<SignedCalls.SignedCalls | UsageStore.UsageStore>) => {
  it.effect("counts each fresh call of a store once, with its own count; a replay nowhere", () =>
    Effect.gen(function* () {
      const signedCalls = yield* SignedCalls.SignedCalls
      const [a, b] = storeIds()
      yield* steady
      const replayed = Nonce.make()
      const record = (storeId: Ids.StoreId, nonce = Nonce.make()) =>
        signedCalls.record({ keyId: `twpub_live_${storeId}`, nonce, storeId, meter: true })
      // Concurrent: one group for the SQL store. The same key and nonce twice: one call is fresh, the other a replay.
      const first = yield* Effect.all(
        [record(a), record(a, replayed), record(b), record(a), record(a, replayed), record(b)],
        { concurrency: "unbounded" }
      )
      const counts = first.map(windowOf)
      assert.strictEqual(counts.filter((count) => count === "replay").length, 1)
      assert.deepStrictEqual(
        [counts[0], counts[1], counts[3], counts[4]].filter((count) => count !== "replay").sort(),
        [1, 2, 3]
      )
      assert.deepStrictEqual([counts[2], counts[5]].sort(), [1, 2])
      // Earlier nonces are replays, counted nowhere: the next fresh call of `a` is its fourth.
      assert.strictEqual(windowOf(yield* record(a, replayed)), "replay")
      assert.strictEqual(windowOf(yield* record(a)), 4)
      const usage = yield* UsageStore.UsageStore
      assert.strictEqual((yield* usage.meterWindow(b)).windowCount, 3)
    })
  )

  it.effect("a call not metered keeps its nonce and leaves the window alone", () =>
    Effect.gen(function* () {
      const signedCalls = yield* SignedCalls.SignedCalls
      const [store] = storeIds()
      yield* steady
      const nonce = Nonce.make()
      const call = { keyId: `twpub_live_${store}`, nonce, storeId: store, meter: false }
      assert.strictEqual(windowOf(yield* signedCalls.record(call)), "unmetered")
      assert.strictEqual(windowOf(yield* signedCalls.record({ ...call, meter: true })), "replay")
      assert.strictEqual(windowOf(yield* signedCalls.record({ ...call, nonce: Nonce.make(), meter: true })), 1)
    })
  )
}

layer(Layer.provideMerge(SignedCalls.layer, Layer.mergeAll(NonceStore.layerMemory, UsageStore.layerMemory)), {
  excludeTestServices: true
})("SignedCalls (memory)", (it) => suite(it))

for (const backend of backends) {
  layer(Layer.mergeAll(SignedCallsSql.layer, UsageStoreSql.layer).pipe(Layer.provideMerge(migrated(backend))), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(`SignedCalls (sql, ${backend.name})`, (it) => suite(it))
}
