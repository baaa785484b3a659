/**
 * The contract of `IdempotencyStore`, run against every implementation. `elapse` moves the store's clock forward:
 * `TestClock` for memory, stored expiry times shifted back for SQL (whose clock is the database's).
 */
import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import * as Idempotency from "../src/Idempotency.ts"

/** The installation secret these tests hash with. */
const testSecret = Redacted.make("test-installation-secret")

import { type Claim, IdempotencyStore } from "../src/IdempotencyStore.ts"

const request = (scopeName: string, options: { readonly key?: string; readonly body?: unknown } = {}) => ({
  scope: Idempotency.scopeWith(testSecret, ["suite", scopeName]),
  key: Idempotency.IdempotencyKey.make(options.key ?? "order-1"),
  fingerprint: Idempotency.fingerprintWith(testSecret, {
    method: "POST",
    path: "/v1/orders",
    body: options.body ?? { qty: 1 }
  })
})

const created = new Idempotency.StoredResponse({
  status: 201,
  headers: { "content-type": "application/json", location: "/v1/orders/7" },
  body: '{"id":7,"recipient":"Amîn Bensaïd — أمين","total":1250.5}'
})

const acquired = (of: Idempotency.Request, claim: Claim) => {
  assert.strictEqual(claim._tag, "Acquired")
  return new Idempotency.Claimed({ ...of, token: claim._tag === "Acquired" ? claim.token : "" })
}

export const IdempotencyStoreSuite = <R>(
  it: Vitest.MethodsNonLive<IdempotencyStore | R>,
  elapse: (duration: Duration.Input) => Effect.Effect<void, never, IdempotencyStore | R>
) => {
  const { LEASE, TTL } = Idempotency

  it.effect("keeps one installation secret: 64 hex characters, the same every time it is asked", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = Redacted.value(yield* store.secret)
      assert.match(first, /^[0-9a-f]{64}$/)
      assert.strictEqual(Redacted.value(yield* store.secret), first)
    })
  )

  it.effect("claims a free key, then tells later claimers it is in flight for the first request", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("in-flight")
      acquired(first, yield* store.claim(first, LEASE))
      const again = yield* store.claim(first, LEASE)
      assert.deepStrictEqual(again, { _tag: "Pending", fingerprint: first.fingerprint })
      const other = yield* store.claim(request("in-flight", { body: { qty: 2 } }), LEASE)
      assert.deepStrictEqual(other, { _tag: "Pending", fingerprint: first.fingerprint })
    })
  )

  it.effect("runs a transaction, passing its result and its own failure through; what it claimed is kept", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const inside = request("transaction")
      const claimed = yield* store.transaction(
        Effect.flatMap(store.claim(inside, LEASE), (claim) => store.complete(acquired(inside, claim), created, TTL))
      )
      assert.isTrue(claimed)
      assert.deepStrictEqual(yield* store.claim(inside, LEASE), {
        _tag: "Completed",
        fingerprint: inside.fingerprint,
        response: created
      })
      const failure = yield* Effect.flip(store.transaction(Effect.fail("refused" as const)))
      assert.strictEqual(failure, "refused")
    })
  )

  it.effect("keeps scopes apart: one key is free in every scope", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const a = request("scope-a")
      const b = request("scope-b")
      acquired(a, yield* store.claim(a, LEASE))
      acquired(b, yield* store.claim(b, LEASE))
      const otherKey = request("scope-a", { key: "order-2" })
      acquired(otherKey, yield* store.claim(otherKey, LEASE))
    })
  )

  it.effect("returns a completed answer as it was recorded, with the fingerprint it answers", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("completed")
      const claimed = acquired(first, yield* store.claim(first, LEASE))
      assert.isTrue(yield* store.complete(claimed, created, TTL))
      const found = yield* store.claim(request("completed", { body: { qty: 9 } }), LEASE)
      assert.strictEqual(found._tag, "Completed")
      if (found._tag !== "Completed") return
      assert.strictEqual(found.fingerprint, first.fingerprint)
      assert.deepStrictEqual(found.response, created)
      assert.strictEqual(found.response.body, created.body)
    })
  )

  it.effect("completes a claim once; a completed key is not released", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("once")
      const claimed = acquired(first, yield* store.claim(first, LEASE))
      assert.isTrue(yield* store.complete(claimed, created, TTL))
      const second = new Idempotency.StoredResponse({ status: 200, headers: {}, body: "{}" })
      assert.isFalse(yield* store.complete(claimed, second, TTL))
      yield* store.release(claimed)
      const found = yield* store.claim(first, LEASE)
      assert.strictEqual(found._tag === "Completed" ? found.response.status : undefined, 201)
    })
  )

  it.effect("frees a released key at once", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("released")
      const claimed = acquired(first, yield* store.claim(first, LEASE))
      yield* store.release(claimed)
      const retry = request("released", { body: { qty: 3 } })
      acquired(retry, yield* store.claim(retry, LEASE))
    })
  )

  it.effect("holds an in-flight key for its lease only, then lets a retry claim it", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("lease")
      const crashed = acquired(first, yield* store.claim(first, LEASE))
      yield* elapse(Duration.subtract(LEASE, Duration.seconds(1)))
      assert.strictEqual((yield* store.claim(first, LEASE))._tag, "Pending")
      yield* elapse(Duration.seconds(2))
      const retry = acquired(first, yield* store.claim(first, LEASE))
      assert.notStrictEqual(retry.token, crashed.token)
    })
  )

  it.effect("lets a lost claim neither complete nor release the key's new claim", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("lost")
      const lost = acquired(first, yield* store.claim(first, LEASE))
      yield* elapse(Duration.sum(LEASE, Duration.seconds(1)))
      const retry = request("lost", { body: { qty: 2 } })
      const current = acquired(retry, yield* store.claim(retry, LEASE))
      assert.isFalse(yield* store.complete(lost, created, TTL))
      yield* store.release(lost)
      assert.deepStrictEqual(yield* store.claim(first, LEASE), { _tag: "Pending", fingerprint: retry.fingerprint })
      assert.isTrue(yield* store.complete(current, created, TTL))
    })
  )

  it.effect("records the answer of a claim past its lease when no one claimed the key since", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("late")
      const late = acquired(first, yield* store.claim(first, LEASE))
      yield* elapse(Duration.sum(LEASE, Duration.seconds(1)))
      assert.isTrue(yield* store.complete(late, created, TTL))
      assert.strictEqual((yield* store.claim(first, LEASE))._tag, "Completed")
    })
  )

  it.effect("keeps an answer for its TTL, then frees the key, even for another request", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      const first = request("ttl")
      const claimed = acquired(first, yield* store.claim(first, LEASE))
      assert.isTrue(yield* store.complete(claimed, created, TTL))
      yield* elapse(Duration.subtract(TTL, Duration.minutes(1)))
      assert.strictEqual((yield* store.claim(first, LEASE))._tag, "Completed")
      yield* elapse(Duration.minutes(2))
      const next = request("ttl", { body: { qty: 4 } })
      acquired(next, yield* store.claim(next, LEASE))
    })
  )

  it.effect("purges expired records only, and counts them", () =>
    Effect.gen(function* () {
      const store = yield* IdempotencyStore
      // Start from an empty store: every record of earlier tests expires within a day.
      yield* elapse(Duration.sum(TTL, Duration.hours(1)))
      yield* store.purgeExpired
      const stale = request("purge", { key: "stale" })
      acquired(stale, yield* store.claim(stale, LEASE))
      const brief = request("purge", { key: "brief" })
      yield* store.complete(acquired(brief, yield* store.claim(brief, LEASE)), created, Duration.seconds(30))
      const kept = request("purge", { key: "kept" })
      yield* store.complete(acquired(kept, yield* store.claim(kept, LEASE)), created, TTL)
      assert.strictEqual(yield* store.purgeExpired, 0)
      yield* elapse(Duration.sum(LEASE, Duration.seconds(1)))
      assert.strictEqual(yield* store.purgeExpired, 2)
      assert.strictEqual(yield* store.purgeExpired, 0)
      assert.strictEqual((yield* store.claim(kept, LEASE))._tag, "Completed")
    })
  )
}
