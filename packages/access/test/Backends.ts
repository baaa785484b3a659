/**
 * The stores under test: in memory, and on the databases of `TestDatabase` (embedded always, the real server with
 * `DATABASE_URL`), migrated; with `Access` and `Admin` over them.
 */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as Access from "../src/Access.ts"
import * as AccessEvents from "../src/AccessEvents.ts"
import * as Admin from "../src/Admin.ts"
import * as KeyStore from "../src/KeyStore.ts"
import * as KeyStoreSql from "../src/KeyStoreSql.ts"
import * as UsageStore from "../src/UsageStore.ts"
import * as UsageStoreSql from "../src/UsageStoreSql.ts"

export const backends = TestDatabase.backends

export const memoryStores = Layer.mergeAll(KeyStore.layerMemory, UsageStore.layerMemory)

export const migrated = TestDatabase.migrated

export const sqlStores = Layer.mergeAll(KeyStoreSql.layer, UsageStoreSql.layer)

/**
 * `Access` and `Admin` over `stores`, announcing to each other in memory, keeping the stores in the context for tests
 * that act "elsewhere".
 */
export const services = <E, R>(
  stores: Layer.Layer<KeyStore.KeyStore | UsageStore.UsageStore, E, R>,
  options: Access.Options = {}
) =>
  Layer.mergeAll(Access.layer(options), Admin.layer).pipe(
    Layer.provide(AccessEvents.layerMemory),
    Layer.provideMerge(stores)
  )
