/**
 * The host's memory for adapters (`@tawsil/courier`'s `AdapterMemory`): each adapter gets its own space, its keys
 * under its platform, so that no adapter reads another's. Kept in this process (`layerMemory`), or in Redis
 * (`layerRedis`) so that what one instance's call kept another's finds (the sandbox's cancelled parcels); when Redis
 * fails, this process keeps it alone (a fallback beside it, with a warning in the log), as `CommuneLists` does.
 */
import type { AdapterMemory } from "@tawsil/courier/AdapterMemory"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Persistence } from "effect/persistence"

/** The store's id: Redis keys are under its namespace. */
export const STORE_ID = "tawsil-adapters"

export class AdapterMemories extends Context.Service<
  AdapterMemories,
  {
    /** The memory of the adapter of `platform`. */
    readonly of: (platform: string) => AdapterMemory
  }
>()("@tawsil/shipping/AdapterMemories") {}

const Kept = Schema.Struct({ value: Schema.String })
const decodeKept = Schema.decodeUnknownOption(Kept)

/** The memories over `store`, and `fallback` for when it fails. */
export const make = (
  store: Persistence.BackingPersistenceStore,
  fallback: Persistence.BackingPersistenceStore
): AdapterMemories["Service"] => {
  const degraded = <A>(
    onStore: Effect.Effect<A, Persistence.PersistenceError>,
    onFallback: Effect.Effect<A, Persistence.PersistenceError>
  ) =>
    onStore.pipe(
      Effect.catchTag("PersistenceError", (error) =>
        Effect.logWarning("adapter memory store failed; kept by this process alone").pipe(
          Effect.annotateLogs({ reason: error.message }),
          Effect.andThen(onFallback),
          Effect.orDie
        )
      )
    )
  return AdapterMemories.of({
    of: (platform) => ({
      get: (key) =>
        Effect.map(degraded(store.get(`${platform}:${key}`), fallback.get(`${platform}:${key}`)), (kept) =>
          kept === undefined ? undefined : Option.getOrUndefined(Option.map(decodeKept(kept), ({ value }) => value))
        ),
      set: (key, value, timeToLive) =>
        degraded(
          store.set(`${platform}:${key}`, { value }, timeToLive),
          fallback.set(`${platform}:${key}`, { value }, timeToLive)
        )
    })
  })
}

const memoryStore = Persistence.BackingPersistence.use((backing) => backing.make(STORE_ID)).pipe(
  Effect.provide(Persistence.layerBackingMemory)
)

/** Memories kept in this process. */
export const layerMemory: Layer.Layer<AdapterMemories> = Layer.effect(
  AdapterMemories,
  Effect.map(memoryStore, (store) => make(store, store))
)

/** Memories kept in Redis, shared by every instance on it (keys under {@link STORE_ID}'s namespace). */
export const layerRedis: Layer.Layer<AdapterMemories, never, Persistence.BackingPersistence> = Layer.effect(
  AdapterMemories,
  Effect.gen(function* () {
    const backing = yield* Persistence.BackingPersistence
    return make(yield* backing.make(STORE_ID), yield* memoryStore)
  })
)
