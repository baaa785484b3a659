/**
 * The store's theme choices as an entity of the change history (`store.theme`, entity id `theme`, scopes
 * `store:read` / `store:write`): an undo writes back the earlier choices, digital flag and colours (spec rule 2:
 * "Undo restores the earlier theme and colours"), each changed choice passing the switch's checks again.
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { StorefrontStore } from "./StorefrontStore.ts"
import * as ThemeError from "./ThemeError.ts"
import { checkRestore, ENTITY, ENTITY_ID, ThemeValues } from "./Themes.ts"

const storeNotFound = () => Effect.fail(ThemeError.fail(new ThemeError.StoreNotFound({ message: "Store not found" })))

export const entity: Effect.Effect<Entity.Entity<typeof ThemeValues.Type>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<typeof ThemeValues.Type> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    values: ThemeValues,
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
      yield* checkRestore(settings.value, values)
      if (!(yield* store.writeTheme(storeId, values))) return yield* storeNotFound()
      return ENTITY_ID
    })
  })
)
