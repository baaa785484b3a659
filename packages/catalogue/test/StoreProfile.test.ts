import { assert, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as StoreProfile from "../src/StoreProfile.ts"
import * as StoreProfileStore from "../src/StoreProfileStore.ts"
import * as StoreProfileStoreSql from "../src/StoreProfileStoreSql.ts"
import { backends, migrated } from "./Backends.ts"
import { StoreProfileSuite, stores } from "./StoreProfileSuite.ts"

layer(StoreProfile.layer.pipe(Layer.provide(StoreProfileStore.layerMemory(stores))))("StoreProfile (memory)", (it) => {
  StoreProfileSuite(it)
})

/** The suite's stores as rows of `stores`, written as the dashboard would. */
const seeded = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const store of stores) {
      yield* sql`
        INSERT INTO stores ${sql.insert({
          id: store.id,
          name: store.name,
          slug: store.slug,
          language: store.language,
          description: store.description,
          logo: store.logo,
          favicon: store.favicon,
          banner: store.banner,
          theme: JSON.stringify(store.theme),
          subdomain: store.subdomain,
          custom_domain: store.custom_domain,
          custom_domain_verified: store.custom_domain_verified,
          hide_branding: store.hide_branding,
          created_at: DateTime.formatIso(store.created_at)
        })}`
    }
  }).pipe(Effect.orDie)
)

for (const backend of backends) {
  const database = migrated(backend)
  const services = StoreProfile.layer.pipe(
    Layer.provideMerge(StoreProfileStoreSql.layer),
    Layer.provideMerge(seeded),
    Layer.provideMerge(database)
  )
  layer(services, { excludeTestServices: true, timeout: "90 seconds" })(`StoreProfile (sql, ${backend.name})`, (it) => {
    StoreProfileSuite(it)

    it.effect("a store row with the table's defaults reads with the default theme; missing theme keys too", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const profile = yield* StoreProfile.StoreProfile
        yield* sql`INSERT INTO stores (id, name, slug) VALUES (10, 'Nouvelle', 'nouvelle')`
        yield* sql`
          INSERT INTO stores (id, name, slug, theme) VALUES (11, 'Partielle', 'partielle', '{"primary_color":"#111111"}')`
        const fresh = yield* profile.get(Ids.StoreId.make(10))
        assert.deepStrictEqual(
          { ...fresh.theme },
          {
            primary_color: "#1f2937",
            secondary_color: "#f59e0b",
            background_color: "#ffffff",
            font_family: "Cairo"
          }
        )
        assert.deepStrictEqual(
          [fresh.language, fresh.public_url, fresh.custom_domain_verified, fresh.hide_branding],
          ["ar", null, false, false]
        )
        const partial = yield* profile.get(Ids.StoreId.make(11))
        assert.deepStrictEqual([partial.theme.primary_color, partial.theme.font_family], ["#111111", "Cairo"])
      })
    )
  })
}
