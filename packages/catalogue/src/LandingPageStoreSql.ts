/**
 * Landing pages on PostgreSQL (tables `landing_pages`, `landing_page_sections` of storage migration 0003), needing
 * only `SqlClient`. Every statement names the store.
 *
 * Slugs are unique per store by the table's `UNIQUE (store_id, slug)`, which is what makes the suffix choice
 * race-free: read the store's slugs that start with the wanted one, write the first free candidate, and when a
 * concurrent write took it first (an insert's `ON CONFLICT DO NOTHING` returns nothing, a slug update's unique
 * violation rolls back its savepoint), read again and take the next. Under READ COMMITTED (PostgreSQL's default)
 * each read sees the winner's commit, so every round settles at least one writer.
 *
 * A delete removes the page and, through the foreign key's `ON DELETE CASCADE`, its sections.
 */
import { Ids } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { LandingPage, LandingPageLanguage, LandingPageStatus, LandingPageSummary } from "./LandingPage.ts"
import { type LandingPagePatch, LandingPageStore } from "./LandingPageStore.ts"
import * as Slug from "./Slug.ts"

const summaryFields = {
  id: Ids.LandingPageId,
  title: Schema.String,
  slug: Schema.String,
  status: LandingPageStatus,
  language: LandingPageLanguage,
  product_id: Schema.NullOr(Ids.ProductId),
  views: Schema.Int,
  is_purchased: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
}
const decodeSummaries = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct(summaryFields)))
const decodeDetails = Schema.decodeUnknownEffect(
  Schema.Array(
    Schema.Struct({
      ...summaryFields,
      meta_title: Schema.NullOr(Schema.String),
      meta_description: Schema.NullOr(Schema.String),
      section_count: Schema.Int
    })
  )
)

/** Rounds of read-then-write before giving up: each round settles at least one concurrent writer. */
const MAX_SLUG_ROUNDS = 100

const isUniqueViolation = (error: SqlError.SqlError) => error.reason._tag === "UniqueViolation"

export const layer: Layer.Layer<LandingPageStore, never, SqlClient.SqlClient> = Layer.effect(
  LandingPageStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const summaryColumns = sql.literal(
      "id, title, slug, status, language, product_id, views, is_purchased, created_at, updated_at"
    )

    const find = (storeId: Ids.StoreId, id: Ids.LandingPageId) =>
      sql`
        SELECT ${summaryColumns}, meta_title, meta_description,
          (SELECT count(*)::int FROM landing_page_sections s WHERE s.landing_page_id = p.id) AS section_count
        FROM landing_pages p WHERE id = ${id} AND store_id = ${storeId}`.pipe(
        Effect.flatMap(decodeDetails),
        Effect.map(([row]) => Option.map(Option.fromNullishOr(row), (detail) => new LandingPage(detail)))
      )

    /** Reads back a page this transaction just wrote. */
    const written = (storeId: Ids.StoreId, id: Ids.LandingPageId) =>
      find(storeId, id).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.die(`landing page ${id} vanished inside its own transaction`),
            onSome: Effect.succeed
          })
        )
      )

    /**
     * Writes with the first free slug of `slug`, `slug-2`, …: `write` answers None when a concurrent writer took
     * its candidate, and the round starts again. `except` is the page whose own slug does not count as taken.
     */
    const withFreeSlug = <A>(
      storeId: Ids.StoreId,
      slug: string,
      except: Ids.LandingPageId | undefined,
      write: (candidate: string) => Effect.Effect<Option.Option<A>, SqlError.SqlError>
    ): Effect.Effect<A, SqlError.SqlError> =>
      Effect.gen(function* () {
        for (let round = 0; round < MAX_SLUG_ROUNDS; round++) {
          const rows = yield* sql<{ readonly slug: string }>`
            SELECT slug FROM landing_pages
            WHERE store_id = ${storeId} AND (slug = ${slug} OR starts_with(slug, ${`${slug}-`}))
              AND id <> ${except ?? 0}`
          const taken = new Set(rows.map((row) => row.slug))
          const done = yield* write(Slug.firstFree(slug, (candidate) => taken.has(candidate)))
          if (Option.isSome(done)) return done.value
        }
        return yield* Effect.die(`no free landing page slug for "${slug}" after ${MAX_SLUG_ROUNDS} rounds`)
      })

    const changesOf = (patch: LandingPagePatch) => {
      const changes: Record<string, unknown> = {}
      for (const [column, value] of Object.entries(patch)) if (value !== undefined) changes[column] = value
      return changes
    }

    return LandingPageStore.of({
      list: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${summaryColumns} FROM landing_pages
          WHERE ${sql.and([
            sql`store_id = ${storeId}`,
            ...(query.afterId === undefined ? [] : [sql`id < ${query.afterId}`]),
            ...(query.status === undefined ? [] : [sql`status = ${query.status}`])
          ])}
          ORDER BY id DESC LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeSummaries), Effect.orDie)
        return rows.map((row) => new LandingPageSummary(row))
      }),
      get: Effect.fnUntraced(function* (storeId, id) {
        return yield* find(storeId, id).pipe(Effect.orDie)
      }),
      insert: Effect.fnUntraced(function* (storeId, page, slug) {
        const id = yield* withFreeSlug(storeId, slug, undefined, (candidate) =>
          sql<{ readonly id: Ids.LandingPageId }>`
            INSERT INTO landing_pages ${sql.insert({ store_id: storeId, ...page, slug: candidate })}
            ON CONFLICT (store_id, slug) DO NOTHING
            RETURNING id`.pipe(Effect.map(([row]) => Option.map(Option.fromNullishOr(row), (inserted) => inserted.id)))
        )
        return yield* written(storeId, id)
      }, Effect.orDie),
      update: Effect.fnUntraced(function* (storeId, id, patch, slug) {
        return yield* Effect.gen(function* () {
          const changes = changesOf(patch)
          const assignments =
            Object.keys(changes).length === 0
              ? sql`updated_at = now()`
              : sql`${sql.update(changes)}, updated_at = now()`
          // Takes the row lock first: concurrent PATCHes of one page run one after the other.
          const updated = yield* sql`
            UPDATE landing_pages SET ${assignments}
            WHERE id = ${id} AND store_id = ${storeId}
            RETURNING id`
          if (updated.length === 0) return Option.none<LandingPage>()
          if (slug !== undefined) {
            yield* withFreeSlug(storeId, slug, id, (candidate) =>
              sql`UPDATE landing_pages SET slug = ${candidate} WHERE id = ${id} AND store_id = ${storeId}`.pipe(
                // A savepoint, so that losing the race leaves the caller's transaction usable.
                sql.withTransaction,
                Effect.as(Option.some(candidate)),
                Effect.catchIf(isUniqueViolation, () => Effect.succeedNone)
              )
            )
          }
          return Option.some(yield* written(storeId, id))
        }).pipe(sql.withTransaction)
      }, Effect.orDie),
      remove: Effect.fnUntraced(function* (storeId, id) {
        const removed = yield* sql`DELETE FROM landing_pages WHERE id = ${id} AND store_id = ${storeId} RETURNING id`
        return removed.length > 0
      }, Effect.orDie)
    })
  })
)
