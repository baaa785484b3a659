/**
 * Promo codes as an entity of the change history (`promo_code`, scopes `promos:read` / `promos:write`): how an undo
 * reads, validates and writes a code's recorded values (spec "Undo rules" 5 and 6).
 *
 * Values are the code's wire form. An undo writes them back through the add-on gate and the unique-text check
 * (`AddonInactive`, `CodeExists`), without the 100% confirmation and without the future-expiry rule: it restores
 * what was, even a 100% discount or a passed expiry. An update's undo leaves `used_count` as checkouts made it; a
 * deleted code returns with its id when no code holds it, its usage count and its creation time.
 */
import type { Entity } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect, Option } from "effect"
import { PromoCode, PromoCodeId, valuesOf } from "./PromoCode.ts"
import * as PromoError from "./PromoError.ts"
import { PromoStore } from "./PromoStore.ts"
import { ADDON_INACTIVE, codeExists, ENTITY, NOT_FOUND, snapshot } from "./Promos.ts"

const refuse = (reason: PromoError.PromoErrorReason) => Effect.fail(PromoError.fail(reason))

export const entity: Effect.Effect<Entity.Entity<PromoCode>, never, PromoStore> = Effect.map(
  Effect.service(PromoStore),
  (store): Entity.Entity<PromoCode> => ({
    name: ENTITY,
    readScope: "promos:read",
    undoScope: "promos:write",
    values: PromoCode,
    snapshot: (storeId, entityId) =>
      /^[0-9]{1,10}$/.test(entityId) && Ids.isStorableId(Number(entityId))
        ? Effect.map(store.get(storeId, PromoCodeId.make(Number(entityId))), Option.map(snapshot))
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values, how) {
      if (!(yield* store.addonActive(storeId)))
        return yield* refuse(new PromoError.AddonInactive({ message: ADDON_INACTIVE }))
      const taken = () => refuse(new PromoError.CodeExists({ message: codeExists(values.code) }))
      if (how === "recreate") {
        const created = yield* store
          .insert(storeId, valuesOf(values), {
            id: values.id,
            used_count: values.used_count,
            created_at: values.created_at
          })
          .pipe(Effect.catchTag("CodeTaken", taken))
        return String(created.id)
      }
      const updated = yield* store
        .update(storeId, values.id, valuesOf(values))
        .pipe(Effect.catchTag("CodeTaken", taken))
      if (Option.isNone(updated)) return yield* refuse(new PromoError.PromoNotFound({ message: NOT_FOUND }))
      return String(values.id)
    })
  })
)
