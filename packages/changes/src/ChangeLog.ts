/**
 * How a write records its change: `ChangeLog.record`, called by the entity's own service right after its write and
 * in the same transaction, so the write and its history commit or roll back together.
 *
 * Recording never blocks a write. Values over `MAX_VALUES_BYTES` are dropped from the record (the change is listed
 * with its summary and cannot be undone), and so are values `jsonb` could not keep as they are (a NUL character or
 * a lone surrogate in a string or a key, `StoreText.isStorableJson`): the entities refuse such text before they
 * write, so this only keeps a missed one from failing the write. With `Recording` off the log keeps nothing at all:
 * what the benchmark compares against, and a host's choice when it wants no history.
 */
import { StoreText } from "@tawsil/domain"
import { Context, Effect, Layer } from "effect"
import { type ChangeId, MAX_VALUES_BYTES, type NewChange, sizeOf } from "./Change.ts"
import { ChangeStore } from "./ChangeStore.ts"
import * as Fields from "./Fields.ts"

/** Whether changes are recorded; read once, when the log's layer is built. On by default. */
export const Recording = Context.Reference<boolean>("@tawsil/changes/Recording", { defaultValue: () => true })

export class ChangeLog extends Context.Service<
  ChangeLog,
  {
    /**
     * Records a write's change and returns its id; null when recording is off. `undoOf` names the change an undo
     * undid.
     */
    readonly record: (
      change: NewChange,
      options?: { readonly undoOf?: ChangeId | undefined }
    ) => Effect.Effect<ChangeId | null>
  }
>()("@tawsil/changes/ChangeLog") {}

/** Who made a write, as its change records it: the store and the key (its id, never a secret). */
export type Writer = Pick<NewChange, "storeId" | "keyId">

/**
 * How one entity's service records its writes: the entity named once (with the layout of its values), then for
 * each write who made it, what it did to which record, its summary and the values replaced and written. An update
 * may hand the item's whole values before and after: only the fields it changed are recorded (`Fields.changed`).
 */
export const recorder =
  (log: ChangeLog["Service"], entity: string, layout?: Fields.Layout) =>
  (
    writer: Writer,
    action: NewChange["action"],
    entityId: string | number,
    summary: string,
    before: unknown,
    after: unknown
  ): Effect.Effect<ChangeId | null> => {
    const values = action === "update" ? Fields.changed(before, after, layout) : { before, after }
    return log.record({
      storeId: writer.storeId,
      entity,
      entityId: String(entityId),
      action,
      summary,
      keyId: writer.keyId,
      before: values.before,
      after: values.after
    })
  }

export const layer: Layer.Layer<ChangeLog, never, ChangeStore> = Layer.effect(
  ChangeLog,
  Effect.gen(function* () {
    const store = yield* ChangeStore
    if (!(yield* Recording)) return ChangeLog.of({ record: () => Effect.succeed(null) })
    return ChangeLog.of({
      record: (change, options) => {
        const kept =
          sizeOf(change.before) <= MAX_VALUES_BYTES &&
          sizeOf(change.after) <= MAX_VALUES_BYTES &&
          StoreText.isStorableJson(change.before) &&
          StoreText.isStorableJson(change.after)
        return Effect.map(
          store.insert({
            ...change,
            before: kept ? (change.before ?? null) : null,
            after: kept ? (change.after ?? null) : null,
            valuesRecorded: kept,
            undoOf: options?.undoOf ?? null
          }),
          (record) => record.id
        )
      }
    })
  })
)
