/**
 * Couriers' commune lists, kept by the host so that a create does not read its courier's list first every time (one
 * more request per parcel, and a second point of failure). A list is kept per courier, tenant origin and wilaya —
 * never per caller: a courier's communes are not a merchant's secret, and the credentials that read a list are
 * neither in its key nor in its value. docs/decisions/0035-commune-list-cache.md
 *
 * A list younger than {@link FRESH_FOR} is served as kept; an older one, up to {@link MAX_AGE}, is served as kept
 * while this process reads it again in the background (with the credentials of the call that found it stale, once
 * per list at a time); past a day it is not served: the list is read before the call goes on. When that read fails
 * the call gets the failure and decides (a create goes on in the reference spelling).
 *
 * Where lists are kept: in this process (`layerMemory`), or in Redis (`layerRedis`) so that every instance of the
 * host shares them; when Redis fails, this process keeps them alone (a fallback beside it, with a warning in the
 * log), as the courier pacer does. The stores are effect's `BackingPersistence` (`effect/persistence`).
 */
import type { CourierCommune } from "@tawsil/courier/CourierAdapter"
import { Clock, Context, Duration, Effect, Layer, Option, Schema, type Scope } from "effect"
import { Persistence } from "effect/persistence"

/** A list this young is served without a read. */
export const FRESH_FOR = Duration.hours(1)
/** A list is never served older than this: a day. */
export const MAX_AGE = Duration.days(1)

/** The store's id: Redis keys are under its namespace. */
export const STORE_ID = "tawsil-communes"

/** Which list: the courier's key, the tenant origin a generic platform's call names, the wilaya. */
export interface ListKey {
  readonly courier: string
  readonly origin?: string | undefined
  readonly wilayaCode: number
}

/** A list's key in the store: courier, origin (empty for a pinned courier) and wilaya; nothing of the caller's. */
export const keyOf = ({ courier, origin, wilayaCode }: ListKey): string => `${courier}|${origin ?? ""}|${wilayaCode}`

/** A kept list: the courier's entries and when they were read (`Clock` milliseconds). */
export const Entry = Schema.Struct({
  readAt: Schema.Number,
  communes: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      id: Schema.optionalKey(Schema.String),
      home: Schema.Boolean,
      stopdesk: Schema.Boolean
    })
  )
})
export type Entry = typeof Entry.Type

const decodeEntry = Schema.decodeUnknownOption(Entry)

export class CommuneLists extends Context.Service<
  CommuneLists,
  {
    /**
     * The courier's list for `key`: as kept when it is young enough, else through `read` (whose success is kept).
     * Fails only as `read` does, when no list under a day old is kept.
     */
    readonly get: <E>(
      key: ListKey,
      read: Effect.Effect<ReadonlyArray<CourierCommune>, E>
    ) => Effect.Effect<ReadonlyArray<CourierCommune>, E>
  }
>()("@tawsil/shipping/CommuneLists") {}

/** An entry as stored: only the fields the SDK names, so nothing else an adapter put on an entry is kept. */
const entryOf = (communes: ReadonlyArray<CourierCommune>, readAt: number): Entry => ({
  readAt,
  communes: communes.map((commune) => ({
    name: commune.name,
    ...(commune.id === undefined ? {} : { id: commune.id }),
    home: commune.home,
    stopdesk: commune.stopdesk
  }))
})

/**
 * The lists over `store`, and `fallback` for when it fails (a store in this process never does); background reads
 * run in `scope`.
 */
export const make = (
  store: Persistence.BackingPersistenceStore,
  fallback: Persistence.BackingPersistenceStore,
  scope: Scope.Scope
): CommuneLists["Service"] => {
  /** The lists being read again in the background by this process. */
  const refreshing = new Set<string>()
  /**
   * What this process last found or read of each list, decoded: while it is fresh, a create takes its list from here,
   * with neither the store's round trip nor a decode of the whole list (which cost a sandbox create a third of its
   * time); once it is not, the store says what the other instances found.
   */
  const local = new Map<string, Entry>()
  const degraded = <A>(
    what: string,
    onStore: Effect.Effect<A, Persistence.PersistenceError>,
    onFallback: Effect.Effect<A, Persistence.PersistenceError>
  ) =>
    onStore.pipe(
      Effect.catchTag("PersistenceError", (error) =>
        Effect.logWarning(`commune list store failed to ${what}; kept by this process alone`).pipe(
          Effect.annotateLogs({ reason: error.message }),
          Effect.andThen(onFallback),
          Effect.orDie
        )
      )
    )
  const load = (id: string) =>
    Effect.map(degraded("read", store.get(id), fallback.get(id)), (value) =>
      // An entry that does not decode (another version's, a damaged one) counts as none.
      value === undefined ? undefined : Option.getOrUndefined(decodeEntry(value))
    )
  const save = (id: string, communes: ReadonlyArray<CourierCommune>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const entry = entryOf(communes, now)
      local.set(id, entry)
      return degraded("write", store.set(id, entry, MAX_AGE), fallback.set(id, entry, MAX_AGE))
    })
  const refresh = <E>(id: string, read: Effect.Effect<ReadonlyArray<CourierCommune>, E>) => {
    if (refreshing.has(id)) return Effect.void
    refreshing.add(id)
    return read.pipe(
      Effect.flatMap((communes) => save(id, communes)),
      Effect.catchCause((cause) =>
        Effect.logWarning("commune list refresh failed; the kept list is served until it is a day old").pipe(
          Effect.annotateLogs({ list: id, cause: String(cause) })
        )
      ),
      Effect.ensuring(Effect.sync(() => refreshing.delete(id))),
      Effect.forkIn(scope),
      Effect.asVoid
    )
  }
  /** A list this process does not hold fresh: the shared store's, refreshed when stale, or the courier's. */
  const fromStore = <E>(id: string, now: number, read: Effect.Effect<ReadonlyArray<CourierCommune>, E>) =>
    Effect.gen(function* () {
      const kept = yield* load(id)
      if (kept !== undefined) local.set(id, kept)
      if (kept !== undefined && now - kept.readAt < Duration.toMillis(MAX_AGE)) {
        if (now - kept.readAt >= Duration.toMillis(FRESH_FOR)) yield* refresh(id, read)
        return kept.communes
      }
      const communes = yield* read
      yield* save(id, communes)
      return communes
    })
  return CommuneLists.of({
    // Every create asks, and nearly always finds the list here: plain code up to that point. Measured with a generator
    // around it: the caller's `read` (and the whole prepared call it holds) outlived the next scavenge, which this
    // form does not do (docs/benchmarks.md, "Garbage that outlives its request").
    get: (key, read) => {
      const id = keyOf(key)
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const near = local.get(id)
        return near !== undefined && now - near.readAt < Duration.toMillis(FRESH_FOR)
          ? Effect.succeed(near.communes)
          : fromStore(id, now, read)
      })
    }
  })
}

const memoryStore = Persistence.BackingPersistence.use((backing) => backing.make(STORE_ID)).pipe(
  Effect.provide(Persistence.layerBackingMemory)
)

/** Lists kept in this process, background reads in the current scope. */
export const makeMemory: Effect.Effect<CommuneLists["Service"], never, Scope.Scope> = Effect.gen(function* () {
  const store = yield* memoryStore
  return make(store, store, yield* Effect.scope)
})

/** Lists kept in this process. */
export const layerMemory: Layer.Layer<CommuneLists> = Layer.effect(CommuneLists, makeMemory)

/** Lists kept in Redis, shared by every instance on it (keys under {@link STORE_ID}'s namespace). */
export const layerRedis: Layer.Layer<CommuneLists, never, Persistence.BackingPersistence> = Layer.effect(
  CommuneLists,
  Effect.gen(function* () {
    const backing = yield* Persistence.BackingPersistence
    const store = yield* backing.make(STORE_ID)
    return make(store, yield* memoryStore, yield* Effect.scope)
  })
)
