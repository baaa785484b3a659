/**
 * The store API's read cache (spec: 30 seconds, scoped per API key, the query string part of the key) for the
 * routes the spec names. It lives in the process: each instance of the app keeps its own, which the spec's
 * "short read cache" allows — a write shows in a cached list at most 30 seconds later on any instance.
 *
 * Entries hold the serialised `{"data":…}` payload. The map is bounded: past `maxEntries` the oldest entries are
 * dropped first (a `Map` iterates in insertion order), so a caller cycling through query strings cannot grow it
 * without limit.
 */
import { Context, Layer } from "effect"

export const TTL_MILLIS = 30_000
export const MAX_ENTRIES = 10_000

interface Entry {
  readonly payload: string
  readonly expiresAt: number
}

export class ReadCache extends Context.Service<
  ReadCache,
  {
    readonly get: (key: string) => string | undefined
    readonly set: (key: string, payload: string) => void
  }
>()("@tawsil/http/store/ReadCache") {}

export const make = (
  options: { readonly ttlMillis?: number; readonly maxEntries?: number; readonly now?: () => number } = {}
) => {
  const ttl = options.ttlMillis ?? TTL_MILLIS
  const maxEntries = options.maxEntries ?? MAX_ENTRIES
  const now = options.now ?? Date.now
  const entries = new Map<string, Entry>()
  return ReadCache.of({
    get: (key) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAt > now()) return entry.payload
      entries.delete(key)
      return undefined
    },
    set: (key, payload) => {
      entries.delete(key)
      entries.set(key, { payload, expiresAt: now() + ttl })
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next()
        if (oldest.done === true) break
        entries.delete(oldest.value)
      }
    }
  })
}

export const layer = Layer.sync(ReadCache, () => make())
