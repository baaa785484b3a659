/**
 * The promo services over each implementation of the ports: memory, and SQL on every database of `TestDatabase`
 * (embedded always, the real server with `DATABASE_URL`), migrated; with the change history and the `promo_code`
 * entity registered, as the app wires them.
 */
import { ChangeLog, ChangeStore, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PromoAddon from "../src/PromoAddon.ts"
import * as PromoEntity from "../src/PromoEntity.ts"
import * as PromoStore from "../src/PromoStore.ts"
import * as PromoStoreSql from "../src/PromoStoreSql.ts"
import * as Promos from "../src/Promos.ts"
import * as Redemptions from "../src/Redemptions.ts"

export const backends = TestDatabase.backends

/** A fresh store per test, and a transaction around a write like the HTTP layer's (none in memory). */
export class Fixtures extends Context.Service<
  Fixtures,
  {
    readonly newStore: Effect.Effect<Ids.StoreId>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("test/promos/Fixtures") {}

const fixturesMemory = Layer.sync(Fixtures, () => {
  let last = 0
  return Fixtures.of({ newStore: Effect.sync(() => Ids.StoreId.make(++last)), transaction: (effect) => effect })
})

const fixturesSql = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return Fixtures.of({
      newStore: TestDatabase.newStore().pipe(
        Effect.map(Ids.StoreId.make),
        Effect.provideService(SqlClient.SqlClient, sql)
      ),
      transaction: TestDatabase.transaction(sql)
    })
  })
)

const services = <E, R>(stores: Layer.Layer<PromoStore.PromoStore | ChangeStore.ChangeStore, E, R>) =>
  Layer.mergeAll(Promos.layer, Redemptions.layer, PromoAddon.layer, Changes.layer).pipe(
    Layer.provide(Entity.layer(PromoEntity.entity)),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(stores)
  )

export const memory = services(Layer.merge(PromoStore.layerMemory, ChangeStore.layerMemory)).pipe(
  Layer.provideMerge(fixturesMemory)
)

export const sql = (backend: TestDatabase.Backend) =>
  services(Layer.merge(PromoStoreSql.layer, ChangeStoreSql.layer)).pipe(
    Layer.provideMerge(fixturesSql),
    Layer.provideMerge(TestDatabase.migrated(backend))
  )
