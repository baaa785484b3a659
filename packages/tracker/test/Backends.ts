/**
 * The stores under test: in memory, and on the databases of `TestDatabase` (embedded always, the real server with
 * `DATABASE_URL`), migrated.
 */
import { UsageStore, UsageStoreSql } from "@tawsil/access"
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as TrackerStore from "../src/TrackerStore.ts"
import * as TrackerStoreSql from "../src/TrackerStoreSql.ts"

export const backends = TestDatabase.backends

export const migrated = TestDatabase.migrated

export const memoryStores = Layer.mergeAll(TrackerStore.layerMemory, UsageStore.layerMemory)

export const sqlStores = (backend: TestDatabase.Backend) =>
  Layer.mergeAll(TrackerStoreSql.layer, UsageStoreSql.layer).pipe(Layer.provideMerge(migrated(backend)))

let stores = 0

/** A new store (a row on SQL; memory stores need none). */
export const newStore = Effect.gen(function* () {
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (sql._tag === "None") return Ids.StoreId.make(++stores + 1000)
  return Ids.StoreId.make(yield* TestDatabase.newStore().pipe(Effect.provideService(SqlClient.SqlClient, sql.value)))
})
