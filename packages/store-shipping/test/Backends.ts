/**
 * The shipping configuration services over each implementation of the port: memory, and SQL on every database of
 * `TestDatabase` (embedded always, the real server with `DATABASE_URL`), migrated; with the change history and the
 * `shipping.rates` and `shipping.settings` entities registered, as the app wires them, and the shipping API's
 * gateway over the test couriers.
 */
import { ChangeLog, ChangeStore, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SettingsFields } from "../src/Settings.ts"
import * as ShippingRates from "../src/ShippingRates.ts"
import * as ShippingRatesEntity from "../src/ShippingRatesEntity.ts"
import * as ShippingSettings from "../src/ShippingSettings.ts"
import * as ShippingSettingsEntity from "../src/ShippingSettingsEntity.ts"
import * as ShippingStore from "../src/ShippingStore.ts"
import * as ShippingStoreSql from "../src/ShippingStoreSql.ts"
import { gateway } from "./TestCourier.ts"

export const backends = TestDatabase.backends

export class Fixtures extends Context.Service<
  Fixtures,
  {
    readonly newStore: Effect.Effect<Ids.StoreId>
    /** As a write the dashboard made: the port's own write, nothing recorded. */
    readonly putSettings: (storeId: Ids.StoreId, settings: SettingsFields) => Effect.Effect<void>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("test/store-shipping/Fixtures") {}

const fixturesMemory = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const store = yield* ShippingStore.ShippingStore
    let last = 0
    return Fixtures.of({
      newStore: Effect.sync(() => Ids.StoreId.make(++last)),
      putSettings: (storeId, settings) => Effect.asVoid(store.putSettings(storeId, settings)),
      transaction: (effect) => effect
    })
  })
)

const fixturesSql = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* ShippingStore.ShippingStore
    return Fixtures.of({
      newStore: TestDatabase.newStore().pipe(
        Effect.map(Ids.StoreId.make),
        Effect.provideService(SqlClient.SqlClient, sql)
      ),
      putSettings: (storeId, settings) => Effect.asVoid(store.putSettings(storeId, settings)),
      transaction: TestDatabase.transaction(sql)
    })
  })
)

const services = <E, R>(
  stores: Layer.Layer<ShippingStore.ShippingStore | ChangeStore.ChangeStore, E, R>,
  snapshotLimit?: number
) =>
  Layer.mergeAll(ShippingRates.layer, ShippingSettings.layer, Changes.layer).pipe(
    Layer.provide(Entity.layer(ShippingRatesEntity.entity, ShippingSettingsEntity.entity)),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(gateway),
    Layer.provideMerge(stores),
    Layer.provide(snapshotLimit === undefined ? Layer.empty : Layer.succeed(ShippingRates.SnapshotLimit, snapshotLimit))
  )

const memoryStores = Layer.merge(ShippingStore.layerMemory, ChangeStore.layerMemory)

/** The services on the memory twins (one instance of each, shared with the fixtures). */
export const memory = (snapshotLimit?: number) =>
  services(memoryStores, snapshotLimit).pipe(Layer.provideMerge(fixturesMemory), Layer.provideMerge(memoryStores))

const sqlStores = Layer.merge(ShippingStoreSql.layer, ChangeStoreSql.layer)

/** The services on a fresh migrated database of `backend`. */
export const sql = (backend: TestDatabase.Backend, snapshotLimit?: number) =>
  services(sqlStores, snapshotLimit).pipe(
    Layer.provideMerge(fixturesSql),
    Layer.provideMerge(sqlStores),
    Layer.provideMerge(TestDatabase.migrated(backend))
  )
