/**
 * The store API's short read cache (spec: 30 seconds, scoped per API key, the query string part of the key) for the
 * reads the spec names, holding each answer's serialised `data` payload. It lives in the process: each instance of
 * the app keeps its own, which a "short read cache" allows — a write shows in a cached read at most `WINDOW` later
 * on any instance. Bounded by `CAPACITY`, least recently used first out, so a caller cycling through query strings
 * cannot grow it without limit. Time is `Clock`'s, so `TestClock` drives the window.
 */
import { Cache, Context, Duration, Effect, Layer, type Option } from "effect"
import type { Principal } from "./Principal.ts"

/** How long an answer is served from the cache. */
export const WINDOW = Duration.seconds(30)
/** How many answers the cache holds at most. */
export const CAPACITY = 10_000

export class ReadCache extends Context.Service<
  ReadCache,
  {
    /** The payload cached under `key` within the window, if any. */
    readonly get: (key: string) => Effect.Effect<Option.Option<string>>
    /** Caches `payload` under `key` for the window, replacing what was there. */
    readonly set: (key: string, payload: string) => Effect.Effect<void>
  }
>()("@tawsil/access/ReadCache") {}

/**
 * The cache key of a read: the caller's key (one key never sees another's cached answer, even of its own store)
 * and the request's URL, path and query string as sent.
 */
export const keyOf = (principal: Principal, url: string): string => `${principal.keyId} ${url}`

export const make = Effect.gen(function* () {
  const cache = yield* Cache.make<string, string>({
    // Entries are only ever `set`: a read that missed is answered by its handler, never looked up here.
    lookup: (key) => Effect.die(`ReadCache has no lookup: ${key} is read with getOption`),
    capacity: CAPACITY,
    timeToLive: WINDOW
  })
  return ReadCache.of({
    get: (key) => Cache.getOption(cache, key),
    set: (key, payload) => Cache.set(cache, key, payload)
  })
})

export const layer: Layer.Layer<ReadCache> = Layer.effect(ReadCache, make)
