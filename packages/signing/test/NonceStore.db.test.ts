import { layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import * as NonceStore from "../src/NonceStore.ts"
import { backends, sqlStore } from "./Backends.ts"
import { NonceStoreSuite } from "./NonceStoreSuite.ts"

layer(NonceStore.layerMemory)("NonceStore (memory)", (it) => {
  NonceStoreSuite(it, TestClock.adjust)
})

// The SQL store reads the database clock, so time passes by moving every stored expiry back.
const elapseSql = (duration: Duration.Input) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seconds = Duration.toMillis(Duration.fromInputUnsafe(duration)) / 1000
    yield* sql`UPDATE signing_nonces SET expires_at = expires_at - make_interval(secs => ${seconds})`
  }).pipe(Effect.orDie)

for (const backend of backends) {
  layer(sqlStore(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `NonceStore (sql, ${backend.name})`,
    (it) => {
      NonceStoreSuite(it, elapseSql)
    }
  )
}
