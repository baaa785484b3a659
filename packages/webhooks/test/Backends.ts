/**
 * The stores under test: in memory, and on the databases of `TestDatabase` (embedded always, the real server with
 * `DATABASE_URL`), migrated, with a store row to hang subscriptions on.
 */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as WebhookStoreSql from "../src/WebhookStoreSql.ts"

export const backends = TestDatabase.backends

export const migrated = TestDatabase.migrated

export const sqlStore = (backend: TestDatabase.Backend) =>
  WebhookStoreSql.layer.pipe(Layer.provideMerge(migrated(backend)))

let stores = 0

/** A new store row (SQL); memory stores need none. */
export const newStore = Effect.gen(function* () {
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (sql._tag === "None") return ++stores + 1000
  return yield* TestDatabase.newStore().pipe(Effect.provideService(SqlClient.SqlClient, sql.value))
})
