/**
 * The theme's standard home sections as an entity of the change history (`store.home_sections`, entity id
 * `home_sections`, scopes `store:read` / `store:write`): an undo writes the recorded keys of the recorded sections
 * back through the checks of `PATCH /v1/store/home-sections`; the others keep what later writes made them.
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { apply, ENTITY, ENTITY_ID, LAYOUT, RecordedSections } from "./HomeSections.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const entity: Effect.Effect<Entity.Entity<RecordedSections>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<RecordedSections> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    values: RecordedSections,
    layout: LAYOUT,
    snapshot: (storeId, entityId) => (entityId === ENTITY_ID ? store.homeSections(storeId) : Effect.succeedNone),
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      if (!(yield* store.lock(storeId))) return yield* StoreConfigError.storeNotFound()
      const found = yield* store.homeSections(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      const checked = yield* apply(found.value, values).pipe(Effect.mapError(StoreConfigError.invalid))
      if (!(yield* store.writeHomeSections(storeId, checked))) return yield* StoreConfigError.storeNotFound()
      return ENTITY_ID
    })
  })
)
