/**
 * The catalogue's services over each implementation of its ports: memory, and SQL on every database of
 * `TestDatabase` (embedded always, the real server with `DATABASE_URL`), migrated.
 */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as CategoryStore from "../src/CategoryStore.ts"
import * as CategoryStoreSql from "../src/CategoryStoreSql.ts"
import * as LandingPageStore from "../src/LandingPageStore.ts"
import * as LandingPageStoreSql from "../src/LandingPageStoreSql.ts"
import * as LandingPages from "../src/LandingPages.ts"
import * as ProductStore from "../src/ProductStore.ts"
import * as ProductStoreSql from "../src/ProductStoreSql.ts"
import * as Products from "../src/Products.ts"
import * as Fixtures from "./Fixtures.ts"

export const backends = TestDatabase.backends

export const migrated = TestDatabase.migrated

const services = Layer.mergeAll(Products.layer, LandingPages.layer)

/** `Products` and `LandingPages` over the memory stores. */
export const memory = services.pipe(
  Layer.provideMerge(CategoryStore.layerMemory),
  Layer.provideMerge(Layer.mergeAll(ProductStore.layerMemory, LandingPageStore.layerMemory, Fixtures.layerMemory))
)

/** `Products` and `LandingPages` over the SQL stores, on a fresh database of `backend`. */
export const sql = (backend: TestDatabase.Backend) =>
  services.pipe(
    Layer.provideMerge(
      Layer.mergeAll(ProductStoreSql.layer, CategoryStoreSql.layer, LandingPageStoreSql.layer, Fixtures.layerSql)
    ),
    Layer.provideMerge(migrated(backend))
  )
