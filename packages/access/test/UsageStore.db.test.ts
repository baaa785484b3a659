import { assert, layer, type Vitest } from "@effect/vitest"
import type { Ids } from "@tawsil/domain"
import { Clock, DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { KeyStore } from "../src/KeyStore.ts"
import { UsageStore } from "../src/UsageStore.ts"
import { backends, memoryStores, migrated, sqlStores } from "./Backends.ts"

interface Seeds<R> {
  /** Records `count` requests of the store `hoursAgo` hours back (0: this hour), or last month. */
  readonly requests: (
    storeId: Ids.StoreId,
    when: "earlier this month" | "last month",
    count: number
  ) => Effect.Effect<void, never, R>
  /** A window of the store that started `minutesAgo` minutes back. */
  readonly window: (storeId: Ids.StoreId, minutesAgo: number) => Effect.Effect<void, never, R>
  /** The minute has a few seconds left. */
  readonly steady: Effect.Effect<void, never, R>
}

let stores = 0

const newStore = Effect.gen(function* () {
  const keys = yield* KeyStore
  const created = yield* keys.createStore(
    { name: "Usage", slugBase: `usage-${++stores}`, plan: "enterprise", pilot: true, language: "ar" },
    {
      keyId: `twpk_live_usage${String(stores).padStart(9, "0")}`,
      type: "platform",
      name: "default",
      scopes: [],
      rateLimitTier: "enterprise",
      pilot: true,
      status: "active",
      secretSha256: "0".repeat(64),
      signingSecret: null
    }
  )
  return created.store.id
})

const UsageStoreSuite = <R>(it: Vitest.MethodsNonLive<UsageStore | KeyStore | R>, seeds: Seeds<R>) => {
  it.effect("counts each call in the store's window and in the month, atomically", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      const other = yield* newStore
      yield* seeds.steady
      const counts = yield* Effect.forEach([1, 2, 3], () => usage.meter(storeId, { month: true }))
      assert.deepStrictEqual(
        counts.map((count) => [count.windowCount, count.monthCount]),
        [
          [1, 1],
          [2, 2],
          [3, 3]
        ]
      )
      const unasked = yield* usage.meter(storeId, { month: false })
      assert.deepStrictEqual([unasked.windowCount, unasked.monthCount], [4, null])
      assert.strictEqual((yield* usage.meter(other, { month: true })).windowCount, 1)
      const month = yield* usage.monthUsage(storeId)
      assert.deepStrictEqual(month.groups, [{ group: "request", total: 4, billable: 0 }])
    })
  )

  it.effect("counts a signed call in the store's window only, shared with its other calls, never as a request", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      yield* seeds.steady
      const signed = yield* usage.meterWindow(storeId)
      assert.strictEqual(signed.windowCount, 1)
      assert.isTrue(signed.resetSeconds >= 1 && signed.resetSeconds <= 60)
      const keyed = yield* usage.meter(storeId, { month: true })
      assert.deepStrictEqual([keyed.windowCount, keyed.monthCount], [2, 1])
      assert.strictEqual((yield* usage.meterWindow(storeId)).windowCount, 3)
      assert.deepStrictEqual((yield* usage.monthUsage(storeId)).groups, [{ group: "request", total: 1, billable: 0 }])
    })
  )

  it.effect("counts concurrent signed calls of two stores exactly: each call its own count, none twice", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const [storeId, other] = [yield* newStore, yield* newStore]
      yield* seeds.steady
      const counts = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, n) => (n % 3 === 0 ? other : storeId)),
        (store) => Effect.map(usage.meterWindow(store), (count) => [store, count.windowCount] as const),
        { concurrency: "unbounded" }
      )
      const of = (store: typeof storeId) =>
        counts.flatMap(([s, count]) => (s === store ? [count] : [])).sort((a, b) => a - b)
      assert.deepStrictEqual(
        of(storeId),
        Array.from({ length: 20 }, (_, n) => n + 1)
      )
      assert.deepStrictEqual(
        of(other),
        Array.from({ length: 10 }, (_, n) => n + 1)
      )
      assert.strictEqual((yield* usage.meterWindow(storeId)).windowCount, 21)
    })
  )

  it.effect("sums the month's earlier hours, never last month's", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      yield* seeds.requests(storeId, "earlier this month", 40)
      yield* seeds.requests(storeId, "last month", 500)
      const count = yield* usage.meter(storeId, { month: true })
      assert.strictEqual(count.monthCount, 41)
      assert.strictEqual(count.windowCount, 1)
      assert.deepStrictEqual((yield* usage.monthUsage(storeId)).groups, [{ group: "request", total: 41, billable: 0 }])
    })
  )

  it.effect("adds counted signups and events to the hour's usage, shown in the month and the history", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      yield* seeds.steady
      const now = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
      yield* usage.count([
        { storeId, group: "signup", at: now, total: 1, billable: 1 },
        { storeId, group: "signup", at: now, total: 1, billable: 0 },
        { storeId, group: "event", at: now, total: 3, billable: 3 }
      ])
      yield* usage.count([{ storeId, group: "event", at: now, total: 2, billable: 2 }])
      yield* usage.count([])
      const month = yield* usage.monthUsage(storeId)
      assert.deepStrictEqual(
        month.groups.filter((group) => group.group !== "request"),
        [
          { group: "event", total: 5, billable: 5 },
          { group: "signup", total: 2, billable: 1 }
        ]
      )
      const hour = DateTime.subtractDuration(now, "1 hour")
      const rows = yield* usage.history(storeId, hour, DateTime.addDuration(now, "1 hour"))
      assert.deepStrictEqual(
        rows.map((row) => [row.group, row.count, row.billable]),
        [
          ["event", 5, 5],
          ["signup", 2, 1]
        ]
      )
    })
  )

  it.effect("purges the windows older than an hour only", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      yield* usage.purgeWindows
      yield* seeds.window(storeId, 61)
      yield* seeds.window(storeId, 90)
      yield* seeds.window(storeId, 59)
      assert.strictEqual(yield* usage.purgeWindows, 2)
      assert.strictEqual(yield* usage.purgeWindows, 0)
    })
  )

  it.effect("changes only the override fields it is given; null falls back to the tier", () =>
    Effect.gen(function* () {
      const usage = yield* UsageStore
      const storeId = yield* newStore
      assert.isTrue(Option.isNone(yield* usage.findOverride(storeId)))
      yield* usage.setOverride(storeId, { requestsPerMinute: 30 })
      const both = yield* usage.setOverride(storeId, { requestsPerMonth: 1000 })
      assert.deepInclude(both, { storeId, requestsPerMinute: 30, requestsPerMonth: 1000, signupsPerMonth: null })
      const cleared = yield* usage.setOverride(storeId, { requestsPerMinute: null })
      assert.deepInclude(cleared, { requestsPerMinute: null, requestsPerMonth: 1000 })
      assert.deepStrictEqual(Option.getOrThrow(yield* usage.findOverride(storeId)), cleared)
    })
  )
}

const MINUTE = 60_000
const HOUR = 3_600_000

// Mid-month, mid-hour in Algiers: earlier hours of the month exist.
const today = Layer.effectDiscard(TestClock.setTime(Date.parse("2026-11-21T09:30:00Z")))

const at = <A, E, R>(millis: number, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* TestClock.setTime(millis)
    const result = yield* effect
    yield* TestClock.setTime(now)
    return result
  })

layer(memoryStores.pipe(Layer.provideMerge(today)))("UsageStore (memory)", (it) => {
  UsageStoreSuite(it, {
    requests: (storeId, when, count) =>
      Effect.gen(function* () {
        const usage = yield* UsageStore
        const now = yield* Clock.currentTimeMillis
        const back = when === "last month" ? 30 * 24 * HOUR : 3 * HOUR
        yield* at(now - back, Effect.repeat(usage.meter(storeId, { month: false }), { times: count - 1 }))
      }),
    window: (storeId, minutesAgo) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(UsageStore, (usage) => at(now - minutesAgo * MINUTE, usage.meter(storeId, { month: false })))
      ),
    steady: Effect.void
  })
})

const sqlSeeds: Seeds<SqlClient.SqlClient> = {
  requests: (storeId, when, count) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Earlier this month: an hour back, or this very hour in the month's first hour.
      const hour =
        when === "last month"
          ? sql`date_trunc('month', now(), 'Africa/Algiers') - interval '1 hour'`
          : sql`greatest(date_trunc('month', now(), 'Africa/Algiers'), date_trunc('hour', now()) - interval '1 hour')`
      yield* sql`
        INSERT INTO usage_hourly (store_id, period_hour, endpoint_group, count, billable_count)
        VALUES (${storeId}, ${hour}, 'request', ${count}, 0)`
    }).pipe(Effect.orDie),
  window: (storeId, minutesAgo) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`
        INSERT INTO rate_windows (store_id, window_start, count)
        VALUES (${storeId}, date_trunc('minute', now()) - make_interval(mins => ${minutesAgo}), 1)`
    }).pipe(Effect.orDie),
  steady: Effect.flatMap(Clock.currentTimeMillis, (now) =>
    now % MINUTE > MINUTE - 5_000 ? Effect.sleep(MINUTE - (now % MINUTE) + 100) : Effect.void
  )
}

for (const backend of backends) {
  layer(sqlStores.pipe(Layer.provideMerge(migrated(backend))), { excludeTestServices: true, timeout: "90 seconds" })(
    `UsageStore (sql, ${backend.name})`,
    (it) => {
      UsageStoreSuite(it, sqlSeeds)
    }
  )
}
