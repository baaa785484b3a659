/**
 * Shipping rates as an entity of the change history (`shipping.rates`, entity id `rates`, scopes `shipping:read` /
 * `shipping:write`; spec "Undo rules" 7 and 8).
 *
 * An undo writes recorded prices back: the wilayas in `rates` get their prices again, the ones in `absent` lose
 * theirs. So undoing a rates write puts the prices it replaced back and removes the rates of wilayas that had none,
 * and undoing a courier rate sync (whose `before` lists only the prices it overwrote) keeps the rates it added. An
 * undo records the whole table (every wilaya, with the store's rate `revision`); undoing that undo writes the table
 * back, applying the original change again — except after a sync's undo, whose revision is noted
 * (`ShippingStore.markSyncUndo`): a sync records no `after`, so that is `NothingToRestore` (422
 * `nothing_to_restore`).
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { pricesOf, RatesValues, snapshotOf } from "./Rate.ts"
import { ENTITY, ENTITY_ID } from "./ShippingRates.ts"
import { ShippingStore } from "./ShippingStore.ts"
import * as StoreShippingError from "./StoreShippingError.ts"

export const entity: Effect.Effect<Entity.Entity<RatesValues>, never, ShippingStore> = Effect.map(
  Effect.service(ShippingStore),
  (store): Entity.Entity<RatesValues> => ({
    name: ENTITY,
    readScope: "shipping:read",
    undoScope: "shipping:write",
    values: RatesValues,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? Effect.map(Effect.all([store.revision(storeId), store.rates(storeId)]), ([revision, rates]) =>
            Option.some<unknown>(snapshotOf(revision, rates))
          )
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      if (values.revision !== undefined && (yield* store.isSyncUndo(storeId, values.revision))) {
        return yield* Effect.fail(
          StoreShippingError.fail(
            new StoreShippingError.NothingToRestore({
              message:
                "This change undid a courier rate sync, which records no values to apply again: sync the courier again instead"
            })
          )
        )
      }
      const revision = yield* store.lock(storeId)
      // A sync's `before` names its courier: the table this undo replaces is the one a later undo must not restore.
      if (values.courier !== undefined) yield* store.markSyncUndo(storeId, revision)
      yield* store.putRates(storeId, pricesOf(values))
      return ENTITY_ID
    })
  })
)
