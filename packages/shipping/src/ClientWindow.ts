/**
 * The shipping API's per-client request window: each client (its network address) may make `limit` requests per
 * `window` on create, track, rates and labels; past that it is told how long to wait. Effect's `RateLimiter`
 * (fixed window) counts, over a `RateLimiterStore`: in the process (`layerStoreMemory`), or shared by every instance
 * through Redis (effect's `RateLimiter.layerStoreRedis`), so that N instances behind a load balancer still give a
 * client its limit once, not N times.
 *
 * A store that fails (Redis unreachable) admits the request and logs a warning: the window protects the service
 * from one client's bursts, and refusing every client while the store is down would be the larger outage.
 * Each refusal is counted (`ShippingMetrics.refusals`, reason `client_window`).
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import * as ShippingMetrics from "./ShippingMetrics.ts"

/** The client has used its window; retry after `retryAfterSeconds`. Nothing was sent to any courier. */
export class ClientRateLimited extends Schema.TaggedError<ClientRateLimited>()("ClientRateLimited", {
  limit: Schema.Int,
  window: Schema.String,
  retryAfterSeconds: Schema.Int
}) {
  override get message() {
    return `more than ${this.limit} requests in ${this.window} from this client`
  }
}

export interface ClientWindow {
  /** Counts one request of `client`; fails with `ClientRateLimited` once its window is used up. */
  readonly admit: (client: string) => Effect.Effect<void, ClientRateLimited>
}

export interface Options {
  /** Requests per window and client (at least 1). */
  readonly limit: number
  /** The window's length; default one minute. */
  readonly window?: Duration.Input | undefined
}

/** The key under which a client's requests are counted (shared by every instance on one store). */
export const keyOf = (client: string) => `tawsil:shipping:client:${client}`

export const make = Effect.fnUntraced(function* (options: Options) {
  const limiter = yield* RateLimiter.RateLimiter
  const window = Duration.fromInputUnsafe(options.window ?? Duration.minutes(1))
  const windowText = Duration.equals(window, Duration.minutes(1)) ? "a minute" : Duration.format(window)
  const admit = (client: string): Effect.Effect<void, ClientRateLimited> =>
    limiter.consume({ key: keyOf(client), limit: options.limit, window, algorithm: "fixed-window" }).pipe(
      Effect.asVoid,
      Effect.catchTag("RateLimiterError", ({ reason }) =>
        reason._tag === "RateLimitExceeded"
          ? Effect.andThen(
              ShippingMetrics.refused("client_window"),
              Effect.fail(
                new ClientRateLimited({
                  limit: options.limit,
                  window: windowText,
                  retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(reason.retryAfter)))
                })
              )
            )
          : Effect.logWarning("client window store failed; request admitted").pipe(
              Effect.annotateLogs({ reason: reason.message })
            )
      )
    )
  return { admit } satisfies ClientWindow
})

/**
 * Effect's in-process store, with its fixed windows dropped once they are over: effect's own memory store keeps a
 * counter for every key it has ever seen, and a public server sees a new key for every client address. Expired
 * windows are swept at most once per `sweepEvery` (default one minute); the other algorithms are effect's.
 * `windows` tells how many are held.
 */
export const makeStoreMemory = Effect.fnUntraced(function* (
  options: { readonly sweepEvery?: Duration.Input | undefined } = {}
) {
  const effectStore = Context.get(yield* Layer.build(RateLimiter.layerStoreMemory), RateLimiter.RateLimiterStore)
  const sweepEvery = Duration.toMillis(Duration.fromInputUnsafe(options.sweepEvery ?? Duration.minutes(1)))
  const windows = new Map<string, { count: number; expiresAt: number }>()
  let nextSweep = 0
  const sweep = (now: number) => {
    for (const [key, counter] of windows) if (counter.expiresAt <= now) windows.delete(key)
    nextSweep = now + sweepEvery
  }
  const store = RateLimiter.RateLimiterStore.of({
    ...effectStore,
    // The same counting as effect's memory store: a window opens empty once the last one has expired, each admitted
    // token moves its end by `refillRate`, and a refused request changes nothing.
    fixedWindow: ({ key, tokens, refillRate, limit }) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const now = clock.currentTimeMillisUnsafe()
          if (now >= nextSweep) sweep(now)
          let counter = windows.get(key)
          if (counter === undefined || counter.expiresAt <= now) {
            counter = { count: 0, expiresAt: now }
            windows.set(key, counter)
          }
          if (limit !== undefined && counter.count + tokens > limit) {
            return [counter.count + tokens, counter.expiresAt - now] as const
          }
          counter.count += tokens
          counter.expiresAt += Duration.toMillis(refillRate) * tokens
          return [counter.count, counter.expiresAt - now] as const
        })
      )
  })
  return { store, windows: () => windows.size }
})

/** `makeStoreMemory` as the `RateLimiterStore`. */
export const layerStoreMemory = (options: { readonly sweepEvery?: Duration.Input | undefined } = {}) =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.map(makeStoreMemory(options), ({ store }) => store)
  )
