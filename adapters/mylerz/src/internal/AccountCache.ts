/**
 * What the adapter keeps per Mylerz account, for a while: its login token (until it expires) and its cities and
 * zones (a day). Each entry is keyed by a SHA-256 digest of the username and password, never the credentials
 * themselves, so a new password is a new account here and the cache holds no credential. Only a successful load is
 * kept; a failure (a refused login, a timeout) is the caller's and is tried again next time. A token a call finds
 * refused is dropped (`drop`) so that the next `get` logs in again. Calls that find no entry while one is being
 * loaded for the same account wait for that load rather than start their own (a batch's first calls log in once); if
 * it fails or is cut off, each tries its own. Past `capacity` the oldest entry goes first. Time comes from `Clock`, so
 * `TestClock` moves the expiry.
 */
import { createHash } from "node:crypto"
import { Clock, Deferred, Effect, Exit, Redacted } from "effect"

export interface AccountCache<A> {
  /**
   * The account's entry while fresh, else `load`'s answer (or the answer of a load already under way for it), kept
   * for `ttlOf(answer)` milliseconds from now; `fresh` says whether it was just loaded.
   */
  readonly get: <E, R>(
    account: string,
    load: Effect.Effect<A, E, R>
  ) => Effect.Effect<{ readonly value: A; readonly fresh: boolean }, E, R>
  /** Keeps `value` for the account from now on, in place of what it had. */
  readonly put: (account: string, value: A) => Effect.Effect<void>
  /** Forgets the account's entry, if it is still `value` (another call may have replaced it since). */
  readonly drop: (account: string, value: A) => Effect.Effect<void>
  /** The entries' keys, for tests: digests only. */
  readonly keys: () => ReadonlyArray<string>
}

/** The account's key: SHA-256 of the username and password, NUL between them, in hex. */
export const digest = (username: Redacted.Redacted<string>, password: Redacted.Redacted<string>): string =>
  createHash("sha256")
    .update(`${Redacted.value(username)}\u0000${Redacted.value(password)}`)
    .digest("hex")

export const make = <A>(options: {
  /** How long an answer is kept, in milliseconds. */
  readonly ttlOf: (value: A) => number
  readonly capacity: number
}): AccountCache<A> => {
  const kept = new Map<string, { readonly value: A; readonly until: number }>()
  /** The loads under way, by account: what a second caller waits for. */
  const loading = new Map<string, Deferred.Deferred<A, unknown>>()
  const put = (account: string, value: A) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      kept.delete(account)
      kept.set(account, { value, until: now + options.ttlOf(value) })
      for (const oldest of kept.keys()) {
        if (kept.size <= options.capacity) break
        kept.delete(oldest)
      }
    })
  return {
    get: (account, load) =>
      Effect.gen(function* () {
        const entry = kept.get(account)
        if (entry !== undefined && entry.until > (yield* Clock.currentTimeMillis)) {
          return { value: entry.value, fresh: false }
        }
        const inflight = loading.get(account)
        if (inflight !== undefined) {
          const shared = yield* Effect.exit(Deferred.await(inflight))
          if (Exit.isSuccess(shared)) return { value: shared.value, fresh: true }
        }
        const done = yield* Deferred.make<A, unknown>()
        loading.set(account, done)
        const value = yield* load.pipe(
          Effect.tap((value) => put(account, value)),
          Effect.onExit((exit) =>
            Effect.andThen(
              Effect.sync(() => {
                if (loading.get(account) === done) loading.delete(account)
              }),
              Deferred.done(done, exit)
            )
          )
        )
        return { value, fresh: true }
      }),
    put,
    drop: (account, value) =>
      Effect.sync(() => {
        if (kept.get(account)?.value === value) kept.delete(account)
      }),
    keys: () => [...kept.keys()]
  }
}
