/**
 * Where used nonces are remembered: the port, and its in-memory implementation (tests, one-process hosts). The SQL
 * implementation is `NonceStoreSql`.
 *
 * `consume` is the one atomic step the nonce rule needs: record the nonce for the key unless it is remembered
 * already, so of two calls with one nonce — on any number of instances — exactly one passes. A nonce is forgotten
 * `Nonce.LIFETIME` after its first use, when it may be used again.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import * as Nonce from "./Nonce.ts"

export class NonceStore extends Context.Service<
  NonceStore,
  {
    /** Records `nonce` (normalised) as used by `keyId`; false when it was already used within its lifetime. */
    readonly consume: (keyId: string, nonce: string) => Effect.Effect<boolean>
    /** Forgets the nonces past their lifetime and says how many. Correctness never depends on it. */
    readonly purgeExpired: Effect.Effect<number>
  }
>()("@tawsil/signing/NonceStore") {}

const LIFETIME_MILLIS = Duration.toMillis(Nonce.LIFETIME)

/** Nonces in a `Map`, on `Clock` time (so `TestClock` drives their lifetime). */
export const layerMemory: Layer.Layer<NonceStore> = Layer.sync(NonceStore, () => {
  const expiries = new Map<string, number>()
  const purge = (now: number) => {
    let purged = 0
    for (const [id, expiresAt] of expiries) {
      if (expiresAt <= now) {
        expiries.delete(id)
        purged++
      }
    }
    return purged
  }
  return NonceStore.of({
    consume: (keyId, nonce) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const id = `${keyId} ${Nonce.normalize(nonce)}`
        const expiresAt = expiries.get(id)
        if (expiresAt !== undefined && expiresAt > now) return false
        expiries.set(id, now + LIFETIME_MILLIS)
        return true
      }),
    purgeExpired: Effect.map(Clock.currentTimeMillis, purge)
  })
})
