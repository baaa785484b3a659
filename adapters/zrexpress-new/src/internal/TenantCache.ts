/**
 * A small in-process memo, per tenant, of what the platform answers slowly and rarely changes: territory UUIDs and
 * the ReadyToDispatch state id. Keys hold a SHA-256 digest of the tenant id, never the id itself, so the cache holds
 * no credential. Entries expire after `ttl` (read from `Clock`, so tests control it); past `capacity` the oldest go
 * first. Two concurrent misses both load and the last write wins — harmless for values that do not change.
 */
import { createHash } from "node:crypto"
import { Clock, Duration, Effect } from "effect"

export interface TenantCache<A> {
  /** The value cached for (`tenant`, `part`), or `load`'s, cached when it succeeds. */
  readonly get: <E, R>(tenant: string, part: string, load: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Forgets (`tenant`, `part`): the next `get` loads again. */
  readonly invalidate: (tenant: string, part: string) => void
  /** How many entries are held. */
  readonly size: () => number
}

const digest = (tenant: string) => createHash("sha256").update(tenant).digest("hex")

export const make = <A>(options: {
  readonly ttl: Duration.Input
  readonly capacity: number
  /** Whether a loaded value is worth keeping (an empty list is not: it may be a passing fault). */
  readonly keep?: (value: A) => boolean
}): TenantCache<A> => {
  const ttl = Duration.toMillis(Duration.fromInputUnsafe(options.ttl))
  const entries = new Map<string, { readonly value: A; readonly expires: number }>()
  const keyOf = (tenant: string, part: string) => `${digest(tenant)}:${part}`
  return {
    get: (tenant, part, load) =>
      Effect.gen(function* () {
        const key = keyOf(tenant, part)
        const now = yield* Clock.currentTimeMillis
        const cached = entries.get(key)
        if (cached !== undefined && cached.expires > now) return cached.value
        const value = yield* load
        if (options.keep !== undefined && !options.keep(value)) return value
        entries.delete(key)
        entries.set(key, { value, expires: (yield* Clock.currentTimeMillis) + ttl })
        for (const oldest of entries.keys()) {
          if (entries.size <= options.capacity) break
          entries.delete(oldest)
        }
        return value
      }),
    invalidate: (tenant, part) => {
      entries.delete(keyOf(tenant, part))
    },
    size: () => entries.size
  }
}
