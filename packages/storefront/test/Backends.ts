/**
 * The storefront services over each implementation of the port: memory, and SQL on every database of `TestDatabase`
 * (embedded always, the real server with `DATABASE_URL`), migrated; with the change history and the storefront's
 * entities registered, as the app wires them.
 */
import { ChangeLog, ChangeStore, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, type DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as Design from "../src/Design.ts"
import * as DesignEntity from "../src/DesignEntity.ts"
import * as HomeLayout from "../src/HomeLayout.ts"
import * as HomeLayoutEntity from "../src/HomeLayoutEntity.ts"
import * as HomeSections from "../src/HomeSections.ts"
import * as HomeSectionsEntity from "../src/HomeSectionsEntity.ts"
import type { PixelId } from "../src/Pixel.ts"
import * as PixelEntity from "../src/PixelEntity.ts"
import * as Pixels from "../src/Pixels.ts"
import * as Settings from "../src/Settings.ts"
import * as SettingsEntity from "../src/SettingsEntity.ts"
import * as StorefrontStore from "../src/StorefrontStore.ts"
import * as StorefrontStoreSql from "../src/StorefrontStoreSql.ts"
import * as ThemeEntity from "../src/ThemeEntity.ts"
import * as Themes from "../src/Themes.ts"

export const backends = TestDatabase.backends

export interface NewStore {
  readonly plan?: string
  readonly planExpiresAt?: DateTime.Utc | null
  readonly language?: "ar" | "fr"
  readonly name?: string
}

export class Fixtures extends Context.Service<
  Fixtures,
  {
    readonly newStore: (settings?: NewStore) => Effect.Effect<Ids.StoreId>
    /** As billing changes it. */
    readonly setPlan: (storeId: Ids.StoreId, plan: string) => Effect.Effect<void>
    /** As the dashboard sets it. */
    readonly setTestEventCode: (id: PixelId, code: string | null) => Effect.Effect<void>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("test/storefront/Fixtures") {}

const fixturesMemory = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const stores = yield* StorefrontStore.MemoryStores
    let last = 0
    return Fixtures.of({
      newStore: (settings = {}) =>
        Effect.suspend(() => {
          const id = Ids.StoreId.make(++last)
          return Effect.as(
            stores.add(id, { ...settings, name: settings.name ?? `store-${id}`, slug: `store-${id}` }),
            id
          )
        }),
      setPlan: (storeId, plan) => stores.setPlan(storeId, plan),
      setTestEventCode: stores.setTestEventCode,
      transaction: (effect) => effect
    })
  })
)

const fixturesSql = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return Fixtures.of({
      newStore: (settings = {}) =>
        TestDatabase.newStore({
          plan: settings.plan ?? "enterprise",
          plan_expires_at: settings.planExpiresAt ? new Date(settings.planExpiresAt.epochMilliseconds) : null,
          language: settings.language ?? "ar",
          ...(settings.name === undefined ? {} : { name: settings.name })
        }).pipe(Effect.map(Ids.StoreId.make), Effect.provideService(SqlClient.SqlClient, sql)),
      setPlan: (storeId, plan) =>
        sql`UPDATE stores SET plan = ${plan} WHERE id = ${storeId}`.pipe(Effect.asVoid, Effect.orDie),
      setTestEventCode: (id, code) =>
        sql`UPDATE pixels SET test_event_code = ${code} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
      transaction: TestDatabase.transaction(sql)
    })
  })
)

const services = <E, R>(stores: Layer.Layer<StorefrontStore.StorefrontStore | ChangeStore.ChangeStore, E, R>) =>
  Layer.mergeAll(
    Themes.layer,
    Pixels.layer,
    Settings.layer,
    Design.layer,
    HomeSections.layer,
    HomeLayout.layer,
    Changes.layer
  ).pipe(
    Layer.provide(
      Entity.layer(
        ThemeEntity.entity,
        PixelEntity.entity,
        SettingsEntity.entity,
        DesignEntity.entity,
        HomeSectionsEntity.entity,
        HomeLayoutEntity.entity
      )
    ),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(stores)
  )

export const memory = services(Layer.merge(StorefrontStore.layerMemory, ChangeStore.layerMemory)).pipe(
  Layer.provideMerge(fixturesMemory),
  Layer.provideMerge(StorefrontStore.layerMemory)
)

export const sql = (backend: TestDatabase.Backend) =>
  services(Layer.merge(StorefrontStoreSql.layer, ChangeStoreSql.layer)).pipe(
    Layer.provideMerge(fixturesSql),
    Layer.provideMerge(TestDatabase.migrated(backend))
  )
