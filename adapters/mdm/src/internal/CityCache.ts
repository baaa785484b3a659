/**
 * MDM's cities, per account and wilaya, kept for a while: city ids are reference data that change only with the
 * territorial division, and each create would otherwise cost a lookup. The list is kept per account, since MDM
 * answers it to an API key and nothing says every account sees the same one; each entry is keyed by a SHA-256 digest
 * of the key (and the wilaya), never the key itself, so the cache holds no credential. Only a successful lookup is
 * kept; a failure (a refused key, a timeout) is the caller's and is tried again next time. Past `capacity` the oldest
 * entry goes first. Time comes from `Clock`, so `TestClock` moves the expiry.
 */
import { createHash } from "node:crypto"
import { Clock, Duration, Effect, Redacted } from "effect"
import type { City } from "../MdmMapping.ts"

export interface CityCache {
  /** The wilaya's cities for this key: kept ones while fresh, else `load`'s answer, kept from now on. */
  readonly get: <E, R>(
    apiKey: Redacted.Redacted<string>,
    wilaya: number,
    load: Effect.Effect<ReadonlyArray<City>, E, R>
  ) => Effect.Effect<ReadonlyArray<City>, E, R>
  /** The entries' keys, for tests: digests and wilayas only. */
  readonly keys: () => ReadonlyArray<string>
}

/** The account's part of an entry's key: the key's SHA-256, in hex. */
export const digest = (apiKey: Redacted.Redacted<string>): string =>
  createHash("sha256").update(Redacted.value(apiKey)).digest("hex")

export const make = (options: { readonly ttl: Duration.Input; readonly capacity: number }): CityCache => {
  const ttl = Duration.toMillis(Duration.fromInputUnsafe(options.ttl))
  const kept = new Map<string, { readonly cities: ReadonlyArray<City>; readonly until: number }>()
  return {
    get: (apiKey, wilaya, load) =>
      Effect.gen(function* () {
        const key = `${digest(apiKey)}:${wilaya}`
        const now = yield* Clock.currentTimeMillis
        const entry = kept.get(key)
        if (entry !== undefined && entry.until > now) return entry.cities
        const cities = yield* load
        kept.delete(key)
        kept.set(key, { cities, until: (yield* Clock.currentTimeMillis) + ttl })
        for (const oldest of kept.keys()) {
          if (kept.size <= options.capacity) break
          kept.delete(oldest)
        }
        return cities
      }),
    keys: () => [...kept.keys()]
  }
}
