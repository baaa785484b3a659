/**
 * Changes on PostgreSQL (table `changes` of storage migration 0008), needing only `SqlClient`. Every statement names
 * the store.
 *
 * `hasLaterChange` walks an undo back to the change it stems from with a recursive query (`undo_of`).
 *
 * The undo claim is one conditional `UPDATE … WHERE undone_at IS NULL`: of simultaneous claims the first takes the
 * row's lock, the others wait for its transaction and then find the row undone (READ COMMITTED re-checks the
 * condition on the committed row), so exactly one claims it. A claim rolled back with its transaction (the restore
 * failed) leaves the change undoable.
 */
import { Ids } from "@tawsil/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { Action, ChangeId, type ChangeRecord } from "./Change.ts"
import { ChangeStore } from "./ChangeStore.ts"

const ChangeRow = Schema.Struct({
  id: ChangeId,
  store_id: Ids.StoreId,
  entity: Schema.String,
  entity_id: Schema.String,
  action: Action,
  summary: Schema.String,
  key_id: Schema.NullOr(Schema.String),
  before: Schema.NullOr(Schema.Unknown),
  after: Schema.NullOr(Schema.Unknown),
  values_recorded: Schema.Boolean,
  undone_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  undone_by_id: Schema.NullOr(ChangeId),
  undo_of: Schema.NullOr(ChangeId),
  created_at: Schema.DateTimeUtcFromDate
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(ChangeRow))

const toRecord = (row: typeof ChangeRow.Type): ChangeRecord => ({
  id: row.id,
  storeId: row.store_id,
  entity: row.entity,
  entityId: row.entity_id,
  action: row.action,
  summary: row.summary,
  keyId: row.key_id,
  before: row.before,
  after: row.after,
  valuesRecorded: row.values_recorded,
  undoneAt: row.undone_at,
  undoneById: row.undone_by_id,
  undoOf: row.undo_of,
  createdAt: row.created_at
})

/** JSON text for a `jsonb` parameter; null stays SQL NULL. */
const jsonb = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))

export const layer: Layer.Layer<ChangeStore, never, SqlClient.SqlClient> = Layer.effect(
  ChangeStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      "id, store_id, entity, entity_id, action, summary, key_id, before, after, values_recorded, undone_at, " +
        "undone_by_id, undo_of, created_at"
    )

    return ChangeStore.of({
      insert: Effect.fnUntraced(function* (change) {
        const [row] = yield* sql`
          INSERT INTO changes (store_id, entity, entity_id, action, summary, key_id, before, after, values_recorded,
            undo_of)
          VALUES (${change.storeId}, ${change.entity}, ${change.entityId}, ${change.action}, ${change.summary},
            ${change.keyId}, ${jsonb(change.before)}::jsonb, ${jsonb(change.after)}::jsonb, ${change.valuesRecorded},
            ${change.undoOf})
          RETURNING ${columns}`.pipe(Effect.flatMap(decodeRows))
        return toRecord(row!)
      }, Effect.orDie),
      list: Effect.fnUntraced(function* (storeId, query) {
        const rows = yield* sql`
          SELECT ${columns} FROM changes
          WHERE store_id = ${storeId}
            ${query.entity === undefined ? sql`` : sql`AND entity = ${query.entity}`}
            ${query.afterId === undefined ? sql`` : sql`AND id < ${query.afterId}`}
          ORDER BY id DESC
          LIMIT ${query.limit}`.pipe(Effect.flatMap(decodeRows))
        return rows.map(toRecord)
      }, Effect.orDie),
      get: Effect.fnUntraced(function* (storeId, id) {
        const [row] = yield* sql`SELECT ${columns} FROM changes WHERE store_id = ${storeId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeRows)
        )
        return Option.map(Option.fromNullishOr(row), toRecord)
      }, Effect.orDie),
      hasLaterChange: Effect.fnUntraced(function* (storeId, entity, entityId, id) {
        // Each later change that is not undone, walked back through the changes it undid while they are later
        // than `id` too: it stands when the walk leaves them (an undo of an earlier change) or ends on a change
        // an even number of undos away (the change itself, or its re-application).
        const rows = yield* sql`
          WITH RECURSIVE walk (link, undos) AS (
            SELECT undo_of, 0 FROM changes
            WHERE store_id = ${storeId} AND entity = ${entity} AND entity_id = ${entityId} AND id > ${id}
              AND undone_at IS NULL
            UNION ALL
            SELECT undone.undo_of, walk.undos + 1
            FROM walk JOIN changes undone ON undone.store_id = ${storeId} AND undone.id = walk.link
            WHERE walk.link > ${id}
          )
          SELECT 1 FROM walk
          WHERE (link IS NULL AND undos % 2 = 0) OR link <= ${id}
          LIMIT 1`
        return rows.length > 0
      }, Effect.orDie),
      claimUndo: Effect.fnUntraced(function* (storeId, id) {
        const rows = yield* sql`
          UPDATE changes SET undone_at = now()
          WHERE store_id = ${storeId} AND id = ${id} AND undone_at IS NULL
          RETURNING id`
        return rows.length > 0
      }, Effect.orDie),
      releaseUndo: Effect.fnUntraced(function* (storeId, id) {
        yield* sql`UPDATE changes SET undone_at = NULL, undone_by_id = NULL WHERE store_id = ${storeId} AND id = ${id}`
      }, Effect.orDie),
      linkUndo: Effect.fnUntraced(function* (storeId, id, undoneBy) {
        yield* sql`UPDATE changes SET undone_by_id = ${undoneBy} WHERE store_id = ${storeId} AND id = ${id}`
      }, Effect.orDie)
    })
  })
)
