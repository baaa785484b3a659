/**
 * The store's design as an entity of the change history (`store.design`, entity id `design`, scopes `store:read` /
 * `store:write`): an undo writes the recorded fields back through the checks of `PATCH /v1/store/design` — the others
 * keep what later writes made them — its palette colours moved to the store's palette now when a theme switch
 * changed it since (`Design.restoredBody`).
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { apply, current, DesignValues, ENTITY, ENTITY_ID, LAYOUT, paletteOf, restoredBody } from "./Design.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const entity: Effect.Effect<Entity.Entity<DesignValues>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<DesignValues> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    values: DesignValues,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? current(store, storeId).pipe(
            Effect.map(({ theme, design }) => Option.some({ is_digital: theme.is_digital, ...design })),
            Effect.orElseSucceed(() => Option.none())
          )
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      if (!(yield* store.lock(storeId))) return yield* StoreConfigError.storeNotFound()
      const { theme, design } = yield* current(store, storeId)
      const restored = yield* apply(design, paletteOf(theme.is_digital), restoredBody(values, theme.is_digital)).pipe(
        Effect.mapError(StoreConfigError.invalid)
      )
      if (!(yield* store.writeDesign(storeId, restored))) return yield* StoreConfigError.storeNotFound()
      return ENTITY_ID
    })
  })
)
