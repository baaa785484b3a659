/**
 * The tracker over every store (memory, PGlite, PostgreSQL with `DATABASE_URL`): calls answered at once and written
 * behind the answer; events deduplicated on store and nonce and counted once; signups counted in total, repeats not
 * in billable; usage shown in the month and the hour's history; everything accepted written on a clean shutdown.
 */
import { assert, describe, it, layer, type Vitest } from "@effect/vitest"
import { UsageStore } from "@tawsil/access"
import { Ids } from "@tawsil/domain"
import { Nonce } from "@tawsil/signing"
import { Context, DateTime, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import * as Tracker from "../src/Tracker.ts"
import type * as TrackerBodies from "../src/TrackerBodies.ts"
import { backends, memoryStores, newStore, sqlStores } from "./Backends.ts"

const callerOf = (storeId: Ids.StoreId, nonce = Nonce.make()): TrackerBodies.Caller => ({
  storeId,
  keyId: "twpub_live_abcdefghijklm",
  nonce
})

const groupsOf = (storeId: Ids.StoreId) =>
  Effect.gen(function* () {
    const usage = yield* UsageStore.UsageStore
    const month = yield* usage.monthUsage(storeId)
    const now = DateTime.makeUnsafe(Date.now())
    const hours = yield* usage.history(
      storeId,
      DateTime.subtractDuration(now, "2 hours"),
      DateTime.addDuration(now, "1 hour")
    )
    return {
      month: Object.fromEntries(month.groups.map((group) => [group.group, [group.total, group.billable]])),
      hours: hours.map((row) => [row.group, row.count, row.billable])
    }
  })

const suite = <R>(it: Vitest.MethodsNonLive<Tracker.Tracker | UsageStore.UsageStore | R>) => {
  it.effect("answers at once, then writes: events once per nonce, signups all, repeats not billable", () =>
    Effect.gen(function* () {
      const tracker = yield* Tracker.Tracker
      const storeId = yield* newStore
      const nonce = Nonce.make()
      const answers = yield* Effect.all(
        [
          tracker.event(callerOf(storeId, nonce), { event: "page_view" }),
          tracker.event(callerOf(storeId, nonce), { event: "page_view" }),
          tracker.event(callerOf(storeId), { event: "add_to_cart", user_id: "u_1", properties: { product_id: 7 } }),
          tracker.signup(callerOf(storeId), { user: { id: "u_1", email: "amina@example.dz" } }),
          tracker.signup(callerOf(storeId), { user: { id: "u_1" } }),
          tracker.signup(callerOf(storeId), { user: { id: "u_2" } })
        ],
        { concurrency: "unbounded" }
      )
      for (const answer of answers) assert.deepStrictEqual(answer, { accepted: true })
      yield* tracker.flush
      // The same nonce again later, in another batch: still a duplicate.
      yield* tracker.event(callerOf(storeId, nonce), { event: "page_view" })
      yield* tracker.signup(callerOf(storeId), { user: { id: "u_2" } })
      yield* tracker.flush
      const usage = yield* groupsOf(storeId)
      assert.deepStrictEqual(usage.month, { event: [2, 2], signup: [4, 2] })
      assert.deepStrictEqual(usage.hours, [
        ["event", 2, 2],
        ["signup", 4, 2]
      ])
    })
  )

  it.effect("keeps stores apart: one nonce in two stores is two events", () =>
    Effect.gen(function* () {
      const tracker = yield* Tracker.Tracker
      const [one, two] = [yield* newStore, yield* newStore]
      const nonce = Nonce.make()
      yield* tracker.event(callerOf(one, nonce), { event: "e" })
      yield* tracker.event(callerOf(two, nonce), { event: "e" })
      yield* tracker.signup(callerOf(one), { user: { id: "same" } })
      yield* tracker.signup(callerOf(two), { user: { id: "same" } })
      yield* tracker.flush
      for (const store of [one, two]) {
        assert.deepStrictEqual((yield* groupsOf(store)).month, { event: [1, 1], signup: [1, 1] })
      }
    })
  )

  it.effect("a batch writes and counts each item as its single call would, refused items queueing nothing", () =>
    Effect.gen(function* () {
      const tracker = yield* Tracker.Tracker
      const storeId = yield* newStore
      const caller = callerOf(storeId)
      const batch = {
        events: [
          { event: "page_view" },
          { event: "" },
          { event: "page_view" },
          { event: "add_to_cart", user_id: "u_1" }
        ]
      }
      const events = yield* tracker.events(caller, batch)
      assert.deepStrictEqual(
        [events.accepted, events.rejected.map(({ index, reason }) => [index, reason._tag])],
        [3, [[1, "InvalidEvent"]]]
      )
      const signups = yield* tracker.signups(callerOf(storeId), {
        signups: [{ user: { id: "u_1" } }, { user: { id: "u_1" } }, { user: 7 }, { user: { id: "u_2" } }]
      })
      assert.deepStrictEqual([signups.accepted, signups.rejected.map(({ index }) => index)], [3, [2]])
      yield* tracker.flush
      // Two equal page views in one batch are two events; a user's repeat in one batch is not billable.
      assert.deepStrictEqual((yield* groupsOf(storeId)).month, { event: [3, 3], signup: [3, 2] })
      // The same batch again under the same nonce (past its hour, or from another key): deduplicated item by item.
      const again = yield* tracker.events(caller, batch)
      assert.deepStrictEqual([again.accepted, again.rejected.length], [3, 1])
      yield* tracker.flush
      assert.deepStrictEqual((yield* groupsOf(storeId)).month, { event: [3, 3], signup: [3, 2] })
      // A single call with the batch's nonce is another event: a batch's items never take the call's own nonce.
      yield* tracker.event(caller, { event: "page_view" })
      yield* tracker.flush
      assert.deepStrictEqual((yield* groupsOf(storeId)).month, { event: [4, 4], signup: [3, 2] })
    })
  )

  it.effect("refuses a body that is not a batch as a whole, queueing nothing", () =>
    Effect.gen(function* () {
      const tracker = yield* Tracker.Tracker
      const storeId = yield* newStore
      for (const body of [{ events: [] }, { events: "x" }, [{ event: "e" }], { signups: [{ event: "e" }] }]) {
        const refused = yield* Effect.flip(tracker.events(callerOf(storeId), body))
        assert.strictEqual(refused.reason._tag, "InvalidBatch", JSON.stringify(body))
      }
      const many = Array.from({ length: 501 }, (_, i) => ({ user: { id: `u_${i}` } }))
      assert.strictEqual(
        (yield* Effect.flip(tracker.signups(callerOf(storeId), { signups: many }))).reason._tag,
        "InvalidBatch"
      )
      yield* tracker.flush
      assert.deepStrictEqual((yield* groupsOf(storeId)).month, {})
    })
  )

  it.effect("refuses a bad body before queueing anything", () =>
    Effect.gen(function* () {
      const tracker = yield* Tracker.Tracker
      const storeId = yield* newStore
      const bad = yield* Effect.flip(tracker.event(callerOf(storeId), { event: "" }))
      assert.strictEqual(bad.reason._tag, "InvalidEvent")
      const badSignup = yield* Effect.flip(tracker.signup(callerOf(storeId), { user: {} }))
      assert.strictEqual(badSignup.reason._tag, "InvalidSignup")
      yield* tracker.flush
      assert.deepStrictEqual((yield* groupsOf(storeId)).month, {})
    })
  )
}

describe("Tracker", () => {
  layer(Tracker.layer().pipe(Layer.provideMerge(memoryStores)), { excludeTestServices: true })("memory", (it) =>
    suite(it)
  )

  for (const backend of backends) {
    const stores = sqlStores(backend)
    layer(Tracker.layer().pipe(Layer.provideMerge(stores)), { excludeTestServices: true, timeout: "90 seconds" })(
      `sql (${backend.name})`,
      (it) => {
        suite(it)

        it.effect("loses nothing of N batches sent at once: every accepted item written and counted", () =>
          Effect.gen(function* () {
            const tracker = yield* Tracker.Tracker
            const storeId = yield* newStore
            // 24 batches of 500 at once: more than the queue's capacity (10 000) waits for room, as callers do.
            const answers = yield* Effect.forEach(
              Array.from({ length: 24 }, (_, b) => b),
              (b) =>
                Effect.all([
                  tracker.events(callerOf(storeId), {
                    events: Array.from({ length: 500 }, (_, i) =>
                      i % 97 === 0 ? { event: "bad event" } : { event: "view", properties: { b, i } }
                    )
                  }),
                  tracker.signups(callerOf(storeId), {
                    signups: Array.from({ length: 25 }, (_, i) => ({ user: { id: `u_${i % 20}` }, source: `b${b}` }))
                  })
                ]),
              { concurrency: "unbounded" }
            )
            const acceptedEvents = answers.reduce((sum, [events]) => sum + events.accepted, 0)
            const rejectedEvents = answers.reduce((sum, [events]) => sum + events.rejected.length, 0)
            assert.deepStrictEqual([acceptedEvents, rejectedEvents], [24 * 494, 24 * 6])
            yield* tracker.flush
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ readonly events: number; readonly signups: number; readonly billable: number }>`
              SELECT (SELECT count(*)::int FROM tracked_events WHERE store_id = ${storeId}) AS events,
                (SELECT count(*)::int FROM tracked_signups WHERE store_id = ${storeId}) AS signups,
                (SELECT count(*)::int FROM tracked_signups WHERE store_id = ${storeId} AND billable) AS billable`.pipe(
              Effect.orDie
            )
            assert.deepStrictEqual(row, { events: acceptedEvents, signups: 24 * 25, billable: 20 })
            assert.deepStrictEqual((yield* groupsOf(storeId)).month, {
              event: [acceptedEvents, acceptedEvents],
              signup: [24 * 25, 20]
            })
          })
        )

        it.effect("writes everything accepted when it shuts down cleanly", () =>
          Effect.gen(function* () {
            const storeId = yield* newStore
            const scope = yield* Scope.make()
            const tracker = yield* Layer.buildWithScope(Tracker.layer({ batchSize: 50 }), scope).pipe(
              Effect.map((context) => Context.get(context, Tracker.Tracker))
            )
            yield* Effect.forEach(
              Array.from({ length: 1000 }, (_, i) => i),
              (i) => tracker.event(callerOf(storeId), { event: "view", properties: { i } }),
              { concurrency: 50 }
            )
            yield* Scope.close(scope, Exit.void)
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ readonly events: number }>`
              SELECT count(*)::int AS events FROM tracked_events WHERE store_id = ${storeId}`.pipe(Effect.orDie)
            assert.strictEqual(row!.events, 1000)
            assert.deepStrictEqual((yield* groupsOf(storeId)).month, { event: [1000, 1000] })
          })
        )
      }
    )
  }

  it("counts usage by the rules: events newly recorded, signups all, firsts billable", () => {
    const at = DateTime.makeUnsafe(0)
    const storeId = Ids.StoreId.make(1)
    const event = {
      storeId,
      keyId: "k",
      nonce: "n",
      event: "e",
      userId: null,
      properties: {},
      occurredAt: at,
      receivedAt: at
    }
    const signup = {
      storeId,
      keyId: "k",
      nonce: "n",
      userId: "u",
      email: null,
      phone: null,
      name: null,
      source: null,
      properties: {},
      signedUpAt: at,
      receivedAt: at
    }
    assert.deepStrictEqual(
      Tracker.usageOf([event, event], [true, false], [signup, signup], [true, false]).map((i) => [
        i.group,
        i.total,
        i.billable
      ]),
      [
        ["event", 1, 1],
        ["signup", 1, 1],
        ["signup", 1, 0]
      ]
    )
  })
})
