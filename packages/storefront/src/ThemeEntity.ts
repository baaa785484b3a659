/**
 * The store's theme choices as an entity of the change history (`store.theme`, entity id `theme`, scopes
 * `store:read` / `store:write`): an undo writes back the choices, digital flag and palette colours the switch changed
 * (spec rule 2: "Undo restores the earlier theme and colours"), each changed choice passing the switch's checks
 * again; colours the switch left alone keep what later writes made them.
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { StorefrontStore } from "./StorefrontStore.ts"
import * as ThemeError from "./ThemeError.ts"
import { checkRestore, ENTITY, ENTITY_ID, LAYOUT, restored, ThemeValues } from "./Themes.ts"

const storeNotFound = () => Effect.fail(ThemeError.fail(new ThemeError.StoreNotFound({ message: "Store not found" })))

export const entity: Effect.Effect<Entity.Entity<ThemeValues>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<ThemeValues> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    values: ThemeValues,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? Effect.map(
            store.settings(storeId),
            Option.map((settings) => settings.theme)
          )
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      const settings = yield* store.settings(storeId)
      if (Option.isNone(settings)) return yield* storeNotFound()
      const state = restored(settings.value.theme, values)
      yield* checkRestore(settings.value, state)
      if (!(yield* store.writeTheme(storeId, state))) return yield* storeNotFound()
      return ENTITY_ID
    })
  })
)
