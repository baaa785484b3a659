/**
 * Where the store profile is read from: the port, and its in-memory implementation, seeded with the stores it
 * knows (tests, one-process development). The catalogue only reads stores; their rows are written elsewhere.
 */
import type { Ids } from "@tawsil/domain"
import { Context, Effect, Layer, Option } from "effect"
import type { StoreRecord } from "./Store.ts"

export class StoreProfileStore extends Context.Service<
  StoreProfileStore,
  {
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<StoreRecord>>
  }
>()("@tawsil/catalogue/StoreProfileStore") {}

export const layerMemory = (stores: Iterable<StoreRecord>): Layer.Layer<StoreProfileStore> =>
  Layer.sync(StoreProfileStore, () => {
    const byId = new Map<number, StoreRecord>([...stores].map((store) => [store.id, store]))
    return StoreProfileStore.of({
      get: (storeId) => Effect.sync(() => Option.fromNullishOr(byId.get(storeId)))
    })
  })
