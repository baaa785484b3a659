/**
 * Shipping settings as an entity of the change history (`shipping.settings`, entity id `settings`, scopes
 * `shipping:read` / `shipping:write`). A PATCH records the settings it changed; an undo writes those back over the
 * current ones through the PATCH's checks — a `default_courier` no longer in the shipping API's catalogue refuses it
 * as the PATCH would (`InvalidShippingBody`) — and leaves the others as later writes made them.
 */
import type { Entity } from "@tawsil/changes"
import { Gateway } from "@tawsil/shipping"
import { Effect, Option, Result } from "effect"
import { fieldsOf, LAYOUT, RecordedSettings, settingsOf, valuesOf } from "./Settings.ts"
import { courierKey, ENTITY, ENTITY_ID } from "./ShippingSettings.ts"
import { ShippingStore } from "./ShippingStore.ts"
import * as StoreShippingError from "./StoreShippingError.ts"

const invalid = (message: string) =>
  Effect.fail(StoreShippingError.fail(new StoreShippingError.InvalidShippingBody({ message })))

export const entity: Effect.Effect<
  Entity.Entity<RecordedSettings>,
  never,
  ShippingStore | Gateway.Gateway
> = Effect.gen(function* () {
  const store = yield* ShippingStore
  const courier = courierKey(yield* Gateway.Gateway)
  return {
    name: ENTITY,
    readScope: "shipping:read",
    undoScope: "shipping:write",
    values: RecordedSettings,
    layout: LAYOUT,
    snapshot: (storeId, entityId) =>
      entityId === ENTITY_ID
        ? Effect.map(store.settings(storeId), (settings) => Option.some<unknown>(settingsOf(settings)))
        : Effect.succeedNone,
    write: Effect.fnUntraced(function* (storeId, _entityId, values) {
      yield* store.lock(storeId)
      const fields = fieldsOf({ ...valuesOf(yield* store.settings(storeId)), ...values })
      if (Result.isFailure(fields)) return yield* invalid(fields.failure)
      const key = values.default_courier
      if (key !== undefined && key !== null && courier(key) === undefined) {
        return yield* invalid(
          `default_courier ${key} is no longer a courier of GET /v1/couriers: the earlier settings cannot be restored`
        )
      }
      yield* store.putSettings(storeId, fields.success)
      return ENTITY_ID
    })
  } satisfies Entity.Entity<RecordedSettings>
})
