/** The databases of `TestDatabase` (embedded always, the real server with `DATABASE_URL`), migrated, under the SQL nonce store. */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as NonceStoreSql from "../src/NonceStoreSql.ts"

export const backends = TestDatabase.backends

export const sqlStore = (backend: TestDatabase.Backend) =>
  NonceStoreSql.layer.pipe(Layer.provideMerge(TestDatabase.migrated(backend)))
