import { layer } from "@effect/vitest"
import { Clock, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as Access from "../src/Access.ts"
import { AccessSuite } from "./AccessSuite.ts"
import { backends, memoryStores, migrated, services, sqlStores } from "./Backends.ts"

const MINUTE = 60_000

// Today's Algiers (the zone's offset was not +01:00 in 1970, where the test clock starts).
const today = Layer.effectDiscard(TestClock.setTime(Date.parse("2026-11-21T09:30:00Z")))

layer(services(memoryStores).pipe(Layer.provideMerge(today)))("Access (memory)", (it) => {
  AccessSuite(it, {
    pastCacheTtl: TestClock.adjust(Duration.sum(Access.CACHE_TTL, Duration.seconds(1))),
    nextMinute: () => TestClock.adjust("1 minute"),
    steady: Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now % MINUTE > MINUTE - 5_000 ? TestClock.adjust(MINUTE - (now % MINUTE)) : Effect.void
    ),
    settle: Effect.repeat(Effect.yieldNow, { times: 10 })
  })
})

// The SQL stores count on the database clock, which tests cannot move: they wait for the live clock instead, and
// a new minute is a store whose windows are forgotten.
const CACHE_TTL = Duration.millis(300)

for (const backend of backends) {
  layer(services(sqlStores, { cacheTtl: CACHE_TTL }).pipe(Layer.provideMerge(migrated(backend))), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(`Access (sql, ${backend.name})`, (it) => {
    AccessSuite(it, {
      pastCacheTtl: Effect.sleep(Duration.sum(CACHE_TTL, Duration.millis(100))),
      nextMinute: (storeId) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`DELETE FROM rate_windows WHERE store_id = ${storeId}`.pipe(Effect.orDie, Effect.asVoid)
        ),
      steady: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now % MINUTE > MINUTE - 5_000 ? Effect.sleep(MINUTE - (now % MINUTE) + 100) : Effect.void
      ),
      settle: Effect.sleep("300 millis")
    })
  })
}
