/**
 * Landing page sections on PostgreSQL (table `landing_page_sections` of storage migrations 0003 and 0014), needing
 * only `SqlClient`. Every statement names the store, through the section's page.
 *
 * The stored `position` is a sort key (the dashboard's rows may have gaps or start at 0); a section's answered
 * `position` is its rank on the page, and every write through `withPage` numbers the page's sections 1, 2, 3, …
 * again. `withPage` runs in `sql.withTransaction` (a savepoint inside the caller's transaction) after locking the
 * page's row (`FOR NO KEY UPDATE`: section writes of one page wait for each other; PATCHes of the page itself too,
 * reads and foreign keys do not), so a page's order and its section limit are decided one writer at a time.
 * `former_ids` (the ids a section had before undos brought it back) has a GIN index for the change history's
 * lookups.
 */
import { Ids } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { PageSection, PageSectionId, type StoredSection } from "./PageSection.ts"
import { PageSectionStore, type PageWrites } from "./PageSectionStore.ts"

const SectionRow = Schema.Struct({
  id: PageSectionId,
  landing_page_id: Ids.LandingPageId,
  type: Schema.String,
  position: Schema.Int,
  is_visible: Schema.Boolean,
  settings: Schema.Unknown,
  former_ids: Schema.Array(Schema.Int),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(SectionRow))

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const toStored = ({ former_ids, settings, ...row }: typeof SectionRow.Type): StoredSection => ({
  // A dashboard row whose content is not an object shows as empty settings.
  section: new PageSection({ ...row, settings: isObject(settings) ? settings : {} }),
  formerIds: former_ids
})

/** An `integer[]` literal of ids that are integers already. */
const intArray = (ids: ReadonlyArray<number>) => `{${ids.join(",")}}`

/** Carries a `write`'s own failure through `sql.withTransaction`, whose failures are otherwise the database's. */
class Inner {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

export const layer: Layer.Layer<PageSectionStore, never, SqlClient.SqlClient> = Layer.effect(
  PageSectionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const sectionsOf = (pageId: number) =>
      sql`
        SELECT id, landing_page_id, kind AS type,
          (row_number() OVER (ORDER BY position, id))::int AS position,
          is_visible, content AS settings, to_jsonb(former_ids) AS former_ids, created_at, updated_at
        FROM landing_page_sections WHERE landing_page_id = ${pageId}
        ORDER BY position, id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows.map(toStored)),
        Effect.orDie
      )

    const owned = (storeId: Ids.StoreId, pageId: number) =>
      Effect.map(
        sql`SELECT id FROM landing_pages WHERE id = ${pageId} AND store_id = ${storeId}`.pipe(Effect.orDie),
        (rows) => rows.length > 0
      )

    const writesOf = (pageId: Ids.LandingPageId): PageWrites => ({
      insert: (input) =>
        sql<{ readonly id: PageSectionId }>`
          INSERT INTO landing_page_sections
            (landing_page_id, position, kind, is_visible, content, former_ids, created_at, updated_at)
          VALUES (
            ${pageId},
            (SELECT coalesce(max(position), 0) + 1 FROM landing_page_sections WHERE landing_page_id = ${pageId}),
            ${input.type}, ${input.is_visible}, ${JSON.stringify(input.settings)}::jsonb,
            ${intArray(input.formerIds)}::int[],
            coalesce(
              ${input.createdAt === undefined ? null : new Date(input.createdAt.epochMilliseconds)}::timestamptz,
              now()
            ),
            now())
          RETURNING id`.pipe(
          Effect.map(([row]) => row!.id),
          Effect.orDie
        ),
      update: (id, patch) =>
        sql`
          UPDATE landing_page_sections SET
            is_visible = coalesce(${patch.is_visible ?? null}::boolean, is_visible),
            content = coalesce(${patch.settings === undefined ? null : JSON.stringify(patch.settings)}::jsonb, content),
            updated_at = now()
          WHERE id = ${id} AND landing_page_id = ${pageId}`.pipe(Effect.asVoid, Effect.orDie),
      remove: (id) =>
        sql`DELETE FROM landing_page_sections WHERE id = ${id} AND landing_page_id = ${pageId}`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),
      arrange: (ids) =>
        sql`
          UPDATE landing_page_sections AS s SET position = o.ord::int
          FROM unnest(${intArray(ids)}::int[]) WITH ORDINALITY AS o(id, ord)
          WHERE s.id = o.id AND s.landing_page_id = ${pageId}`.pipe(Effect.asVoid, Effect.orDie),
      sections: sectionsOf(pageId)
    })

    return PageSectionStore.of({
      list: Effect.fnUntraced(function* (storeId, pageId) {
        if (!(yield* owned(storeId, pageId))) return Option.none()
        return Option.some(yield* sectionsOf(pageId))
      }),
      trace: Effect.fnUntraced(function* (storeId, id) {
        const [found] = yield* sql<{ readonly id: PageSectionId; readonly landing_page_id: number }>`
          SELECT s.id, s.landing_page_id FROM landing_page_sections s
          JOIN landing_pages p ON p.id = s.landing_page_id
          WHERE p.store_id = ${storeId} AND (s.id = ${id} OR s.former_ids @> ARRAY[${id}::int])
          ORDER BY s.id DESC LIMIT 1`.pipe(Effect.orDie)
        if (found === undefined) return Option.none()
        const page = yield* sectionsOf(found.landing_page_id)
        const section = page.find((entry) => entry.section.id === found.id)
        return section === undefined ? Option.none() : Option.some({ section, page })
      }),
      withPage: <A, E, R>(
        storeId: Ids.StoreId,
        pageId: Ids.LandingPageId,
        write: (sections: ReadonlyArray<StoredSection>, writes: PageWrites) => Effect.Effect<A, E, R>
      ): Effect.Effect<Option.Option<A>, E, R> =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const locked = yield* sql`
                SELECT id FROM landing_pages WHERE id = ${pageId} AND store_id = ${storeId}
                FOR NO KEY UPDATE`.pipe(Effect.orDie)
              if (locked.length === 0) return Option.none<A>()
              const sections = yield* sectionsOf(pageId)
              return Option.some(yield* Effect.mapError(write(sections, writesOf(pageId)), (error) => new Inner(error)))
            })
          )
          .pipe(
            Effect.catch((failure) =>
              failure instanceof Inner ? Effect.fail(failure.error as E) : Effect.die(failure)
            )
          )
    })
  })
)
