/**
 * What the packages' SQL suites share: a migrated fresh database per backend (embedded always, the real server with
 * `DATABASE_URL`), a store row to hang records on, and a write's transaction.
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Cause, Effect, Exit } from "effect"
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
