/**
 * The change history and its undo (spec "Change history", "Undo rules"): list, detail and undo over a
 * `ChangeStore`, for the entities registered in `Entities`.
 *
 * An undo, in order:
 * 1. the change must exist in the caller's store (else `ChangeNotFound`) and the caller hold its entity's undo scope;
 * 2. its entity must be registered and its values recorded (else `NotUndoable`);
 * 3. a create has nothing to restore (`NothingToRestore`); an undone change is `AlreadyUndone`;
 * 4. the values to write: a change's `before` (the fields it replaced); for an undo, the `after` of the change it
 *    undid — undoing an undo applies the original change again (spec rule 8) — and when that original wrote
 *    nothing (a delete, a courier rate sync) there is nothing to restore (`NothingToRestore`);
 * 5. an entity may refuse while a later change of the item stands (the home layout, rule 3);
 * 6. an update's item must still exist (`RestoreTargetMissing`; an undo of an undo writes onto the item too);
 * 7. the change is claimed — atomically: of simultaneous undos exactly one gets past this point;
 * 8. the entity writes those fields back through its own checks (a refusal is the entity's error); a failure takes
 *    the claim back, so the change stays undoable (rule 9);
 * 9. the undo is recorded as an `update` ("Undo of change #N") — the fields it wrote (`after`) and their values
 *    before (`before`), read from the item around the write (`Entity.recorded`) — and linked from the change.
 * Run an undo inside the caller's transaction: the claim, the write and both records then commit together.
 */
import { Ids, Pagination } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema } from "effect"
import {
  type ChangeDetail,
  ChangeId as ChangeIdSchema,
  type ChangeListItem,
  type ChangeRecord,
  ENTITY_NAMES,
  toDetail,
  toListItem,
  type Undone
} from "./Change.ts"
import * as ChangeError from "./ChangeError.ts"
import { ChangeLog } from "./ChangeLog.ts"
import { ChangeStore } from "./ChangeStore.ts"
import { type AnyEntity, Entities, type EntityError } from "./Entity.ts"
import * as Fields from "./Fields.ts"

export const DEFAULT_LIMIT = 25
export const MAX_LIMIT = 100

/** Who reads or undoes: the store, the key (its id, recorded on the undo) and the key's scopes. */
export interface Actor {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
  readonly scopes: ReadonlyArray<string>
}

export interface ListParams {
  readonly entity?: string | undefined
  readonly limit?: string | undefined
  readonly cursor?: string | undefined
}

/** A raw `limit`: non-numeric → 25, out of range → clamped to 1..100. */
export const limitOf = (raw: string | undefined): number => {
  const parsed = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw)
  return Number.isFinite(parsed) ? Math.min(MAX_LIMIT, Math.max(1, Math.trunc(parsed))) : DEFAULT_LIMIT
}

/** Scopes of a change whose entity this process does not know (recorded by a newer version): the store's. */
const FALLBACK_SCOPES = { readScope: "store:read", undoScope: "store:write" }

export class Changes extends Context.Service<
  Changes,
  {
    /** `GET /v1/changes`: newest first; an unknown `entity` filter is ignored. */
    readonly list: (storeId: Ids.StoreId, params?: ListParams) => Effect.Effect<Pagination.Page<ChangeListItem>>
    /** `GET /v1/changes/{id}`: needs the entity's read scope (the endpoint checks `store:read`). */
    readonly get: (actor: Actor, id: number) => Effect.Effect<ChangeDetail, ChangeError.ChangeError>
    /** `POST /v1/changes/{id}/undo`: needs the entity's undo scope. */
    readonly undo: (actor: Actor, id: number) => Effect.Effect<Undone, ChangeError.ChangeError | EntityError>
  }
>()("@tawsil/changes/Changes") {}

const notFound = (id: number) => ChangeError.fail(new ChangeError.ChangeNotFound({ message: `Change ${id} not found` }))

const missingScope = (scope: string) =>
  ChangeError.fail(new ChangeError.MissingEntityScope({ scope, message: `Missing scope: ${scope}` }))

export const layer: Layer.Layer<Changes, never, ChangeStore | ChangeLog | Entities> = Layer.effect(
  Changes,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* ChangeStore
    const log = yield* ChangeLog
    const entities = yield* Entities

    const scopesOf = (name: string): Pick<AnyEntity, "readScope" | "undoScope"> => entities.get(name) ?? FALLBACK_SCOPES

    const find = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      if (!Ids.isStorableId(id)) return yield* notFound(id)
      const found = yield* store.get(storeId, ChangeIdSchema.make(id))
      if (Option.isNone(found)) return yield* notFound(id)
      return found.value
    })

    const refuse = (reason: ChangeError.ChangeErrorReason) => Effect.fail(ChangeError.fail(reason))

    /** What an undo of `change` writes: the values, and whether onto the item or re-creating it. */
    const restoreOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, change: ChangeRecord) {
      if (change.undoOf === null) {
        if (change.before === null) {
          return yield* refuse(
            new ChangeError.NothingToRestore({ message: `Change #${change.id} holds no values to restore` })
          )
        }
        return { values: change.before, how: change.action === "delete" ? ("recreate" as const) : ("update" as const) }
      }
      const original = yield* store.get(storeId, change.undoOf)
      if (Option.isNone(original) || original.value.after === null) {
        return yield* refuse(
          new ChangeError.NothingToRestore({
            message:
              `Change #${change.id} undid change #${change.undoOf}, which wrote no values to apply again ` +
              "(a delete or a courier rate sync)"
          })
        )
      }
      return { values: original.value.after, how: "update" as const }
    })

    const undo = method("Changes.undo")(function* (actor: Actor, id: number) {
      const change = yield* find(actor.storeId, id)
      const scope = scopesOf(change.entity).undoScope
      if (!actor.scopes.includes(scope)) return yield* missingScope(scope)
      const entity = entities.get(change.entity)
      if (entity === undefined) {
        return yield* refuse(new ChangeError.NotUndoable({ message: `Changes of ${change.entity} cannot be undone` }))
      }
      if (!change.valuesRecorded) {
        return yield* refuse(
          new ChangeError.NotUndoable({
            message: `Change #${id} cannot be undone: its values were over 256 KB and were not recorded`
          })
        )
      }
      if (change.action === "create") {
        return yield* refuse(
          new ChangeError.NothingToRestore({
            message: `Change #${id} created the item: nothing to restore; delete the item instead`
          })
        )
      }
      if (change.undoneAt !== null) {
        return yield* refuse(new ChangeError.AlreadyUndone({ message: `Change #${id} was already undone` }))
      }
      const { values: recordedValues, how } = yield* restoreOf(actor.storeId, change)
      const values = yield* Schema.decodeUnknownEffect(entity.values)(recordedValues).pipe(
        Effect.mapError(() =>
          ChangeError.fail(
            new ChangeError.NotUndoable({ message: `The values recorded by change #${id} can no longer be restored` })
          )
        )
      )
      if (
        entity.laterChangesBlockUndo !== undefined &&
        (yield* store.hasLaterChange(actor.storeId, change.entity, change.entityId, change.id))
      ) {
        return yield* refuse(new ChangeError.LaterChangeExists({ message: entity.laterChangesBlockUndo(id) }))
      }
      const before = yield* entity.snapshot(actor.storeId, change.entityId)
      if (how === "update" && Option.isNone(before)) {
        return yield* refuse(
          new ChangeError.RestoreTargetMissing({ message: `The item changed by change #${id} no longer exists` })
        )
      }
      if (!(yield* store.claimUndo(actor.storeId, change.id))) {
        return yield* refuse(new ChangeError.AlreadyUndone({ message: `Change #${id} was already undone` }))
      }
      const entityId = yield* entity
        .write(actor.storeId, change.entityId, values, how)
        .pipe(Effect.tapError(() => store.releaseUndo(actor.storeId, change.id)))
      const after = yield* entity.snapshot(actor.storeId, entityId)
      const recorded = (snapshot: Option.Option<unknown>) =>
        Option.match(snapshot, {
          onNone: () => null,
          onSome: (now) =>
            entity.recorded === undefined
              ? Fields.pick(now, recordedValues, entity.layout)
              : entity.recorded(now, recordedValues)
        })
      const undoChangeId = yield* log.record(
        {
          storeId: actor.storeId,
          entity: change.entity,
          entityId,
          action: "update",
          summary: `Undo of change #${id}`,
          keyId: actor.keyId,
          before: recorded(before),
          after: recorded(after)
        },
        { undoOf: change.id }
      )
      if (undoChangeId !== null) yield* store.linkUndo(actor.storeId, change.id, undoChangeId)
      return { undone: true as const, change_id: change.id, entity: change.entity, undo_change_id: undoChangeId }
    })

    return Changes.of({
      list: method("Changes.list")(function* (storeId, params = {}) {
        const limit = limitOf(params.limit)
        const entity = ENTITY_NAMES.includes(params.entity ?? "") ? params.entity : undefined
        const rows = yield* store.list(storeId, {
          limit: limit + 1,
          afterId: Pagination.afterIdOf(params.cursor),
          entity
        })
        return Pagination.page(rows, limit, (row) => row.id, toListItem)
      }),
      get: method("Changes.get")(function* (actor, id) {
        const change = yield* find(actor.storeId, id)
        const scope = scopesOf(change.entity).readScope
        if (!actor.scopes.includes(scope)) return yield* missingScope(scope)
        return toDetail(change)
      }),
      undo
    })
  })
)
