/**
 * A store's shipping settings (`GET` and `PATCH /v1/shipping/settings`) over a `ShippingStore`, each PATCH that
 * changes a value recorded in the change history (entity `shipping.settings`, entity id `settings`) in the same
 * transaction. Only sent fields change; a PATCH that changes no value records nothing. `default_courier` must name a
 * courier of the shipping API's catalogue (an alias is saved as its key).
 */
import { ChangeLog } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import { Gateway } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer } from "effect"
import {
  changedNames,
  LAYOUT,
  type Settings,
  type SettingsFields,
  settingsOf,
  settingsPatchParser
} from "./Settings.ts"
import { ShippingStore } from "./ShippingStore.ts"
import * as StoreShippingError from "./StoreShippingError.ts"

export const ENTITY = "shipping.settings"
export const ENTITY_ID = "settings"

export class ShippingSettings extends Context.Service<
  ShippingSettings,
  {
    /** `GET /v1/shipping/settings`: the defaults for a store that never changed one. */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<Settings>
    /** `PATCH /v1/shipping/settings`. */
    readonly update: (
      writer: ChangeLog.Writer,
      body: unknown
    ) => Effect.Effect<Settings, StoreShippingError.StoreShippingError>
  }
>()("@tawsil/store-shipping/ShippingSettings") {}

/** A courier's key in the gateway's catalogue, from its key or an alias. */
export const courierKey = (gateway: Gateway.Gateway["Service"]) => (keyOrAlias: string) =>
  gateway.catalogue.resolve(keyOrAlias)?.entry.key

/** The settings written, without their time. */
export const fieldsOfStored = ({ updated_at: _, ...fields }: SettingsFields & { readonly updated_at: unknown }) =>
  fields as SettingsFields

export const layer: Layer.Layer<ShippingSettings, never, ShippingStore | ChangeLog.ChangeLog | Gateway.Gateway> =
  Layer.effect(
    ShippingSettings,
    Effect.gen(function* () {
      const method = yield* ServiceSpans.method
      const store = yield* ShippingStore
      const parsePatch = settingsPatchParser(courierKey(yield* Gateway.Gateway))
      const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

      return ShippingSettings.of({
        get: method("ShippingSettings.get")(function* (storeId) {
          return settingsOf(yield* store.settings(storeId))
        }),
        update: method("ShippingSettings.update")(function* (writer, body) {
          const patch = yield* Effect.mapError(parsePatch(body), (message) =>
            StoreShippingError.fail(new StoreShippingError.InvalidShippingBody({ message }))
          )
          yield* store.lock(writer.storeId)
          const current = yield* store.settings(writer.storeId)
          const next: SettingsFields = { ...fieldsOfStored(current), ...patch }
          const changed = changedNames(current, next)
          if (changed.length === 0) return settingsOf(current)
          const written = yield* store.putSettings(writer.storeId, next)
          yield* record(
            writer,
            "update",
            ENTITY_ID,
            `Updated shipping settings (${changed.join(", ")})`,
            settingsOf(current),
            settingsOf(written)
          )
          return settingsOf(written)
        })
      })
    })
  )
