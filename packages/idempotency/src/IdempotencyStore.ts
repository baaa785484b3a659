/**
 * Where idempotency keys live: the port, and its in-memory implementation (tests, one-process development).
 *
 * A store keeps one record per scope and key, in flight (claimed, no answer yet) or completed (with the answer),
 * each until it expires; an expired record counts as absent. It applies no rule beyond that: `Idempotency`
 * compares fingerprints, decides which answers to keep and for how long, and waits for in-flight keys.
 * `transaction` is the store's unit of work, in which `Idempotency.transact` puts a write beside its key's record.
 * On SQL, a write's own first statement may also take its key's claim (`carriesClaims`, decision 0027).
 */
import { randomBytes } from "node:crypto"
import { Clock, Context, Data, Duration, Effect, Layer, Redacted } from "effect"
import type { Claimed, Fingerprint, Request, StoredResponse } from "./IdempotencyRequest.ts"

/** A new installation secret: 32 random bytes in hex. */
export const newSecret = () => randomBytes(32).toString("hex")

/** What `claim` found. */
export type Claim = Data.TaggedEnum<{
  /** The key was free or expired: it is now in flight under `token` until the lease ends. */
  Acquired: { readonly token: string }
  /** Another claim holds the key; its fingerprint is unknown while that claim is an uncommitted transaction. */
  Pending: { readonly fingerprint: Fingerprint | undefined }
  /** The key has an answer, recorded for the request of `fingerprint`. */
  Completed: { readonly fingerprint: Fingerprint; readonly response: StoredResponse }
}>
export const Claim = Data.taggedEnum<Claim>()

export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /** Claims the key for `lease` unless a live record holds it (an expired one is replaced); else says what does. */
    readonly claim: (request: Request, lease: Duration.Duration) => Effect.Effect<Claim>
    /**
     * Records the answer of a claim still in flight under its token (even past its lease, if no one claimed the
     * key since), to keep for `ttl`. False when the claim was lost.
     */
    readonly complete: (claimed: Claimed, response: StoredResponse, ttl: Duration.Duration) => Effect.Effect<boolean>
    /** Deletes a claim still in flight under its token; does nothing otherwise. */
    readonly release: (claimed: Claimed) => Effect.Effect<void>
    /**
     * Runs `effect` as one transaction of the store: what it writes there, the key's record and the caller's own
     * writes on the same database, commits when it succeeds and rolls back when it fails. In memory, where nothing
     * can be rolled back, it runs as is.
     */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /**
     * Whether a write's own statement on the store's database can carry its claim (`IdempotencyStoreSql.carryPending`
     * puts the claim in front of it): `transact` then leaves the claim of a write that carries it to that statement
     * (`Idempotency.PendingClaim`). False in memory, where a write always claims first.
     */
    readonly carriesClaims: boolean
    /** Deletes the expired records and says how many there were. Schedule it; correctness never depends on it. */
    readonly purgeExpired: Effect.Effect<number>
    /**
     * The key of this installation's hashes (`Idempotency` keys scopes and fingerprints with it): made once, then
     * the same for every process that shares the store.
     */
    readonly secret: Effect.Effect<Redacted.Redacted<string>>
  }
>()("@tawsil/idempotency/IdempotencyStore") {}

interface Row {
  readonly fingerprint: Fingerprint
  readonly token: string
  readonly response: StoredResponse | undefined
  readonly expiresAt: number
}

/** A store in a `Map`, on `Clock` time (so `TestClock` drives leases and TTLs). */
export const layerMemory: Layer.Layer<IdempotencyStore> = Layer.sync(IdempotencyStore, () => {
  const rows = new Map<string, Row>()
  const secret = Redacted.make(newSecret())
  let issued = 0
  const idOf = (at: { readonly scope: string; readonly key: string }) => `${at.scope} ${at.key}`
  const inFlight = (claimed: Claimed) => {
    const row = rows.get(idOf(claimed))
    return row !== undefined && row.token === claimed.token && row.response === undefined ? row : undefined
  }

  return IdempotencyStore.of({
    secret: Effect.succeed(secret),
    transaction: (effect) => effect,
    carriesClaims: false,
    claim: Effect.fnUntraced(function* (request, lease) {
      const now = yield* Clock.currentTimeMillis
      const row = rows.get(idOf(request))
      if (row !== undefined && row.expiresAt > now) {
        return row.response === undefined
          ? Claim.Pending({ fingerprint: row.fingerprint })
          : Claim.Completed({ fingerprint: row.fingerprint, response: row.response })
      }
      const token = `memory-${++issued}`
      rows.set(idOf(request), {
        fingerprint: request.fingerprint,
        token,
        response: undefined,
        expiresAt: now + Duration.toMillis(lease)
      })
      return Claim.Acquired({ token })
    }),
    complete: Effect.fnUntraced(function* (claimed, response, ttl) {
      const now = yield* Clock.currentTimeMillis
      const row = inFlight(claimed)
      if (row === undefined) return false
      rows.set(idOf(claimed), { ...row, response, expiresAt: now + Duration.toMillis(ttl) })
      return true
    }),
    release: (claimed) =>
      Effect.sync(() => {
        if (inFlight(claimed) !== undefined) rows.delete(idOf(claimed))
      }),
    purgeExpired: Effect.map(Clock.currentTimeMillis, (now) => {
      let purged = 0
      for (const [id, row] of rows) {
        if (row.expiresAt <= now) {
          rows.delete(id)
          purged++
        }
      }
      return purged
    })
  })
})
