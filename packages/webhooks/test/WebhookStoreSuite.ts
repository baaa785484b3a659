/**
 * The contract of `WebhookStore`, run against every implementation. `elapse` makes time pass for what is due and
 * leased: `TestClock` for memory, stored times shifted back for SQL (whose clock is the database's).
 */
import { assert, type Vitest } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Duration, Effect, Redacted } from "effect"
import * as WebhookEvent from "../src/WebhookEvent.ts"
import { type AttemptResult, type Claimed, WebhookStore } from "../src/WebhookStore.ts"
import { newStore } from "./Backends.ts"

const subscription = (
  overrides: Partial<{ url: string; events: ReadonlyArray<WebhookEvent.Name>; active: boolean }> = {}
) => ({
  url: overrides.url ?? "https://hooks.example.com/tawsil",
  events: overrides.events ?? (["order.created", "order.shipped"] as const),
  active: overrides.active ?? true,
  description: null,
  secret: Redacted.make(`whsec_${"ab".repeat(32)}`)
})

const event = (storeId: number, name: WebhookEvent.Name = "order.created") => {
  const id = WebhookEvent.newId()
  return { id, storeId: Ids.StoreId.make(storeId), event: name, payload: `{"id":"${id}"}` }
}

const LEASE = Duration.seconds(30)

const finished = (
  claimed: Claimed,
  outcome: "succeeded" | "failed",
  next: AttemptResult["status"],
  retryInMillis: number | null = null
): AttemptResult => ({
  deliveryId: claimed.id,
  token: claimed.token,
  attempt: {
    attempt: claimed.attempt,
    startedAt: DateTime.makeUnsafe(Date.parse("2026-11-21T10:00:00Z")),
    outcome,
    statusCode: outcome === "succeeded" ? 204 : 503,
    latencyMs: 12,
    error: outcome === "succeeded" ? null : "HTTP 503"
  },
  status: next,
  retryInMillis
})

export const WebhookStoreSuite = <R>(
  it: Vitest.MethodsNonLive<WebhookStore | R>,
  elapse: (duration: Duration.Input) => Effect.Effect<void, never, WebhookStore | R>
) => {
  /** Claims everything due of `storeId` (other tests' deliveries are recorded and put back out of the way). */
  const claimOf = (storeId: number, token: string, limit = 50) =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const claimed = yield* store.claim(limit, LEASE, token)
      return claimed.filter((delivery) => delivery.storeId === storeId)
    })

  it.effect("keeps a store's subscriptions, changes and rotates them, at most `max` per store", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = Ids.StoreId.make(yield* newStore)
      const other = Ids.StoreId.make(yield* newStore)
      const first = yield* store.insertSubscription(storeId, subscription(), 2)
      const second = yield* store.insertSubscription(storeId, subscription({ active: false }), 2)
      const refused = yield* Effect.flip(store.insertSubscription(storeId, subscription(), 2))
      assert.strictEqual(refused._tag, "SubscriptionLimitReached")
      assert.deepStrictEqual(
        (yield* store.listSubscriptions(storeId)).map((found) => found.id),
        [first.id, second.id]
      )
      assert.deepStrictEqual(yield* store.listSubscriptions(other), [])
      assert.isUndefined(yield* store.findSubscription(other, first.id), "another store's subscription is not found")

      const changed = yield* store.updateSubscription(storeId, first.id, {
        url: "https://hooks.example.com/v2",
        description: "orders"
      })
      assert.strictEqual(changed!.url, "https://hooks.example.com/v2")
      assert.strictEqual(changed!.description, "orders")
      assert.deepStrictEqual(changed!.events, ["order.created", "order.shipped"])
      assert.isNull(changed!.previousSecret)
      const rotated = yield* store.updateSubscription(storeId, first.id, {
        rotate: { secret: Redacted.make("whsec_new"), grace: Duration.hours(24) }
      })
      assert.strictEqual(Redacted.value(rotated!.secret), "whsec_new")
      assert.strictEqual(Redacted.value(rotated!.previousSecret!), Redacted.value(first.secret))
      assert.isNotNull(rotated!.previousSecretExpiresAt)
      const cleared = yield* store.updateSubscription(storeId, first.id, { description: null })
      assert.isNull(cleared!.description)
      assert.isUndefined(yield* store.updateSubscription(other, first.id, { active: false }))

      assert.isFalse(yield* store.deleteSubscription(other, first.id))
      assert.isTrue(yield* store.deleteSubscription(storeId, first.id))
      assert.isFalse(yield* store.deleteSubscription(storeId, first.id))
      yield* store.insertSubscription(storeId, subscription(), 2)
    })
  )

  it.effect("fans an event out to the store's active subscriptions of its kind; records nothing nobody wants", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = yield* newStore
      const id = Ids.StoreId.make(storeId)
      const wants = yield* store.insertSubscription(id, subscription({ events: ["order.created"] }), 20)
      yield* store.insertSubscription(id, subscription({ events: ["order.shipped"] }), 20)
      yield* store.insertSubscription(id, subscription({ events: ["order.created"], active: false }), 20)
      assert.strictEqual(yield* store.recordEvent(event(storeId, "order.confirmed")), 0)
      const created = event(storeId, "order.created")
      assert.strictEqual(yield* store.recordEvent(created), 1)
      const claimed = yield* claimOf(storeId, "claim-fan-out")
      assert.deepStrictEqual(
        claimed.map((delivery) => [
          delivery.subscriptionId,
          delivery.eventId,
          delivery.event,
          delivery.payload,
          delivery.attempt
        ]),
        [[wants.id, created.id, "order.created", created.payload, 1]]
      )
      assert.deepStrictEqual(claimed[0]!.secrets.map(Redacted.value), [`whsec_${"ab".repeat(32)}`])
      const [delivery] = yield* store.listDeliveries(id, wants.id, { afterId: undefined, limit: 10 })
      assert.strictEqual(delivery!.status, "pending")
      assert.strictEqual(delivery!.maxAttempts, 5)
    })
  )

  it.effect(
    "leases a claim: no second claim while it holds, a result only from its own token, again once it runs out",
    () =>
      Effect.gen(function* () {
        const store = yield* WebhookStore
        const storeId = yield* newStore
        const id = Ids.StoreId.make(storeId)
        const hook = yield* store.insertSubscription(id, subscription(), 20)
        yield* store.recordEvent(event(storeId))
        const [first] = yield* claimOf(storeId, "claim-a")
        assert.isDefined(first)
        assert.deepStrictEqual(yield* claimOf(storeId, "claim-b"), [], "leased: nobody else claims it")
        assert.isFalse(yield* store.finishAttempt(finished({ ...first!, token: "claim-b" }, "succeeded", "succeeded")))
        yield* elapse(Duration.sum(LEASE, Duration.seconds(1)))
        const [again] = yield* claimOf(storeId, "claim-c")
        assert.strictEqual(again!.id, first!.id, "its dispatcher died: claimed again")
        assert.strictEqual(again!.attempt, 1, "no attempt was recorded, so this is still the first")
        assert.isFalse(yield* store.finishAttempt(finished(first!, "succeeded", "succeeded")), "the old claim lost it")
        assert.isTrue(yield* store.finishAttempt(finished(again!, "failed", "pending", 60_000)))
        const [logged] = yield* store.listDeliveries(id, hook.id, { afterId: undefined, limit: 10 })
        assert.strictEqual(logged!.status, "pending")
        assert.strictEqual(logged!.attempts, 1)
        assert.deepStrictEqual(
          logged!.attemptLog.map((attempt) => [
            attempt.attempt,
            attempt.outcome,
            attempt.statusCode,
            attempt.latencyMs,
            attempt.error
          ]),
          [[1, "failed", 503, 12, "HTTP 503"]]
        )
        assert.deepStrictEqual(yield* claimOf(storeId, "claim-d"), [], "not due for a minute")
        yield* elapse(Duration.seconds(61))
        const [second] = yield* claimOf(storeId, "claim-e")
        assert.strictEqual(second!.attempt, 2)
        assert.isTrue(yield* store.finishAttempt(finished(second!, "succeeded", "succeeded")))
        assert.deepStrictEqual(yield* claimOf(storeId, "claim-f"), [])
        const [done] = yield* store.listDeliveries(id, hook.id, { afterId: undefined, limit: 10 })
        assert.strictEqual(done!.status, "succeeded")
        assert.deepStrictEqual(
          done!.attemptLog.map((attempt) => attempt.outcome),
          ["failed", "succeeded"]
        )
      })
  )

  it.effect("signs with the previous secret too while its rotation grace lasts", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = yield* newStore
      const id = Ids.StoreId.make(storeId)
      const hook = yield* store.insertSubscription(id, subscription(), 20)
      yield* store.updateSubscription(id, hook.id, {
        rotate: { secret: Redacted.make("whsec_next"), grace: Duration.hours(24) }
      })
      yield* store.recordEvent(event(storeId))
      const [during] = yield* claimOf(storeId, "claim-rotation")
      assert.deepStrictEqual(during!.secrets.map(Redacted.value), ["whsec_next", `whsec_${"ab".repeat(32)}`])
      yield* store.finishAttempt(finished(during!, "failed", "pending", 1))
      yield* elapse(Duration.hours(25))
      const [after] = yield* claimOf(storeId, "claim-after-rotation")
      assert.deepStrictEqual(after!.secrets.map(Redacted.value), ["whsec_next"])
      yield* store.finishAttempt(finished(after!, "succeeded", "succeeded"))
    })
  )

  it.effect("pages a subscription's deliveries newest first; a manual retry makes one due with an attempt left", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = yield* newStore
      const id = Ids.StoreId.make(storeId)
      const other = Ids.StoreId.make(yield* newStore)
      const hook = yield* store.insertSubscription(id, subscription(), 20)
      for (let i = 0; i < 3; i++) yield* store.recordEvent(event(storeId))
      const all = yield* store.listDeliveries(id, hook.id, { afterId: undefined, limit: 10 })
      assert.strictEqual(all.length, 3)
      assert.isTrue(all[0]!.id > all[1]!.id && all[1]!.id > all[2]!.id)
      assert.deepStrictEqual(
        (yield* store.listDeliveries(id, hook.id, { afterId: all[0]!.id, limit: 1 })).map((d) => d.id),
        [all[1]!.id]
      )
      assert.deepStrictEqual(yield* store.listDeliveries(other, hook.id, { afterId: undefined, limit: 10 }), [])

      // Give the oldest up after its last attempt, then retry it by hand: due now, one attempt more.
      const claimed = yield* claimOf(storeId, "claim-retry")
      const oldest = claimed.find((delivery) => delivery.id === all[2]!.id)!
      for (const delivery of claimed) {
        yield* store.finishAttempt(
          delivery.id === oldest.id
            ? {
                ...finished(delivery, "failed", "failed"),
                attempt: { ...finished(delivery, "failed", "failed").attempt, attempt: 5 }
              }
            : finished(delivery, "succeeded", "succeeded")
        )
      }
      assert.isUndefined(yield* store.retryDelivery(other, hook.id, oldest.id))
      const retried = yield* store.retryDelivery(id, hook.id, oldest.id)
      assert.strictEqual(retried!.status, "pending")
      assert.strictEqual(retried!.attempts, 5)
      assert.strictEqual(retried!.maxAttempts, 6)
      const [again] = yield* claimOf(storeId, "claim-retry-2")
      assert.strictEqual(again!.id, oldest.id)
      assert.strictEqual(again!.attempt, 6)
      yield* store.finishAttempt(finished(again!, "succeeded", "succeeded"))
      assert.isTrue(yield* store.deleteSubscription(id, hook.id))
      assert.deepStrictEqual(yield* store.listDeliveries(id, hook.id, { afterId: undefined, limit: 10 }), [])
    })
  )

  it.effect(
    "claims a subscription's deliveries in the order of their events, one at a time; a retry holds none back",
    () =>
      Effect.gen(function* () {
        const store = yield* WebhookStore
        const storeId = yield* newStore
        const id = Ids.StoreId.make(storeId)
        const a = yield* store.insertSubscription(id, subscription(), 20)
        const b = yield* store.insertSubscription(id, subscription(), 20)
        const events = [event(storeId), event(storeId), event(storeId)]
        for (const recorded of events) yield* store.recordEvent(recorded)
        const bySubscription = (claimed: ReadonlyArray<Claimed>) =>
          Object.fromEntries(claimed.map((delivery) => [delivery.subscriptionId, delivery]))
        // The first event of each subscription, and nothing newer while they are in flight.
        const first = bySubscription(yield* claimOf(storeId, "order-1"))
        assert.deepStrictEqual([first[a.id]?.eventId, first[b.id]?.eventId], [events[0]!.id, events[0]!.id])
        assert.deepStrictEqual(yield* claimOf(storeId, "order-2"), [])
        // a's succeeds: its second event is next. b's fails, to be retried in an hour: its newer events do not wait.
        yield* store.finishAttempt(finished(first[a.id]!, "succeeded", "succeeded"))
        yield* store.finishAttempt(finished(first[b.id]!, "failed", "pending", 3_600_000))
        const second = bySubscription(yield* claimOf(storeId, "order-3"))
        assert.deepStrictEqual([second[a.id]?.eventId, second[b.id]?.eventId], [events[1]!.id, events[1]!.id])
        assert.deepStrictEqual(yield* claimOf(storeId, "order-4"), [])
      })
  )

  it.effect("purges old events once none of their deliveries is pending, with their logs", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = yield* newStore
      const id = Ids.StoreId.make(storeId)
      const hook = yield* store.insertSubscription(id, subscription(), 20)
      yield* store.recordEvent(event(storeId))
      yield* store.recordEvent(event(storeId))
      // A subscription's deliveries are claimed in order, the next once the one before is done.
      const [first] = yield* claimOf(storeId, "claim-purge")
      yield* store.finishAttempt(finished(first!, "succeeded", "succeeded"))
      const [second] = yield* claimOf(storeId, "claim-purge")
      yield* store.finishAttempt(finished(second!, "failed", "pending", 3_600_000))
      const claimed = [first!, second!]
      yield* elapse(Duration.days(31))
      assert.isAtLeast(yield* store.purgeFinished(Duration.days(30)), 1)
      const left = yield* store.listDeliveries(id, hook.id, { afterId: undefined, limit: 10 })
      assert.deepStrictEqual(
        left.map((delivery) => [delivery.id, delivery.status]),
        [[claimed[1]!.id, "pending"]]
      )
    })
  )

  it.effect("tells the outbox's backlog: its pending deliveries, and how late the oldest due one is", () =>
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const storeId = yield* newStore
      const id = Ids.StoreId.make(storeId)
      yield* store.insertSubscription(id, subscription({ events: ["order.created"] }), 20)
      const before = yield* store.backlog
      assert.strictEqual(yield* store.recordEvent(event(storeId, "order.created")), 1)
      assert.strictEqual((yield* store.backlog).pending, before.pending + 1)
      yield* elapse("10 seconds")
      const late = yield* store.backlog
      assert.isAtLeast(late.lagSeconds, 9, "due for 10 s")
      const [claimed] = yield* claimOf(storeId, "claim-backlog")
      assert.isTrue(yield* store.finishAttempt(finished(claimed!, "succeeded", "succeeded")))
      assert.strictEqual((yield* store.backlog).pending, before.pending)
    })
  )
}
