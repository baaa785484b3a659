/**
 * The stores under test: in memory, and on the databases of `TestDatabase` (embedded always, the real server with
 * `DATABASE_URL`), migrated.
 */
import { UsageStore, UsageStoreSql } from "@tawsil/access"
import { Ids } from "@tawsil/domain"
import { Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as TrackerStore from "../src/TrackerStore.ts"
import * as TrackerStoreSql from "../src/TrackerStoreSql.ts"

export const backends = TestDatabase.backends

export const migrated = (backend: TestDatabase.Backend) =>
  Migrations.layer.pipe(Layer.provideMerge(backend.layer), Layer.orDie)

export const memoryStores = Layer.mergeAll(TrackerStore.layerMemory, UsageStore.layerMemory)

export const sqlStores = (backend: TestDatabase.Backend) =>
  Layer.mergeAll(TrackerStoreSql.layer, UsageStoreSql.layer).pipe(Layer.provideMerge(migrated(backend)))

let stores = 0

/** A new store (a row on SQL; memory stores need none). */
export const newStore = Effect.gen(function* () {
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (sql._tag === "None") return Ids.StoreId.make(++stores + 1000)
  const name = `tracker-${++stores}-${Math.random().toString(36).slice(2, 8)}`
  const [row] = yield* sql.value<{ readonly id: number }>`
    INSERT INTO stores (name, slug) VALUES (${name}, ${name}) RETURNING id`.pipe(Effect.orDie)
  return Ids.StoreId.make(row!.id)
})
