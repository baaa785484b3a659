/**
 * Where stores, keys and app tokens live: the port, and its in-memory implementation (tests, one-process runs).
 *
 * The port keeps records and the two invariants that need the storage's atomicity: at most `maxActive` keys per
 * store that are not revoked, and unique store slugs. Everything else (formats, scopes, gates, messages) is
 * `Access`'s and `Admin`'s.
 */
import type { Ids } from "@tawsil/domain"
import { Clock, Context, Data, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import type { KeyType } from "./Credentials.ts"
import type { CreatedVia } from "./Scopes.ts"

export type Language = "ar" | "fr"
export type KeyStatus = "active" | "suspended" | "revoked"

export interface StoreRecord {
  readonly id: Ids.StoreId
  readonly name: string
  readonly slug: string
  readonly plan: string
  /** Whether the store's new keys are pilot-enrolled. */
  readonly pilot: boolean
  readonly language: Language
  readonly createdAt: DateTime.Utc
}

/** A key as minted, before the store stamps it. */
export interface NewKey {
  readonly keyId: string
  readonly type: KeyType
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly rateLimitTier: string
  readonly pilot: boolean
  readonly status: Exclude<KeyStatus, "revoked">
  /** Platform keys: the secret's SHA-256 hex. */
  readonly secretSha256: string | null
  /** Public keys: the HMAC signing secret, kept readable to verify signatures. */
  readonly signingSecret: Redacted.Redacted<string> | null
  /** Where the key was made; `api` when not said. */
  readonly createdVia?: CreatedVia | undefined
}

export interface KeyRecord extends Omit<NewKey, "status" | "createdVia"> {
  readonly storeId: Ids.StoreId
  readonly status: KeyStatus
  readonly createdVia: CreatedVia
  readonly lastUsedAt: DateTime.Utc | null
  readonly lastUsedIp: string | null
  readonly createdAt: DateTime.Utc
}

export interface AppTokenRecord {
  readonly tokenSha256: string
  readonly storeId: Ids.StoreId
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: DateTime.Utc
}

export interface NewStore {
  readonly name: string
  /** The slug wanted; the store takes it, or the first free of `<base>-2`, `<base>-3`, … */
  readonly slugBase: string
  readonly plan: string
  readonly pilot: boolean
  readonly language: Language
}

/** The store already holds `maxActive` keys that are not revoked. */
export class KeyLimitReached extends Data.TaggedError("KeyLimitReached")<{ readonly maxActive: number }> {}

/** No store has this id. */
export class StoreNotFound extends Data.TaggedError("StoreNotFound")<{ readonly storeId: Ids.StoreId }> {}

export class KeyStore extends Context.Service<
  KeyStore,
  {
    /** The key with this id, whatever its status, with its store. */
    readonly findKey: (
      keyId: string
    ) => Effect.Effect<Option.Option<{ readonly key: KeyRecord; readonly store: StoreRecord }>>
    /** The app token with this SHA-256, unless revoked, with its store. */
    readonly findAppToken: (
      tokenSha256: string
    ) => Effect.Effect<Option.Option<{ readonly token: AppTokenRecord; readonly store: StoreRecord }>>
    readonly findStore: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<StoreRecord>>
    /** The store's keys that are not revoked, oldest first. */
    readonly listKeys: (storeId: Ids.StoreId) => Effect.Effect<ReadonlyArray<KeyRecord>>
    /**
     * Adds a key unless the store already holds `maxActive` keys that are not revoked; concurrent inserts for one
     * store never exceed it, on any number of instances.
     */
    readonly insertKey: (
      storeId: Ids.StoreId,
      key: NewKey,
      maxActive: number
    ) => Effect.Effect<KeyRecord, KeyLimitReached | StoreNotFound>
    /** Revokes a key of this store that is not revoked yet; false when there is none. */
    readonly revokeKey: (storeId: Ids.StoreId, keyId: string) => Effect.Effect<boolean>
    /**
     * The operator's change of a key that is not revoked: its status (`active`, `suspended`, `revoked`) or its pilot
     * enrolment. `None` when no such key exists or it is revoked already.
     */
    readonly updateKey: (
      keyId: string,
      change: { readonly status?: KeyStatus | undefined; readonly pilot?: boolean | undefined }
    ) => Effect.Effect<Option.Option<KeyRecord>>
    /** Records that the key was just used from `ip`. */
    readonly touchKey: (storeId: Ids.StoreId, keyId: string, ip: string) => Effect.Effect<void>
    /** Creates a store under a free slug, together with its first key. */
    readonly createStore: (
      store: NewStore,
      firstKey: NewKey
    ) => Effect.Effect<{ readonly store: StoreRecord; readonly key: KeyRecord }>
    readonly setPlan: (storeId: Ids.StoreId, plan: string) => Effect.Effect<Option.Option<StoreRecord>>
    readonly insertAppToken: (
      storeId: Ids.StoreId,
      tokenSha256: string,
      scopes: ReadonlyArray<string>
    ) => Effect.Effect<AppTokenRecord, StoreNotFound>
  }
>()("@tawsil/access/KeyStore") {}

/** The first slug of `base`, `base-2`, `base-3`, … that `taken` does not hold. */
export const freeSlug = (base: string, taken: (slug: string) => boolean): string => {
  if (!taken(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!taken(candidate)) return candidate
  }
}

/** A store in `Map`s, on `Clock` time. */
export const layerMemory: Layer.Layer<KeyStore> = Layer.sync(KeyStore, () => {
  const stores = new Map<number, StoreRecord>()
  const keys = new Map<string, KeyRecord>()
  const tokens = new Map<string, AppTokenRecord>()
  let nextStoreId = 1
  const now = Effect.map(Clock.currentTimeMillis, (millis) => DateTime.makeUnsafe(millis))

  const withStore = <A>(record: A & { readonly storeId: Ids.StoreId }) =>
    Option.map(Option.fromNullishOr(stores.get(record.storeId)), (store) => ({ record, store }))

  const activeCount = (storeId: Ids.StoreId) => {
    let count = 0
    for (const key of keys.values()) if (key.storeId === storeId && key.status !== "revoked") count++
    return count
  }

  const insert = (storeId: Ids.StoreId, key: NewKey, createdAt: DateTime.Utc): KeyRecord => {
    const record: KeyRecord = {
      ...key,
      createdVia: key.createdVia ?? "api",
      storeId,
      lastUsedAt: null,
      lastUsedIp: null,
      createdAt
    }
    keys.set(key.keyId, record)
    return record
  }

  return KeyStore.of({
    findKey: (keyId) =>
      Effect.sync(() =>
        Option.map(Option.flatMap(Option.fromNullishOr(keys.get(keyId)), withStore), ({ record, store }) => ({
          key: record,
          store
        }))
      ),
    findAppToken: (tokenSha256) =>
      Effect.sync(() =>
        Option.map(Option.flatMap(Option.fromNullishOr(tokens.get(tokenSha256)), withStore), ({ record, store }) => ({
          token: record,
          store
        }))
      ),
    findStore: (storeId) => Effect.sync(() => Option.fromNullishOr(stores.get(storeId))),
    listKeys: (storeId) =>
      Effect.sync(() => [...keys.values()].filter((key) => key.storeId === storeId && key.status !== "revoked")),
    insertKey: (storeId, key, maxActive) =>
      Effect.flatMap(now, (createdAt): Effect.Effect<KeyRecord, KeyLimitReached | StoreNotFound> => {
        // Check and insert in one synchronous step: no other fiber runs in between.
        if (!stores.has(storeId)) return Effect.fail(new StoreNotFound({ storeId }))
        if (activeCount(storeId) >= maxActive) return Effect.fail(new KeyLimitReached({ maxActive }))
        return Effect.succeed(insert(storeId, key, createdAt))
      }),
    revokeKey: (storeId, keyId) =>
      Effect.sync(() => {
        const key = keys.get(keyId)
        if (key === undefined || key.storeId !== storeId || key.status === "revoked") return false
        keys.set(keyId, { ...key, status: "revoked" })
        return true
      }),
    updateKey: (keyId, change) =>
      Effect.sync(() => {
        const key = keys.get(keyId)
        if (key === undefined || key.status === "revoked") return Option.none()
        const updated: KeyRecord = { ...key, status: change.status ?? key.status, pilot: change.pilot ?? key.pilot }
        keys.set(keyId, updated)
        return Option.some(updated)
      }),
    touchKey: (storeId, keyId, ip) =>
      Effect.flatMap(now, (at) =>
        Effect.sync(() => {
          const key = keys.get(keyId)
          if (key !== undefined && key.storeId === storeId) keys.set(keyId, { ...key, lastUsedAt: at, lastUsedIp: ip })
        })
      ),
    createStore: (input, firstKey) =>
      Effect.map(now, (createdAt) => {
        const slugs = new Set([...stores.values()].map((store) => store.slug))
        const store: StoreRecord = {
          id: nextStoreId++ as Ids.StoreId,
          name: input.name,
          slug: freeSlug(input.slugBase, (slug) => slugs.has(slug)),
          plan: input.plan,
          pilot: input.pilot,
          language: input.language,
          createdAt
        }
        stores.set(store.id, store)
        return { store, key: insert(store.id, firstKey, createdAt) }
      }),
    setPlan: (storeId, plan) =>
      Effect.sync(() => {
        const store = stores.get(storeId)
        if (store === undefined) return Option.none()
        const updated = { ...store, plan }
        stores.set(storeId, updated)
        return Option.some(updated)
      }),
    insertAppToken: (storeId, tokenSha256, scopes) =>
      Effect.flatMap(now, (createdAt): Effect.Effect<AppTokenRecord, StoreNotFound> => {
        if (!stores.has(storeId)) return Effect.fail(new StoreNotFound({ storeId }))
        const token: AppTokenRecord = { tokenSha256, storeId, scopes, createdAt }
        tokens.set(tokenSha256, token)
        return Effect.succeed(token)
      })
  })
})
