/**
 * Where a store's shipping configuration lives: its rates and its settings. The port, and its in-memory
 * implementation (tests, one-process runs).
 *
 * The writes of one store are serialised: `lock` takes the store's shipping row for the caller's transaction before
 * a write reads the values it will replace, so two writes never record the same "before". Everything else — the
 * rules, the messages, the change history — is `ShippingRates`'s and `ShippingSettings`'s.
 */
import type { Ids } from "@tawsil/domain"
import { Context, DateTime, Effect, Layer } from "effect"
import { hasPrice, type Prices, type StoredRate } from "./Rate.ts"
import { DEFAULTS, type SettingsFields, type StoredSettings } from "./Settings.ts"

export class ShippingStore extends Context.Service<
  ShippingStore,
  {
    /** The store's rates, by wilaya code. */
    readonly rates: (storeId: Ids.StoreId) => Effect.Effect<ReadonlyArray<StoredRate>>
    /** Serialises the store's shipping writes (rates and settings) for the caller's transaction. */
    readonly lock: (storeId: Ids.StoreId) => Effect.Effect<void>
    /**
     * Runs `effect` as one transaction of the store (joining the caller's, if one is open): a courier rate sync asks
     * the courier first, outside any transaction, and only then writes in one. In memory it runs as is.
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** Writes each wilaya's prices (a wilaya left with neither is removed). */
    readonly putRates: (storeId: Ids.StoreId, prices: ReadonlyArray<Prices>) => Effect.Effect<void>
    /** The store's settings; the defaults for a store that never changed one. */
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<StoredSettings>
    readonly putSettings: (storeId: Ids.StoreId, settings: SettingsFields) => Effect.Effect<StoredSettings>
  }
>()("@tawsil/store-shipping/ShippingStore") {}

interface Shipping {
  readonly rates: Map<number, StoredRate>
  settings: StoredSettings
}

export const layerMemory: Layer.Layer<ShippingStore> = Layer.sync(ShippingStore, () => {
  const stores = new Map<number, Shipping>()
  const of = (storeId: Ids.StoreId): Shipping => {
    let found = stores.get(storeId)
    if (found === undefined) {
      found = { rates: new Map(), settings: { ...DEFAULTS, updated_at: null } }
      stores.set(storeId, found)
    }
    return found
  }
  return ShippingStore.of({
    rates: (storeId) => Effect.sync(() => [...of(storeId).rates.values()].sort((a, b) => a.wilaya_id - b.wilaya_id)),
    lock: (storeId) => Effect.sync(() => void of(storeId)),
    transaction: (effect) => effect,
    putRates: (storeId, prices) =>
      Effect.map(DateTime.now, (now) => {
        const shipping = of(storeId)
        for (const price of prices) {
          if (hasPrice(price)) shipping.rates.set(price.wilaya_id, { ...price, updated_at: now })
          else shipping.rates.delete(price.wilaya_id)
        }
      }),
    settings: (storeId) => Effect.sync(() => of(storeId).settings),
    putSettings: (storeId, settings) =>
      Effect.map(DateTime.now, (now) => {
        const shipping = of(storeId)
        shipping.settings = { ...settings, updated_at: now }
        return shipping.settings
      })
  })
})
