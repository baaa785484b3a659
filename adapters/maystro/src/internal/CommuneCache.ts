/**
 * Maystro's communes, by wilaya, kept for a while: commune ids are reference data, the same for every merchant,
 * changing only with the territorial division, so one lookup serves every caller until it expires. Only a
 * successful lookup is kept; a failure (a refused key, a timeout) is the caller's and is tried again next time.
 * Time comes from `Clock`, so `TestClock` moves the expiry.
 */
import { Clock, Duration, Effect } from "effect"
import type { Commune } from "../MaystroWire.ts"

export interface CommuneCache {
  /** The wilaya's communes: kept ones while fresh, else `load`'s answer, kept from now on. */
  readonly get: <E, R>(
    wilaya: number,
    load: Effect.Effect<ReadonlyArray<Commune>, E, R>
  ) => Effect.Effect<ReadonlyArray<Commune>, E, R>
}

export const make = (ttl: Duration.Input): CommuneCache => {
  const ttlMillis = Duration.toMillis(ttl)
  const kept = new Map<number, { readonly communes: ReadonlyArray<Commune>; readonly until: number }>()
  return {
    get: (wilaya, load) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const entry = kept.get(wilaya)
        if (entry !== undefined && entry.until > now) return entry.communes
        const communes = yield* load
        kept.set(wilaya, { communes, until: (yield* Clock.currentTimeMillis) + ttlMillis })
        return communes
      })
  }
}
