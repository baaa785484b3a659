/**
 * A change as the history keeps it and as the store API shows it (spec "Change record"): which item of which entity
 * a write touched, how (`create`, `update`, `delete`; an undo is an `update`), a one-line English summary, the key
 * that made it, and the values it replaced (`before`) and wrote (`after`), each in the entity's own recorded form.
 */
import { AlgiersTime, type Ids } from "@tawsil/domain"
import { type DateTime, Schema } from "effect"

export const ChangeId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.brand("ChangeId"))
export type ChangeId = typeof ChangeId.Type

export const Action = Schema.Literals(["create", "update", "delete"])
export type Action = typeof Action.Type

/**
 * Recorded values beyond this size (of either side, as JSON text in UTF-8) are not kept: the write still succeeds,
 * its change is listed with its summary, and it cannot be undone.
 */
export const MAX_VALUES_BYTES = 256 * 1024

/**
 * The entity names of the spec's "Recorded entities" table, plus `lp.page`, which a caller may filter on although no
 * write records it. `GET /v1/changes?entity=` ignores any other value.
 */
export const ENTITY_NAMES: ReadonlyArray<string> = [
  "store.settings",
  "store.design",
  "store.theme",
  "store.home_sections",
  "store.home_layout",
  "category",
  "stock",
  "promo_code",
  "pixels",
  "shipping.rates",
  "shipping.settings",
  "lp.section",
  "lp.page"
]

/** A change to record: what a writer hands `ChangeLog.record`, in the same transaction as its write. */
export interface NewChange {
  readonly storeId: Ids.StoreId
  readonly entity: string
  readonly entityId: string
  readonly action: Action
  readonly summary: string
  /** The key or app token that made the write (its id, never a secret); null for an undo from the dashboard. */
  readonly keyId: string | null
  /** The values replaced: null for a create; for an update, only the fields it changed (`Fields.changed`). */
  readonly before: unknown
  /** The values written: null for a delete (and a courier rate sync); for an update, only the fields it wrote. */
  readonly after: unknown
}

/** A change as stored. */
export interface ChangeRecord {
  readonly id: ChangeId
  readonly storeId: Ids.StoreId
  readonly entity: string
  readonly entityId: string
  readonly action: Action
  readonly summary: string
  readonly keyId: string | null
  readonly before: unknown
  readonly after: unknown
  /** False when the values passed `MAX_VALUES_BYTES` and were dropped: `before` and `after` are then null. */
  readonly valuesRecorded: boolean
  readonly undoneAt: DateTime.Utc | null
  /** The change that undid this one. */
  readonly undoneById: ChangeId | null
  /** For an undo, the change it undid (the original an undo of this undo applies again). */
  readonly undoOf: ChangeId | null
  readonly createdAt: DateTime.Utc
}

/** `GET /v1/changes` item. */
export const ChangeListItem = Schema.Struct({
  id: Schema.Int,
  entity: Schema.String,
  /** The item's id in its entity (`promo_code`: the code's id; `store.theme`: `theme`). */
  entity_id: Schema.String,
  action: Action,
  /** English; an undo reads `Undo of change #<id>`. */
  summary: Schema.String,
  undone: Schema.Boolean,
  /** `YYYY-MM-DD HH:MM:SS`, Algiers time. */
  undone_at: Schema.NullOr(Schema.String),
  /** `YYYY-MM-DD HH:MM:SS`, Algiers time. */
  created_at: Schema.String
}).annotate({ identifier: "ChangeListItem" })
export type ChangeListItem = typeof ChangeListItem.Type

/** `GET /v1/changes/{id}` data. */
export const ChangeDetail = Schema.Struct({
  ...ChangeListItem.fields,
  /** The key that made the change; null for an undo from the dashboard. */
  key_id: Schema.NullOr(Schema.String),
  undone_by_id: Schema.NullOr(Schema.Int),
  /** Values replaced; null for a create, and for a change whose values were over 256 KB. */
  before: Schema.NullOr(Schema.Unknown),
  /** Values written; null for a delete, and for a change whose values were over 256 KB. */
  after: Schema.NullOr(Schema.Unknown)
}).annotate({ identifier: "ChangeDetail" })
export type ChangeDetail = typeof ChangeDetail.Type

/** `POST /v1/changes/{id}/undo` data. */
export const Undone = Schema.Struct({
  undone: Schema.Literal(true),
  change_id: Schema.Int,
  entity: Schema.String,
  /** The change that records the undo; null when it could not be recorded (history turned off). */
  undo_change_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "ChangeUndone" })
export type Undone = typeof Undone.Type

export const toListItem = (change: ChangeRecord): ChangeListItem => ({
  id: change.id,
  entity: change.entity,
  entity_id: change.entityId,
  action: change.action,
  summary: change.summary,
  undone: change.undoneAt !== null,
  undone_at: change.undoneAt === null ? null : AlgiersTime.formatSql(change.undoneAt),
  created_at: AlgiersTime.formatSql(change.createdAt)
})

export const toDetail = (change: ChangeRecord): ChangeDetail => ({
  ...toListItem(change),
  key_id: change.keyId,
  undone_by_id: change.undoneById,
  before: change.before ?? null,
  after: change.after ?? null
})

/** The size of recorded values as JSON text in UTF-8 (what `MAX_VALUES_BYTES` bounds). */
export const sizeOf = (values: unknown): number =>
  values === null || values === undefined ? 0 : Buffer.byteLength(JSON.stringify(values), "utf8")
