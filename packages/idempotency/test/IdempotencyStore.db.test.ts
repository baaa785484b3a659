import { layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as IdempotencyStore from "../src/IdempotencyStore.ts"
import { backends, sqlStore } from "./Backends.ts"
import { IdempotencyStoreSuite } from "./IdempotencyStoreSuite.ts"

layer(IdempotencyStore.layerMemory)("IdempotencyStore (memory)", (it) => {
  IdempotencyStoreSuite(it, TestClock.adjust)
})

// The SQL store reads the database clock, so time passes by moving every stored expiry back.
const elapseSql = (duration: Duration.Input) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seconds = Duration.toMillis(duration) / 1000
    yield* sql`UPDATE idempotency_keys SET expires_at = expires_at - make_interval(secs => ${seconds})`
  }).pipe(Effect.orDie)

for (const backend of backends) {
  layer(sqlStore(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `IdempotencyStore (sql, ${backend.name})`,
    (it) => {
      IdempotencyStoreSuite(it, elapseSql)
    }
  )
}
