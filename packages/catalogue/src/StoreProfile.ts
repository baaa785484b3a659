/**
 * The store API's `GET /v1/store`: the calling store's profile (`Store`), over a `StoreProfileStore`.
 */
import type { Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option } from "effect"
import { fromRecord, type Store } from "./Store.ts"
import * as StoreProfileError from "./StoreProfileError.ts"
import { StoreProfileStore } from "./StoreProfileStore.ts"

export class StoreProfile extends Context.Service<
  StoreProfile,
  {
    /** The store, or `StoreNotFound` when no such store exists (an authenticated key always names one). */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<Store, StoreProfileError.StoreProfileError>
  }
>()("@tawsil/catalogue/StoreProfile") {}

export const layer: Layer.Layer<StoreProfile, never, StoreProfileStore> = Layer.effect(
  StoreProfile,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StoreProfileStore
    return StoreProfile.of({
      get: method("StoreProfile.get")(function* (storeId) {
        return yield* store.get(storeId).pipe(
          Effect.flatMap(
            Option.match({
              onNone: () =>
                Effect.fail(
                  new StoreProfileError.StoreProfileError({
                    reason: new StoreProfileError.StoreNotFound({ message: "Store not found" })
                  })
                ),
              onSome: (record) => Effect.succeed(fromRecord(record))
            })
          )
        )
      })
    })
  })
)
