/**
 * What the packages' SQL suites share: a migrated fresh database per backend (embedded always, the real server with
 * `DATABASE_URL`), a store row to hang records on, and a write's transaction.
 */
import { assert, it, layer } from "@effect/vitest"
import { Migrations } from "@tawsil/storage"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"

for (const backend of TestDatabase.backends) {
  layer(TestDatabase.migrated(backend), { excludeTestServices: true, timeout: "90 seconds" })(
    `TestDatabase (${backend.name})`,
    (it) => {
      it.effect("gives a migrated database: every table is there", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ readonly tables: number }>`
            SELECT count(*)::int AS tables FROM information_schema.tables
            WHERE table_name IN ('stores', 'orders', 'promo_codes', 'pixels', 'webhook_subscriptions')`
          assert.strictEqual(row!.tables, 5)
        })
      )

      it.effect("adds a store row per call, each with its own slug, other columns as given", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const first = yield* TestDatabase.newStore()
          const second = yield* TestDatabase.newStore({ plan: "free", language: "fr" })
          assert.notStrictEqual(first, second)
          const rows = yield* sql<{ readonly id: number; readonly plan: string; readonly language: string }>`
            SELECT id, plan, language FROM stores WHERE id IN (${first}, ${second}) ORDER BY id`
          assert.deepStrictEqual(
            rows.map((row) => [row.id, row.plan, row.language]),
            [
              [first, "enterprise", "ar"],
              [second, "free", "fr"]
            ]
          )
        })
      )

      it.effect("runs a write in one transaction: a failure rolls it back, a database error is a defect", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const transaction = TestDatabase.transaction(sql)
          const store = yield* TestDatabase.newStore()
          const rename = (name: string) => sql`UPDATE stores SET name = ${name} WHERE id = ${store}`.pipe(Effect.orDie)
          const failed = yield* transaction(Effect.andThen(rename("rolled back"), Effect.fail("refused"))).pipe(
            Effect.flip
          )
          assert.strictEqual(failed, "refused")
          yield* transaction(rename("kept"))
          const [row] = yield* sql<{ readonly name: string }>`SELECT name FROM stores WHERE id = ${store}`
          assert.strictEqual(row!.name, "kept")
          const broken = yield* transaction(sql`SELECT * FROM no_such_table`).pipe(Effect.exit)
          assert.isTrue(Exit.isFailure(broken) && Cause.hasDies(broken.cause))
        })
      )
    }
  )
}

/**
 * `migrated(backend)` copies a template migrated once per set of migrations (a data directory for the embedded
 * database, a template database on the server): each copy holds every migration, finds none left to run, and is a
 * database of its own, however many are made at once.
 */
for (const backend of TestDatabase.backends) {
  it.live(
    `gives each ${backend.name} test a copy of a migrated template: every migration recorded, none left, nothing shared`,
    () =>
      Effect.gen(function* () {
        const open = Layer.build(backend.migratedLayer).pipe(
          Effect.map((context) => Layer.succeedContext(context)),
          Effect.orDie
        )
        const known = (yield* Migrations.loader.pipe(Effect.orDie)).map(([id]) => id).sort((a, b) => a - b)
        const [first, second] = yield* Effect.all([open, open], { concurrency: 2 })
        const recorded = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ readonly migration_id: number }>`
            SELECT migration_id FROM ${sql(Migrations.TABLE)} ORDER BY migration_id`
          return rows.map((row) => row.migration_id)
        }).pipe(Effect.provide(first!), Effect.orDie)
        assert.deepStrictEqual(recorded, known)
        assert.deepStrictEqual(yield* Migrations.run.pipe(Effect.provide(first!), Effect.orDie), [])
        const written = yield* TestDatabase.newStore().pipe(Effect.provide(first!))
        const seen = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ readonly id: number }>`SELECT id FROM stores WHERE id = ${written}`
        }).pipe(Effect.provide(second!), Effect.orDie)
        assert.deepStrictEqual(seen, [], "a store written in one copy is not in another")
      }).pipe(Effect.scoped),
    90_000
  )
}
