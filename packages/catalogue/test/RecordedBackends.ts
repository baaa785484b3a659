/**
 * The catalogue's recorded services — `Categories`, `Inventory`, and `Products` beside them — over each implementation
 * of the ports: memory, and SQL on every database of `TestDatabase` (embedded always, the real server with
 * `DATABASE_URL`), migrated; with the change history and the `category` and `stock` entities registered, as the app
 * wires them.
 */
import { ChangeLog, ChangeStore, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as Categories from "../src/Categories.ts"
import * as CategoryEntity from "../src/CategoryEntity.ts"
import * as CategoryStore from "../src/CategoryStore.ts"
import * as CategoryStoreSql from "../src/CategoryStoreSql.ts"
import * as Inventory from "../src/Inventory.ts"
import * as ProductStore from "../src/ProductStore.ts"
import * as ProductStoreSql from "../src/ProductStoreSql.ts"
import * as Products from "../src/Products.ts"
import * as StockEntity from "../src/StockEntity.ts"
import * as Fixtures from "./Fixtures.ts"

export const backends = TestDatabase.backends

const services = <E, R>(
  stores: Layer.Layer<
    ProductStore.ProductStore | CategoryStore.CategoryStore | ChangeStore.ChangeStore | Fixtures.Fixtures,
    E,
    R
  >
) =>
  Layer.mergeAll(Categories.layer, Inventory.layer, Products.layer, Changes.layer).pipe(
    Layer.provide(Entity.layer(CategoryEntity.entity, StockEntity.entity)),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(stores)
  )

export const memory = services(
  CategoryStore.layerMemory.pipe(
    Layer.provideMerge(Layer.mergeAll(ProductStore.layerMemory, ChangeStore.layerMemory, Fixtures.layerMemory))
  )
)

export const sql = (backend: TestDatabase.Backend) =>
  services(Layer.mergeAll(ProductStoreSql.layer, CategoryStoreSql.layer, ChangeStoreSql.layer, Fixtures.layerSql)).pipe(
    Layer.provideMerge(TestDatabase.migrated(backend))
  )
