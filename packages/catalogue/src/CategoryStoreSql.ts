/**
 * Categories on PostgreSQL (table `categories` of storage migration 0012), needing only `SqlClient`. Every statement
 * names the store.
 *
 * - `serialize` takes a transaction-scoped advisory lock of the store (`pg_advisory_xact_lock(CATEGORY_LOCK,
 *   store)`, the two-key space, which never meets the idempotency claims' one-key locks): the store's category writes
 *   then run one at a time, and the one-level rule `Categories` reads before writing still holds when it commits.
 *   Product writes are not held: they read the categories they name `FOR KEY SHARE`.
 * - Slugs are unique by the table's `UNIQUE (store_id, slug)`; the suffix is chosen as landing pages choose theirs
 *   (`LandingPageStoreSql`): read the taken ones, write the first free, and read again when a concurrent write took
 *   it first (an insert's `ON CONFLICT DO NOTHING`, a slug update's unique violation in its own savepoint).
 * - A delete removes the row and, through the foreign key's `ON DELETE CASCADE`, its products' memberships.
 * - `product_count` counts the category's products not deleted.
 */
import type { Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { Category, CategoryId } from "./Category.ts"
import { type CategoryChanges, CategoryStore } from "./CategoryStore.ts"
import * as Slug from "./Slug.ts"

/** The first key of the store's category lock (`tw` and 1): the second is the store's id. */
export const CATEGORY_LOCK = 0x74770001

const CategoryRow = Schema.Struct({
  id: CategoryId,
  name: Schema.String,
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  image: Schema.NullOr(Schema.String),
  parent_id: Schema.NullOr(CategoryId),
  position: Schema.Int,
  product_count: Schema.Int,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
const decodeCategories = Schema.decodeUnknownEffect(Schema.Array(CategoryRow))

const IdRow = Schema.Struct({ id: CategoryId })
const decodeIds = Schema.decodeUnknownEffect(Schema.Array(IdRow))

/** Rounds of read-then-write before giving up: each round settles at least one concurrent writer. */
const MAX_SLUG_ROUNDS = 100

const isUniqueViolation = (error: SqlError.SqlError) => error.reason._tag === "UniqueViolation"

export const layer: Layer.Layer<CategoryStore, never, SqlClient.SqlClient> = Layer.effect(
  CategoryStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const columns = sql.literal(
      "c.id, c.name, c.slug, c.description, c.image, c.parent_id, c.position, " +
        "(SELECT count(*)::int FROM product_categories pc JOIN products p ON p.id = pc.product_id " +
        "WHERE pc.category_id = c.id AND p.deleted_at IS NULL) AS product_count, c.created_at, c.updated_at"
    )

    const find = (storeId: Ids.StoreId, id: CategoryId) =>
      sql`SELECT ${columns} FROM categories c WHERE c.id = ${id} AND c.store_id = ${storeId}`.pipe(
        Effect.flatMap(decodeCategories),
        Effect.map(([row]) => Option.map(Option.fromNullishOr(row), (category) => new Category(category)))
      )

    /** Reads back a category this transaction just wrote. */
    const written = (storeId: Ids.StoreId, id: CategoryId) =>
      find(storeId, id).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.die(`category ${id} vanished inside its own transaction`),
            onSome: Effect.succeed
          })
        )
      )

    /**
     * Writes with the first free slug of `slug`, `slug-2`, …: `write` answers None when a concurrent writer took
     * its candidate, and the round starts again. `except` is the category whose own slug does not count as taken.
     */
    const withFreeSlug = <A>(
      storeId: Ids.StoreId,
      slug: string,
      except: CategoryId | undefined,
      write: (candidate: string) => Effect.Effect<Option.Option<A>, SqlError.SqlError>
    ): Effect.Effect<A, SqlError.SqlError> =>
      Effect.gen(function* () {
        for (let round = 0; round < MAX_SLUG_ROUNDS; round++) {
          const rows = yield* sql<{ readonly slug: string }>`
            SELECT slug FROM categories
            WHERE store_id = ${storeId} AND (slug = ${slug} OR starts_with(slug, ${`${slug}-`}))
              AND id <> ${except ?? 0}`
          const taken = new Set(rows.map((row) => row.slug))
          const done = yield* write(Slug.firstFree(slug, (candidate) => taken.has(candidate)))
          if (Option.isSome(done)) return done.value
        }
        return yield* Effect.die(`no free category slug for "${slug}" after ${MAX_SLUG_ROUNDS} rounds`)
      })

    const columnsOf = ({ slug: _, ...changes }: CategoryChanges) => {
      const set: Record<string, unknown> = {}
      for (const [column, value] of Object.entries(changes)) if (value !== undefined) set[column] = value
      return set
    }

    return CategoryStore.of({
      list: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${columns} FROM categories c
          WHERE ${sql.and([
            sql`c.store_id = ${storeId}`,
            ...(query.afterId === undefined ? [] : [sql`c.id < ${query.afterId}`])
          ])}
          ORDER BY c.id DESC LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeCategories), Effect.orDie)
        return rows.map((row) => new Category(row))
      }),
      get: (storeId, id) => find(storeId, id).pipe(Effect.orDie),
      serialize: (storeId) =>
        sql`SELECT pg_advisory_xact_lock(${CATEGORY_LOCK}, ${storeId})`.pipe(Effect.asVoid, Effect.orDie),
      existing: Effect.fnUntraced(function* (storeId, ids) {
        if (ids.length === 0) return []
        const rows = yield* sql`
          SELECT id FROM categories
          WHERE store_id = ${storeId}
            AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::int)`.pipe(
          Effect.flatMap(decodeIds),
          Effect.orDie
        )
        return rows.map((row) => row.id)
      }),
      childCount: Effect.fnUntraced(function* (storeId, id) {
        const [row] = yield* sql<{ readonly count: number }>`
          SELECT count(*)::int AS count FROM categories WHERE store_id = ${storeId} AND parent_id = ${id}`.pipe(
          Effect.orDie
        )
        return row?.count ?? 0
      }),
      insert: Effect.fnUntraced(function* (storeId, { slug, position, ...input }, restore) {
        const id = yield* withFreeSlug(storeId, slug, undefined, (candidate) =>
          sql<{ readonly id: CategoryId }>`
            INSERT INTO categories ${sql.insert({
              ...(restore === undefined ? {} : { id: restore.id, created_at: DateTime.formatIso(restore.created_at) }),
              store_id: storeId,
              ...input,
              slug: candidate,
              position: position ?? 0
            })}
            ON CONFLICT (store_id, slug) DO NOTHING
            RETURNING id`.pipe(Effect.map(([row]) => Option.map(Option.fromNullishOr(row), (inserted) => inserted.id)))
        )
        if (position === undefined) {
          // After every category of the store, this one aside.
          yield* sql`
            UPDATE categories SET position = (
              SELECT coalesce(max(position) + 1, 0) FROM categories WHERE store_id = ${storeId} AND id <> ${id}
            )
            WHERE id = ${id}`
        }
        return yield* written(storeId, id)
      }, Effect.orDie),
      update: Effect.fnUntraced(function* (storeId, id, changes) {
        return yield* Effect.gen(function* () {
          const set = columnsOf(changes)
          const assignments =
            Object.keys(set).length === 0 ? sql`updated_at = now()` : sql`${sql.update(set)}, updated_at = now()`
          const updated = yield* sql`
            UPDATE categories SET ${assignments} WHERE id = ${id} AND store_id = ${storeId} RETURNING id`
          if (updated.length === 0) return Option.none<Category>()
          if (changes.slug !== undefined) {
            yield* withFreeSlug(storeId, changes.slug, id, (candidate) =>
              sql`UPDATE categories SET slug = ${candidate} WHERE id = ${id} AND store_id = ${storeId}`.pipe(
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
        const current = yield* find(storeId, id)
        if (Option.isNone(current)) return current
        yield* sql`DELETE FROM categories WHERE id = ${id} AND store_id = ${storeId}`
        return current
      }, Effect.orDie)
    })
  })
)
