/**
 * The Promo codes add-on of a store (spec: "The Promo codes add-on must be active on the store"): new stores start
 * with it on; while it is off, promo code writes are refused (`AddonInactive`) and checkouts refuse codes. The
 * operator turns it on and off (`npm run admin -- store addon`).
 */
import type { Ids } from "@tawsil/domain"
import { Context, Effect, Layer } from "effect"
import { PromoStore } from "./PromoStore.ts"

export class PromoAddon extends Context.Service<
  PromoAddon,
  {
    readonly isActive: (storeId: Ids.StoreId) => Effect.Effect<boolean>
    /** Turns it on or off; false when there is no such store. */
    readonly set: (storeId: Ids.StoreId, active: boolean) => Effect.Effect<boolean>
  }
>()("@tawsil/promos/PromoAddon") {}

export const layer: Layer.Layer<PromoAddon, never, PromoStore> = Layer.effect(
  PromoAddon,
  Effect.map(Effect.service(PromoStore), (store) => PromoAddon.of({ isActive: store.addonActive, set: store.setAddon }))
)
