/**
 * Promo codes as an entity of the change history (`promo_code`, scopes `promos:read` / `promos:write`): how an undo
 * reads, validates and writes a code's recorded values (spec "Undo rules" 5 and 6).
 *
 * Values are the code's wire form: the whole code for a create or a delete, the fields an update changed (with the
 * code's `id`) for an update. An undo writes them back through the add-on gate and the unique-text check
 * (`AddonInactive`, `CodeExists`), without the 100% confirmation and without the future-expiry rule: it restores
 * what was, even a 100% discount or a passed expiry. An update's undo writes the fields the update changed — the
 * code they leave must still hold together (the pair rule, the date window: `InvalidDiscountValue`,
 * `InvalidDateWindow`) — and leaves the others, `used_count` among them, as later writes and checkouts made them; a
 * deleted code returns with its id when no code holds it, its usage count and its creation time.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option, Schema } from "effect"
import {
  LAYOUT,
  PromoCodeFields,
  PromoCodeId,
  type PromoPatch,
  RecordedPromo,
  type RecordedPromo as RecordedPromoType,
  valuesOf
} from "./PromoCode.ts"
import * as PromoError from "./PromoError.ts"
import * as PromoRules from "./PromoRules.ts"
import { PromoStore } from "./PromoStore.ts"
import { ADDON_INACTIVE, codeExists, ENTITY, NOT_FOUND, snapshot } from "./Promos.ts"

const refuse = (reason: PromoError.PromoErrorReason) => Effect.fail(PromoError.fail(reason))

const isWhole = Schema.is(PromoCodeFields)

/** The fields an update's undo writes back: those of a PATCH that the update changed. */
const patchOf = (values: RecordedPromoType): PromoPatch => {
  const { id: _, used_count: __, created_at: ___, updated_at: ____, ...patch } = values
  return patch
}

export const entity: Effect.Effect<Entity.Entity<RecordedPromoType>, never, PromoStore> = Effect.map(
  Effect.service(PromoStore),
  (store): Entity.Entity<RecordedPromoType> => ({
    name: ENTITY,
    readScope: "promos:read",
    undoScope: "promos:write",
    values: RecordedPromo,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
        ? Effect.map(store.get(storeId, PromoCodeId.make(Number(entityId))), Option.map(snapshot))
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values, how) {
      if (!(yield* store.addonActive(storeId)))
        return yield* refuse(new PromoError.AddonInactive({ message: ADDON_INACTIVE }))
      if (how === "recreate") {
        // A delete records the whole code.
        if (!isWhole(values)) return yield* Effect.die(new Error("a promo code's delete recorded part of it"))
        const created = yield* store
          .insert(storeId, valuesOf(values), {
            id: values.id,
            used_count: values.used_count,
            created_at: values.created_at
          })
          .pipe(
            Effect.catchTag("CodeTaken", () => refuse(new PromoError.CodeExists({ message: codeExists(values.code) })))
          )
        return String(created.id)
      }
      const current = yield* store.get(storeId, values.id)
      if (Option.isNone(current)) return yield* refuse(new PromoError.PromoNotFound({ message: NOT_FOUND }))
      const patch = patchOf(values)
      yield* PromoRules.checkRestored({ ...valuesOf(current.value), ...patch })
      const updated = yield* store
        .update(storeId, values.id, patch)
        .pipe(
          Effect.catchTag("CodeTaken", () =>
            refuse(new PromoError.CodeExists({ message: codeExists(patch.code ?? current.value.code) }))
          )
        )
      if (Option.isNone(updated)) return yield* refuse(new PromoError.PromoNotFound({ message: NOT_FOUND }))
      return String(values.id)
    })
  })
)
