import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Landing page sections written through the store API (`@tawsil/catalogue` `PageSections`; the table is 0003's,
 * where the dashboard writes them too). `kind` is the section's `type` and `content` its `settings`.
 *
 * - `is_visible`: false keeps the section and hides it from buyers.
 * - `former_ids`: the ids of the deleted sections this one is the return of (an undo of a delete writes a new id,
 *   spec "Undo rules" 5), so the change history still reaches it; searched with `@>` through a GIN index.
 * - `created_at`, `updated_at`: rows of the dashboard made before this step read as made now.
 * - The index on (`landing_page_id`, `position`, `id`) serves a page's sections in order, and its section count.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE landing_page_sections
      ADD COLUMN is_visible boolean NOT NULL DEFAULT true,
      ADD COLUMN former_ids integer[] NOT NULL DEFAULT '{}',
      ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`
  yield* sql`CREATE INDEX landing_page_sections_page ON landing_page_sections (landing_page_id, position, id)`
  yield* sql`CREATE INDEX landing_page_sections_former_ids ON landing_page_sections USING gin (former_ids)`
})
