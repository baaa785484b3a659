import { assert, layer } from "@effect/vitest"
import { ChangeLog, ChangeStore, ChangeStoreSql, Changes, Entity } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as LandingPageStore from "../src/LandingPageStore.ts"
import * as LandingPageStoreSql from "../src/LandingPageStoreSql.ts"
import * as LandingPages from "../src/LandingPages.ts"
import * as PageSectionEntity from "../src/PageSectionEntity.ts"
import type * as PageSectionStore from "../src/PageSectionStore.ts"
import * as PageSectionStoreSql from "../src/PageSectionStoreSql.ts"
import * as PageSectionsModule from "../src/PageSections.ts"
import { PageSections } from "../src/PageSections.ts"
import * as ProductStore from "../src/ProductStore.ts"
import * as ProductStoreSql from "../src/ProductStoreSql.ts"
import * as Fixtures from "./Fixtures.ts"
import { PageSectionsSuite } from "./PageSectionsSuite.ts"

const writer = (storeId: Ids.StoreId) => ({ storeId, keyId: null })

/** `PageSections` and `LandingPages` with the change history and the `lp.section` entity, as the app wires them. */
const services = <E, R>(
  stores: Layer.Layer<
    | LandingPageStore.LandingPageStore
    | PageSectionStore.PageSectionStore
    | ProductStore.ProductStore
    | ChangeStore.ChangeStore,
    E,
    R
  >
) =>
  Layer.mergeAll(PageSectionsModule.layer, LandingPages.layer, Changes.layer).pipe(
    Layer.provide(Entity.layer(PageSectionEntity.entity)),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(stores)
  )

const memory = services(
  Layer.mergeAll(LandingPageStore.layerMemory, ProductStore.layerMemory, ChangeStore.layerMemory)
).pipe(Layer.provideMerge(Fixtures.layerMemory))

const sql = (backend: TestDatabase.Backend) =>
  services(
    Layer.mergeAll(LandingPageStoreSql.layer, PageSectionStoreSql.layer, ProductStoreSql.layer, ChangeStoreSql.layer)
  ).pipe(Layer.provideMerge(Fixtures.layerSql), Layer.provideMerge(TestDatabase.migrated(backend)))

layer(memory)("PageSections (memory)", (it) => {
  PageSectionsSuite(it)
})

for (const backend of TestDatabase.backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "120 seconds" })(
    `PageSections (sql, ${backend.name})`,
    (it) => {
      PageSectionsSuite(it)

      it.effect("positions are ranks over the stored sort key; a write numbers the page again", () =>
        Effect.gen(function* () {
          const sections = yield* PageSections
          const pages = yield* LandingPages.LandingPages
          const client = yield* SqlClient.SqlClient
          const store = yield* (yield* Fixtures.Fixtures).newStore
          const page = yield* pages.create(store, { title: "Dashboard-made" })
          // Sections the dashboard wrote: a gap, a 0, a type of its own and content that is not an object.
          yield* client`
            INSERT INTO landing_page_sections (landing_page_id, position, kind, content)
            VALUES (${page.id}, 10, 'hero', '{"t": 1}'), (${page.id}, 0, 'legacy_form', '[1]')`
          const listed = yield* sections.list(store, page.id)
          assert.deepStrictEqual(
            listed.items.map((item) => [item.type, item.position, item.settings]),
            [
              ["legacy_form", 1, {}],
              ["hero", 2, { t: 1 }]
            ]
          )
          yield* sections.create(writer(store), page.id, { type: "faq", position: 2 })
          const rows = yield* client<{ readonly kind: string; readonly position: number }>`
            SELECT kind, position FROM landing_page_sections WHERE landing_page_id = ${page.id} ORDER BY position`
          assert.deepStrictEqual(
            rows.map((row) => [row.kind, row.position]),
            [
              ["legacy_form", 1],
              ["faq", 2],
              ["hero", 3]
            ]
          )
        })
      )

      it.effect(
        "20 simultaneous creates on one page, each in its own transaction: 20 sections, positions 1 to 20",
        () =>
          Effect.gen(function* () {
            const sections = yield* PageSections
            const fixtures = yield* Fixtures.Fixtures
            const store = yield* fixtures.newStore
            const page = yield* (yield* LandingPages.LandingPages).create(store, { title: "Rush" })
            yield* Effect.all(
              Array.from({ length: 20 }, (_, n) =>
                fixtures.transaction(
                  sections.create(writer(store), page.id, { type: "text", position: 1, settings: { n } })
                )
              ),
              { concurrency: "unbounded" }
            )
            const listed = yield* sections.list(store, page.id)
            assert.deepStrictEqual(
              listed.items.map((item) => item.position),
              Array.from({ length: 20 }, (_, n) => n + 1)
            )
            assert.strictEqual(new Set(listed.items.map((item) => item.settings.n)).size, 20)
          })
      )

      it.effect("a section write and its change record commit or roll back together", () =>
        Effect.gen(function* () {
          const sections = yield* PageSections
          const changes = yield* Changes.Changes
          const fixtures = yield* Fixtures.Fixtures
          const store = yield* fixtures.newStore
          const page = yield* (yield* LandingPages.LandingPages).create(store, { title: "Atomic" })
          const exit = yield* fixtures
            .transaction(Effect.andThen(sections.create(writer(store), page.id, { type: "hero" }), Effect.die("boom")))
            .pipe(Effect.exit)
          assert.isTrue(exit._tag === "Failure")
          assert.deepStrictEqual((yield* sections.list(store, page.id)).items, [])
          assert.deepStrictEqual((yield* changes.list(store)).items, [])
        })
      )
    }
  )
}
