/**
 * The contracts of the two ports, run over memory, the embedded database and (with `DATABASE_URL`) the real server:
 * `CourierAccountStore` (scoped by store but for the push receiver's lookup, sealed values kept as given and
 * replaced only where unchanged) and `TrackingStore` (due checks claimed under a lease, never by two claimers at
 * once; pushed events recorded once per account, found by any name of their parcel, claimed by appliers under a lease
 * and marked applied once).
 */
import { assert, describe, type Vitest } from "@effect/vitest"
import { DateTime, Duration, Effect } from "effect"
import type { NewAccount } from "../src/CourierAccount.ts"
import { CourierAccountStore } from "../src/CourierAccountStore.ts"
import { type ClaimedPush, type PushedRow, TrackingStore } from "../src/TrackingStore.ts"
import { Fixture } from "./Backends.ts"

const account = (storeId: number, overrides: Partial<NewAccount> = {}): NewAccount => ({
  storeId,
  courier: "relay",
  label: "Relay Alger",
  baseUrl: null,
  credentials: "tws1.current.sealed-credentials",
  webhookSecret: null,
  fingerprint: "0123456789ab",
  ...overrides
})

const lease = Duration.minutes(5)

const pushed = (key: string, overrides: Partial<PushedRow> = {}): PushedRow => ({
  key,
  trackingNumber: "T-1",
  courierReference: null,
  reference: null,
  rawStatus: "DELIVERED",
  reason: null,
  occurredAt: DateTime.makeUnsafe(Date.UTC(2025, 4, 1, 10)),
  payment: null,
  ...overrides
})

export const StoresSuite = <R>(
  it: Vitest.MethodsNonLive<CourierAccountStore | TrackingStore | Fixture | R>,
  options: { readonly concurrentClaims: boolean }
) => {
  /** A store with an account (an account needs a store, a check needs an order of it). */
  const storeWithAccount = Effect.gen(function* () {
    const fixture = yield* Fixture
    const storeId = yield* fixture.store
    const { id } = yield* (yield* CourierAccountStore).insert(account(storeId))
    return { storeId, accountId: id }
  })

  /** `count` orders of a store, each followed through its account, due `dueIn` from now. */
  const followed = (count: number, dueIn: Duration.Input = Duration.zero) =>
    Effect.gen(function* () {
      const fixture = yield* Fixture
      const tracking = yield* TrackingStore
      const { storeId, accountId } = yield* storeWithAccount
      const orderIds: Array<number> = []
      for (let index = 0; index < count; index++) {
        const order = yield* fixture.order(storeId)
        yield* tracking.schedule(
          { orderId: order.id, storeId, accountId, trackingNumber: `T-${order.id}`, status: "pending_pickup" },
          Duration.fromInputUnsafe(dueIn)
        )
        orderIds.push(order.id)
      }
      return { storeId, accountId, orderIds }
    })

  /** Claims everything due (of this suite's checks), by order id. */
  const claimIds = (limit = 1000) =>
    Effect.map(
      Effect.flatMap(TrackingStore, (tracking) => tracking.claimDue(limit, lease)),
      (claimed) => new Set(claimed.map((check) => check.orderId))
    )

  const has = (claimed: ReadonlySet<number>, ids: ReadonlyArray<number>) => ids.filter((id) => claimed.has(id))

  describe("CourierAccountStore", () => {
    it.effect("keeps an account as given, finds it in its store only, and by id for the push receiver", () =>
      Effect.gen(function* () {
        const store = yield* CourierAccountStore
        const fixture = yield* Fixture
        const mine = yield* fixture.store
        const theirs = yield* fixture.store
        const first = yield* store.insert(account(mine, { webhookSecret: "tws1.current.sealed-secret" }))
        const second = yield* store.insert(account(mine, { label: "Relay Oran", baseUrl: "https://oran.relay.test" }))
        yield* store.insert(account(theirs))
        assert.deepStrictEqual(
          { ...first, createdAt: undefined, updatedAt: undefined },
          {
            ...account(mine, { webhookSecret: "tws1.current.sealed-secret" }),
            id: first.id,
            createdAt: undefined,
            updatedAt: undefined
          }
        )
        assert.deepStrictEqual(first.createdAt, first.updatedAt)
        assert.isAbove(second.id, first.id)
        assert.deepStrictEqual(yield* store.find(mine, first.id), first)
        assert.isUndefined(yield* store.find(theirs, first.id))
        assert.deepStrictEqual(yield* store.findById(first.id), first)
        assert.isUndefined(yield* store.findById(2_000_000_000))
        assert.deepStrictEqual(yield* store.list(mine), [first, second])
        assert.isFalse(yield* store.remove(theirs, first.id))
        assert.isTrue(yield* store.remove(mine, first.id))
        assert.isFalse(yield* store.remove(mine, first.id))
        assert.deepStrictEqual(yield* store.list(mine), [second])
      })
    )

    it.effect("pages a sealed column for a rotation and replaces a value only where it is unchanged", () =>
      Effect.gen(function* () {
        const store = yield* CourierAccountStore
        const fixture = yield* Fixture
        const storeId = yield* fixture.store
        const old = yield* store.insert(account(storeId, { credentials: "tws1.old.a", webhookSecret: "tws1.old.s" }))
        const current = yield* store.insert(account(storeId, { credentials: "tws1.new.b" }))
        const older = yield* store.insert(account(storeId, { credentials: "tws1.old.c" }))
        const page = (column: "credentials" | "webhook_secret", after: number | undefined, limit = 100) =>
          Effect.map(
            store.sealedPage(column, { after, limit, skip: "tws1.new." }),
            // Other suites' accounts share the table: this store's only.
            (rows) => rows.filter((row) => row.storeId === storeId)
          )
        assert.deepStrictEqual(yield* page("credentials", old.id - 1), [
          { id: old.id, storeId, courier: "relay", sealed: "tws1.old.a" },
          { id: older.id, storeId, courier: "relay", sealed: "tws1.old.c" }
        ])
        assert.deepStrictEqual(
          (yield* page("credentials", old.id)).map((row) => row.id),
          [older.id]
        )
        assert.deepStrictEqual(
          (yield* store.sealedPage("credentials", { after: old.id - 1, limit: 1, skip: "tws1.new." })).map(
            (row) => row.id
          ),
          [old.id]
        )
        // A null webhook secret is no value to re-seal.
        assert.deepStrictEqual(
          (yield* page("webhook_secret", old.id - 1)).map((row) => row.sealed),
          ["tws1.old.s"]
        )
        assert.isFalse(yield* store.replaceSealed("credentials", old.id, "tws1.old.changed", "tws1.new.x"))
        assert.isTrue(yield* store.replaceSealed("credentials", old.id, "tws1.old.a", "tws1.new.a"))
        assert.isTrue(yield* store.replaceSealed("webhook_secret", old.id, "tws1.old.s", "tws1.new.s"))
        const replaced = (yield* store.find(storeId, old.id))!
        assert.deepStrictEqual([replaced.credentials, replaced.webhookSecret], ["tws1.new.a", "tws1.new.s"])
        assert.strictEqual((yield* store.find(storeId, current.id))!.credentials, "tws1.new.b")
        assert.deepStrictEqual(
          (yield* page("credentials", old.id - 1)).map((row) => row.id),
          [older.id]
        )
      })
    )
  })

  describe("TrackingStore", () => {
    it.effect("claims what is due, oldest first, each under a lease another claimer skips until it runs out", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        const later = yield* followed(1, "2 hours")
        const soon = yield* followed(2, "30 minutes")
        const ids = [...soon.orderIds, ...later.orderIds]
        assert.deepStrictEqual(has(yield* claimIds(), ids), [])
        yield* fixture.elapse("31 minutes")
        const claimed = yield* tracking.claimDue(1000, lease)
        assert.deepStrictEqual(
          claimed.filter((check) => ids.includes(check.orderId)).sort((a, b) => a.orderId - b.orderId),
          soon.orderIds.map((orderId) => ({
            orderId,
            storeId: soon.storeId,
            accountId: soon.accountId,
            trackingNumber: `T-${orderId}`,
            status: "pending_pickup",
            checks: 0
          }))
        )
        // Held: nobody claims them again while the lease runs.
        assert.deepStrictEqual(has(yield* claimIds(), ids), [])
        yield* fixture.elapse("4 minutes")
        assert.deepStrictEqual(has(yield* claimIds(), ids), [])
        // The claimer died: its lease ran out, another instance takes them over. The later one is due by now.
        yield* fixture.elapse("90 minutes")
        assert.deepStrictEqual(has(yield* claimIds(), ids).sort(), [...ids].sort())
      })
    )

    it.effect("claims at most the limit, the oldest due first", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        // Everything due elsewhere in the suite is claimed first, so that only these are left.
        yield* fixture.elapse("1 day")
        yield* claimIds()
        const older = yield* followed(2, Duration.zero)
        yield* fixture.elapse("1 minute")
        const newer = yield* followed(2, Duration.zero)
        const first = yield* tracking.claimDue(2, lease)
        assert.deepStrictEqual(first.map((check) => check.orderId).sort(), [...older.orderIds].sort())
        assert.deepStrictEqual(
          (yield* tracking.claimDue(10, lease)).map((check) => check.orderId).sort(),
          [...newer.orderIds].sort()
        )
      })
    )

    it.effect("claims by account: the most overdue account's checks first, then the next account's", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        yield* fixture.elapse("1 day")
        yield* claimIds()
        const oldest = yield* followed(3, Duration.zero)
        yield* fixture.elapse("1 minute")
        const middle = yield* followed(3, Duration.zero)
        yield* fixture.elapse("1 minute")
        const newest = yield* followed(3, Duration.zero)
        // The oldest account's three, then the next account's first, cut at the limit: whole batches of few accounts.
        const claimed = new Set((yield* tracking.claimDue(4, lease)).map((check) => check.orderId))
        assert.deepStrictEqual(
          [oldest, middle, newest].map((group) => group.orderIds.filter((id) => claimed.has(id)).length),
          [3, 1, 0]
        )
        const rest = new Set((yield* tracking.claimDue(100, lease)).map((check) => check.orderId))
        assert.deepStrictEqual(
          [oldest, middle, newest].map((group) => group.orderIds.filter((id) => rest.has(id)).length),
          [0, 2, 3]
        )
      })
    )

    it.effect("claims at most perAccount of one account, then the next accounts'", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        yield* fixture.elapse("1 day")
        yield* claimIds()
        const oldest = yield* followed(3, Duration.zero)
        yield* fixture.elapse("1 minute")
        const middle = yield* followed(3, Duration.zero)
        yield* fixture.elapse("1 minute")
        const newest = yield* followed(3, Duration.zero)
        const claimed = new Set((yield* tracking.claimDue(5, lease, 2)).map((check) => check.orderId))
        // Two of each account, the most overdue accounts first, cut at the limit.
        assert.deepStrictEqual(
          [oldest, middle, newest].map((group) => group.orderIds.filter((id) => claimed.has(id)).length),
          [2, 2, 1]
        )
      })
    )

    it.effect(
      options.concurrentClaims
        ? "never lets two claimers take the same check, claiming concurrently on separate connections"
        : "never lets two claimers take the same check",
      () =>
        Effect.gen(function* () {
          const tracking = yield* TrackingStore
          const fixture = yield* Fixture
          yield* fixture.elapse("1 day")
          yield* claimIds()
          const { orderIds } = yield* followed(40)
          const rounds = yield* Effect.all(
            Array.from({ length: 8 }, () => tracking.claimDue(7, lease)),
            { concurrency: "unbounded" }
          )
          const taken = rounds.flat().map((check) => check.orderId)
          assert.strictEqual(new Set(taken).size, taken.length, "a check was claimed twice")
          assert.deepStrictEqual(
            [...taken].sort((a, b) => a - b),
            orderIds
          )
        })
    )

    it.effect("release gives claims back due as they were; checked reschedules; schedule again keeps the count", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        yield* fixture.elapse("1 day")
        yield* claimIds()
        const { orderIds } = yield* followed(3)
        const [a, b, c] = orderIds as [number, number, number]
        assert.deepStrictEqual(has(yield* claimIds(), orderIds).sort(), [...orderIds].sort())
        yield* tracking.release([a, b])
        yield* tracking.release([])
        assert.deepStrictEqual(has(yield* claimIds(), orderIds).sort(), [a, b].sort())

        yield* tracking.checked(a, "out_for_delivery", Duration.minutes(30))
        yield* tracking.release([b, c])
        assert.deepStrictEqual(has(yield* claimIds(), orderIds).sort(), [b, c].sort())
        yield* fixture.elapse("31 minutes")
        const again = (yield* tracking.claimDue(1000, lease)).filter((check) => check.orderId === a)
        assert.deepStrictEqual(
          again.map((check) => [check.status, check.checks]),
          [["out_for_delivery", 1]]
        )
        // Scheduled anew (a push, a dispatch): unclaimed, due when said, its checks counted still.
        yield* tracking.schedule(
          {
            orderId: a,
            storeId: again[0]!.storeId,
            accountId: again[0]!.accountId,
            trackingNumber: `T-${a}`,
            status: "in_transit"
          },
          Duration.zero
        )
        const rescheduled = (yield* tracking.claimDue(1000, lease)).filter((check) => check.orderId === a)
        assert.deepStrictEqual(
          rescheduled.map((check) => [check.status, check.checks]),
          [["in_transit", 1]]
        )
      })
    )

    it.effect("finish stops following a parcel; following counts an account's parcels still followed", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const fixture = yield* Fixture
        const { accountId, orderIds } = yield* followed(3)
        const other = yield* followed(1)
        assert.strictEqual(yield* tracking.following(accountId), 3)
        yield* tracking.finish(orderIds[0]!)
        yield* tracking.finish(orderIds[0]!)
        assert.strictEqual(yield* tracking.following(accountId), 2)
        assert.strictEqual(yield* tracking.following(other.accountId), 1)
        yield* fixture.elapse("1 day")
        assert.deepStrictEqual(has(yield* claimIds(), orderIds).sort(), orderIds.slice(1).sort())
        // Checks of a finished parcel do nothing.
        yield* tracking.checked(orderIds[0]!, "delivered", Duration.zero)
        assert.deepStrictEqual(has(yield* claimIds(), orderIds), [])
      })
    )

    it.effect("records a pushed event once per account, and answers only the new ones", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const one = yield* storeWithAccount
        const two = yield* storeWithAccount
        const first = [pushed("id:1"), pushed("id:2", { rawStatus: "OUT", reason: "Livreur en route" })]
        assert.deepStrictEqual(yield* tracking.recordPushed(one.accountId, first), first)
        // A replay, with a new one among the repeats and a repeat inside the batch.
        const replay = [pushed("id:2"), pushed("id:3"), pushed("id:3"), pushed("id:1")]
        assert.deepStrictEqual(yield* tracking.recordPushed(one.accountId, replay), [pushed("id:3")])
        assert.deepStrictEqual(yield* tracking.recordPushed(one.accountId, []), [])
        // Another account's events are its own.
        assert.deepStrictEqual(yield* tracking.recordPushed(two.accountId, [pushed("id:1")]), [pushed("id:1")])
      })
    )

    it.effect("finds an account's waiting events by any name of their parcel, until they are applied", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const { accountId } = yield* storeWithAccount
        const other = yield* storeWithAccount
        const byNumber = pushed("a", {
          trackingNumber: "T-77",
          occurredAt: DateTime.makeUnsafe(Date.UTC(2025, 4, 1, 8))
        })
        const byReference = pushed("b", { trackingNumber: null, courierReference: "C-77" })
        const byOurs = pushed("c", { trackingNumber: null, reference: "ORD-1-20250501-77777777" })
        const unrelated = pushed("d", { trackingNumber: "T-78", courierReference: "C-78", reference: "ORD-x" })
        yield* tracking.recordPushed(accountId, [byNumber, byReference, byOurs, unrelated])
        yield* tracking.recordPushed(other.accountId, [pushed("e", { trackingNumber: "T-77" })])
        const names = { trackingNumber: "T-77", courierReference: "C-77", reference: "ORD-1-20250501-77777777" }
        const keys = (found: ReadonlyArray<PushedRow>) => found.map((row) => row.key).sort()
        const waiting = yield* tracking.pendingPushed(accountId, names)
        assert.deepStrictEqual(keys(waiting), ["a", "b", "c"])
        assert.deepStrictEqual(
          waiting.find((row) => row.key === "a"),
          byNumber
        )
        assert.deepStrictEqual(keys(yield* tracking.pendingPushed(accountId, { ...names, courierReference: null })), [
          "a",
          "c"
        ])
        yield* tracking.markApplied(accountId, ["a", "b"], 1)
        yield* tracking.markApplied(accountId, [], 1)
        assert.deepStrictEqual(keys(yield* tracking.pendingPushed(accountId, names)), ["c"])
        // Applied or not, a replay stays a replay.
        assert.deepStrictEqual(yield* tracking.recordPushed(accountId, [byNumber]), [])
      })
    )

    /** Claims every pushed event due (other tests' included), so that a test sees only its own. */
    const claimAllPushed = Effect.flatMap(TrackingStore, (tracking) => tracking.claimPushed(100_000, lease))

    const keysOf = (claimed: ReadonlyArray<ClaimedPush>, accountId: number) =>
      claimed
        .filter((row) => row.accountId === accountId)
        .map((row) => row.key)
        .sort()

    it.effect(
      "claims unapplied pushed events under a lease another claimer skips; a dead claimer's are taken over",
      () =>
        Effect.gen(function* () {
          const tracking = yield* TrackingStore
          const fixture = yield* Fixture
          yield* fixture.elapse("1 day")
          yield* claimAllPushed
          const { accountId } = yield* storeWithAccount
          const rows = [pushed("p-1", { reason: "Remis" }), pushed("p-2", { trackingNumber: null, reference: "ORD-9" })]
          yield* tracking.recordPushed(accountId, rows)
          const claimed = yield* tracking.claimPushed(100, lease)
          assert.deepStrictEqual(
            claimed.filter((row) => row.accountId === accountId).sort((a, b) => a.key.localeCompare(b.key)),
            rows.map((row) => ({ ...row, accountId }))
          )
          // Held: nobody claims them while the lease runs.
          assert.deepStrictEqual(keysOf(yield* tracking.claimPushed(100, lease), accountId), [])
          yield* fixture.elapse("4 minutes")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), [])
          // The claimer died: its lease ran out; another takes them over. One applied meanwhile is no longer claimed.
          assert.deepStrictEqual(yield* tracking.markApplied(accountId, ["p-1"], 1), ["p-1"])
          yield* fixture.elapse("2 minutes")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), ["p-2"])
          // At most the limit, the earliest due first.
          yield* fixture.elapse("1 day")
          yield* claimAllPushed
          yield* tracking.recordPushed(accountId, [pushed("p-3")])
          yield* fixture.elapse("1 minute")
          yield* tracking.recordPushed(accountId, [pushed("p-4")])
          assert.deepStrictEqual(keysOf(yield* tracking.claimPushed(1, lease), accountId), ["p-3"])
          assert.deepStrictEqual(keysOf(yield* tracking.claimPushed(10, lease), accountId), ["p-4"])
        })
    )

    it.effect(
      options.concurrentClaims
        ? "never lets two claimers take the same pushed event, claiming concurrently on separate connections"
        : "never lets two claimers take the same pushed event",
      () =>
        Effect.gen(function* () {
          const tracking = yield* TrackingStore
          const fixture = yield* Fixture
          yield* fixture.elapse("1 day")
          yield* claimAllPushed
          const { accountId } = yield* storeWithAccount
          const keys = Array.from({ length: 40 }, (_, index) => `c-${String(index).padStart(2, "0")}`)
          yield* tracking.recordPushed(
            accountId,
            keys.map((key) => pushed(key))
          )
          const rounds = yield* Effect.all(
            Array.from({ length: 8 }, () => tracking.claimPushed(7, lease)),
            { concurrency: "unbounded" }
          )
          const taken = rounds.flat().filter((row) => row.accountId === accountId)
          assert.strictEqual(new Set(taken.map((row) => row.key)).size, taken.length, "an event was claimed twice")
          assert.deepStrictEqual(keysOf(taken, accountId), keys)
        })
    )

    it.effect("marks an event applied once: a second unit, concurrent or later, marks none of it", () =>
      Effect.gen(function* () {
        const tracking = yield* TrackingStore
        const { accountId } = yield* storeWithAccount
        yield* tracking.recordPushed(accountId, [pushed("m-1"), pushed("m-2"), pushed("m-3")])
        const units = yield* Effect.all(
          Array.from({ length: 4 }, () => tracking.transaction(tracking.markApplied(accountId, ["m-1", "m-2"], 7))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(units.flat().sort(), ["m-1", "m-2"])
        assert.deepStrictEqual(yield* tracking.markApplied(accountId, ["m-2", "m-3", "m-3", "nope"], 7), ["m-3"])
        assert.deepStrictEqual(yield* tracking.markApplied(accountId, [], 7), [])
      })
    )

    it.effect(
      "defers an event whose parcel is unknown by as long as it waited, within the bounds; counts the backlog",
      () =>
        Effect.gen(function* () {
          const tracking = yield* TrackingStore
          const fixture = yield* Fixture
          yield* fixture.elapse("1 day")
          yield* claimAllPushed
          const before = yield* tracking.pushBacklog
          const { accountId } = yield* storeWithAccount
          const wait = { min: Duration.minutes(1), max: Duration.hours(1) }
          yield* tracking.recordPushed(accountId, [pushed("w-1"), pushed("w-2")])
          yield* fixture.elapse("10 seconds")
          const fresh = yield* tracking.pushBacklog
          assert.deepStrictEqual([fresh.pending - before.pending, fresh.waiting - before.waiting], [2, 0])
          assert.isAtLeast(fresh.lagSeconds, 10)
          assert.deepStrictEqual(keysOf(yield* tracking.claimPushed(100, lease), accountId), ["w-1", "w-2"])
          yield* tracking.deferPushed(accountId, ["w-1", "w-2"], wait)
          const deferred = yield* tracking.pushBacklog
          assert.deepStrictEqual([deferred.pending - before.pending, deferred.waiting - before.waiting], [0, 2])
          // Ten seconds old: the least wait, a minute.
          yield* fixture.elapse("50 seconds")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), [])
          yield* fixture.elapse("15 seconds")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), ["w-1", "w-2"])
          assert.deepStrictEqual(yield* tracking.markApplied(accountId, ["w-2"], 3), ["w-2"])
          // Now older: as long again as it waited (about 75 seconds), then at most the bound.
          yield* tracking.deferPushed(accountId, ["w-1"], wait)
          yield* fixture.elapse("70 seconds")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), [])
          yield* fixture.elapse("10 seconds")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), ["w-1"])
          yield* fixture.elapse("1 day")
          yield* tracking.deferPushed(accountId, ["w-1"], wait)
          yield* fixture.elapse("59 minutes")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), [])
          yield* fixture.elapse("2 minutes")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), ["w-1"])
          // Applied: neither claimed nor counted any more; deferring it does nothing.
          yield* tracking.markApplied(accountId, ["w-1", "w-2"], 3)
          yield* tracking.deferPushed(accountId, ["w-1"], wait)
          yield* fixture.elapse("1 day")
          assert.deepStrictEqual(keysOf(yield* claimAllPushed, accountId), [])
          const after = yield* tracking.pushBacklog
          assert.deepStrictEqual([after.pending - before.pending, after.waiting - before.waiting], [0, 0])
        })
    )
  })
}
