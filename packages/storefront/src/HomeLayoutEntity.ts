/**
 * The store's home layout as an entity of the change history (`store.home_layout`, entity id `layout`, scopes
 * `store:read` / `store:write`). Every layout write is recorded as an update of the whole layout, so an undo — of an
 * added section too — writes the whole earlier layout back, checked as the writes that made it were; and it is
 * refused while a later change of the layout stands (spec undo rule 3: `laterChangesBlockUndo`, 409
 * `layout_changed`). Section ids given since stay given: `last_section_id` never goes back.
 */
import type { Entity } from "@tawsil/changes"
import { Effect, Option } from "effect"
import { checkSections, ENTITY, ENTITY_ID, LayoutValues, laterChange } from "./HomeLayout.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const entity: Effect.Effect<Entity.Entity<typeof LayoutValues.Type>, never, StorefrontStore> = Effect.map(
  Effect.service(StorefrontStore),
  (store): Entity.Entity<typeof LayoutValues.Type> => ({
    name: ENTITY,
    readScope: "store:read",
    undoScope: "store:write",
    laterChangesBlockUndo: laterChange,
    values: LayoutValues,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? Effect.map(
            store.homeLayout(storeId),
            Option.map(({ sections }) => ({ sections }))
          )
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      if (!(yield* store.lock(storeId))) return yield* StoreConfigError.storeNotFound()
      const found = yield* store.homeLayout(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      const sections = yield* checkSections(values.sections).pipe(Effect.mapError(StoreConfigError.invalid))
      const last = Math.max(found.value.last_section_id, ...sections.map((section) => section.id))
      if (!(yield* store.writeHomeLayout(storeId, { sections, last_section_id: last }))) {
        return yield* StoreConfigError.storeNotFound()
      }
      return ENTITY_ID
    })
  })
)
