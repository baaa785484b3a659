/**
 * Where changes live: the port, and its in-memory implementation (tests, one-process runs).
 *
 * The port keeps records and the one invariant that needs the storage's atomicity: a change is claimed for undo at
 * most once (`claimUndo`), however many callers try at the same moment. Everything else (scopes, the undo rules,
 * sizes, messages) is `Changes`'s and `ChangeLog`'s.
 */
import type { Ids } from "@tawsil/domain"
import { Clock, Context, DateTime, Effect, Layer, Option } from "effect"
import { type ChangeId, ChangeId as ChangeIdSchema, type ChangeRecord, type NewChange } from "./Change.ts"

export interface ListQuery {
  /** How many rows to return at most. */
  readonly limit: number
  /** Only changes with a smaller id (the page after a cursor). */
  readonly afterId: number | undefined
  readonly entity: string | undefined
}

/** A change to store, once `ChangeLog` decided whether its values are kept. */
export interface StoredChange extends NewChange {
  readonly valuesRecorded: boolean
  /** The change this one undoes. */
  readonly undoOf: ChangeId | null
}

export class ChangeStore extends Context.Service<
  ChangeStore,
  {
    readonly insert: (change: StoredChange) => Effect.Effect<ChangeRecord>
    /** The store's changes, newest (highest id) first. */
    readonly list: (storeId: Ids.StoreId, query: ListQuery) => Effect.Effect<ReadonlyArray<ChangeRecord>>
    readonly get: (storeId: Ids.StoreId, id: ChangeId) => Effect.Effect<Option.Option<ChangeRecord>>
    /**
     * Whether a change of the same item newer than `id` still stands. A change stands until it is undone. An undo
     * stands too (it changed the item after `id`), except one that walked a change newer than `id` back: an odd
     * number of undos away from that change (its undo, the undo of its undo's undo…). An undo of an undo applies the
     * change again, so it stands (spec undo rule 3: re-applications count).
     */
    readonly hasLaterChange: (
      storeId: Ids.StoreId,
      entity: string,
      entityId: string,
      id: ChangeId
    ) => Effect.Effect<boolean>
    /**
     * Marks the change undone now unless it is already: true for exactly one of any number of simultaneous callers.
     * Inside a transaction the mark commits or rolls back with it.
     */
    readonly claimUndo: (storeId: Ids.StoreId, id: ChangeId) => Effect.Effect<boolean>
    /** Takes a claim back (the restore failed): the change can be undone again. */
    readonly releaseUndo: (storeId: Ids.StoreId, id: ChangeId) => Effect.Effect<void>
    /** Records which change undid this one. */
    readonly linkUndo: (storeId: Ids.StoreId, id: ChangeId, undoneBy: ChangeId) => Effect.Effect<void>
  }
>()("@tawsil/changes/ChangeStore") {}

/** Changes in a `Map`, on `Clock` time. Each operation is one synchronous step, so claims never race. */
export const layerMemory: Layer.Layer<ChangeStore> = Layer.sync(ChangeStore, () => {
  const changes = new Map<number, ChangeRecord>()
  let lastId = 0
  const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis))
  const own = (storeId: Ids.StoreId, id: ChangeId) => {
    const change = changes.get(id)
    return change !== undefined && change.storeId === storeId ? change : undefined
  }
  return ChangeStore.of({
    insert: (change) =>
      Effect.map(now, (createdAt) => {
        const record: ChangeRecord = {
          id: ChangeIdSchema.make(++lastId),
          storeId: change.storeId,
          entity: change.entity,
          entityId: change.entityId,
          action: change.action,
          summary: change.summary,
          keyId: change.keyId,
          before: change.before ?? null,
          after: change.after ?? null,
          valuesRecorded: change.valuesRecorded,
          undoneAt: null,
          undoneById: null,
          createdAt,
          undoOf: change.undoOf
        }
        changes.set(record.id, record)
        return record
      }),
    list: (storeId, query) =>
      Effect.sync(() =>
        [...changes.values()]
          .filter(
            (change) =>
              change.storeId === storeId &&
              (query.afterId === undefined || change.id < query.afterId) &&
              (query.entity === undefined || change.entity === query.entity)
          )
          .sort((a, b) => b.id - a.id)
          .slice(0, query.limit)
      ),
    get: (storeId, id) => Effect.sync(() => Option.fromNullishOr(own(storeId, id))),
    hasLaterChange: (storeId, entity, entityId, id) =>
      Effect.sync(() => {
        /** Whether a later change that is not undone stands: the walk back to the change it stems from. */
        const stands = (change: ChangeRecord) => {
          let undos = 0
          let at = change
          while (at.undoOf !== null) {
            if (at.undoOf <= id) return true
            const undone = own(storeId, at.undoOf)
            if (undone === undefined) return true
            at = undone
            undos++
          }
          return undos % 2 === 0
        }
        return [...changes.values()].some(
          (change) =>
            change.storeId === storeId &&
            change.entity === entity &&
            change.entityId === entityId &&
            change.id > id &&
            change.undoneAt === null &&
            stands(change)
        )
      }),
    claimUndo: (storeId, id) =>
      Effect.flatMap(now, (at) =>
        Effect.sync(() => {
          const change = own(storeId, id)
          if (change === undefined || change.undoneAt !== null) return false
          changes.set(id, { ...change, undoneAt: at })
          return true
        })
      ),
    releaseUndo: (storeId, id) =>
      Effect.sync(() => {
        const change = own(storeId, id)
        if (change !== undefined) changes.set(id, { ...change, undoneAt: null, undoneById: null })
      }),
    linkUndo: (storeId, id, undoneBy) =>
      Effect.sync(() => {
        const change = own(storeId, id)
        if (change !== undefined) changes.set(id, { ...change, undoneById: undoneBy })
      })
  })
})
