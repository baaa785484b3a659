/**
 * Where a store's parcels leave from, when a ship request does not say (`from_wilaya`): couriers that price or route
 * by origin (the Yalidine engine) need it on every create. The host tells it — the Tawsil app reads the store's
 * shipping settings (`origin_wilaya` of `@tawsil/store-shipping`); by default no store has one.
 */
import type { Ids, WilayaCode } from "@tawsil/domain"
import { Context, Effect } from "effect"

export interface Origins {
  readonly of: (storeId: Ids.StoreId) => Effect.Effect<WilayaCode.WilayaCode | undefined>
}

export const StoreOrigin = Context.Reference<Origins>("@tawsil/shipments/StoreOrigin", {
  defaultValue: () => ({ of: () => Effect.succeed(undefined) })
})
