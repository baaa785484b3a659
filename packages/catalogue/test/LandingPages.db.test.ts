import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { LandingPages } from "../src/LandingPages.ts"
import { backends, memory, sql } from "./Backends.ts"
import { Fixtures } from "./Fixtures.ts"
import { LandingPagesSuite } from "./LandingPagesSuite.ts"

layer(memory)("LandingPages (memory)", (it) => {
  LandingPagesSuite(it)
})

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `LandingPages (sql, ${backend.name})`,
    (it) => {
      LandingPagesSuite(it)

      // Sections are written by the dashboard, never by this API: the fixtures insert them directly.
      it.effect("section_count is a live count of the page's sections; delete removes them too", () =>
        Effect.gen(function* () {
          const pages = yield* LandingPages
          const client = yield* SqlClient.SqlClient
          const store = yield* (yield* Fixtures).newStore
          const page = yield* pages.create(store, { title: "Sections" })
          const other = yield* pages.create(store, { title: "Other" })
          yield* client`
            INSERT INTO landing_page_sections (landing_page_id, position, kind)
            VALUES (${page.id}, 0, 'hero'), (${page.id}, 1, 'form'), (${other.id}, 0, 'hero')`
          assert.strictEqual((yield* pages.get(store, page.id)).section_count, 2)
          yield* client`DELETE FROM landing_page_sections WHERE landing_page_id = ${page.id} AND position = 1`
          assert.strictEqual((yield* pages.get(store, page.id)).section_count, 1)
          assert.strictEqual((yield* pages.update(store, page.id, { title: "Renamed" })).section_count, 1)

          yield* pages.remove(store, page.id)
          const [left] = yield* client<{ readonly count: number }>`
            SELECT count(*)::int AS count FROM landing_page_sections WHERE landing_page_id = ${page.id}`
          assert.strictEqual(left?.count, 0)
          assert.strictEqual((yield* pages.get(store, other.id)).section_count, 1)
        })
      )

      it.effect("views and is_purchased are read from the row, and no body changes them", () =>
        Effect.gen(function* () {
          const pages = yield* LandingPages
          const client = yield* SqlClient.SqlClient
          const store = yield* (yield* Fixtures).newStore
          const page = yield* pages.create(store, { title: "Bought", views: 10, is_purchased: true })
          assert.deepStrictEqual([page.views, page.is_purchased], [0, false])
          yield* client`UPDATE landing_pages SET views = 42, is_purchased = true WHERE id = ${page.id}`
          const changed = yield* pages.update(store, page.id, { title: "Still bought", views: 0, is_purchased: false })
          assert.deepStrictEqual([changed.views, changed.is_purchased], [42, true])
        })
      )

      it.effect("a slug lost to a concurrent rename inside the caller's transaction leaves it usable", () =>
        Effect.gen(function* () {
          const pages = yield* LandingPages
          const fixtures = yield* Fixtures
          const store = yield* fixtures.newStore
          const created = yield* Effect.forEach(["A", "B", "C", "D", "E", "F"], (title) =>
            pages.create(store, { title })
          )
          const renamed = yield* Effect.all(
            created.map((page) =>
              fixtures.transaction(
                Effect.gen(function* () {
                  const moved = yield* pages.update(store, page.id, { title: "Same Name" })
                  // The transaction goes on after the slug settled.
                  return (yield* pages.update(store, page.id, { meta_title: "after" })).slug === moved.slug
                    ? moved.slug
                    : "moved twice"
                })
              )
            ),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual([...renamed].sort(), [
            "same-name",
            "same-name-2",
            "same-name-3",
            "same-name-4",
            "same-name-5",
            "same-name-6"
          ])
        })
      )
    }
  )
}
