/**
 * The store's settings as an entity of the change history (`store.settings`, entity id `settings`, scopes
 * `store:read` / `store:write`): an undo writes the recorded fields back through the checks of `PATCH /v1/store`,
 * as a body sending those fields; the others keep what later writes made them.
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { apply, ENTITY, ENTITY_ID, LAYOUT, SettingsValues, valuesOf } from "./Settings.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const entity: Effect.Effect<Entity.Entity<SettingsValues>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<SettingsValues> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    values: SettingsValues,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID ? Effect.map(store.profile(storeId), Option.map(valuesOf)) : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      if (!(yield* store.lock(storeId))) return yield* StoreConfigError.storeNotFound()
      const found = yield* store.profile(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      const checked = yield* apply(valuesOf(found.value), values).pipe(Effect.mapError(StoreConfigError.invalid))
      if (!(yield* store.writeSettings(storeId, checked))) return yield* StoreConfigError.storeNotFound()
      return ENTITY_ID
    })
  })
)
