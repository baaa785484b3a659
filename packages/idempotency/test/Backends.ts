/**
 * The databases of `TestDatabase` (embedded always, the real server with `DATABASE_URL`), migrated, under the SQL
 * store and the `Idempotency` service.
 */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as Idempotency from "../src/Idempotency.ts"
import * as IdempotencyStoreSql from "../src/IdempotencyStoreSql.ts"

export const backends = TestDatabase.backends

export const migrated = TestDatabase.migrated

export const sqlStore = (backend: TestDatabase.Backend) => {
  const database = migrated(backend)
  const store = IdempotencyStoreSql.layer.pipe(Layer.provideMerge(database))
  return Idempotency.layer().pipe(Layer.provideMerge(store))
}
