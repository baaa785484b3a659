/**
 * The shipping API's per-client request window: each client (its network address) may make `limit` requests per
 * `window` on every call of the shipping API that may reach a courier; past that it is told how long to wait. Effect's fixed window
 * counts, over a `RateLimiterStore`: in the process (`layerStoreMemory`), or shared by every instance
 * through Redis (effect's `RateLimiter.layerStoreRedis`), so that N instances behind a load balancer still give a
 * client its limit once, not N times.
 *
 * A store that fails (Redis unreachable) admits the request and logs a warning: the window protects the service
 * from one client's bursts, and refusing every client while the store is down would be the larger outage.
 * Each refusal is counted (`ShippingMetrics.refusals`, reason `client_window`).
 */
import { Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import * as ShippingMetrics from "./ShippingMetrics.ts"

/** A client's used-up window: its limit, the window's length in words, and when to come back. */
export interface WindowUsed {
  readonly limit: number
  readonly window: string
  readonly retryAfterSeconds: number
}

/** What the client is told when its window is used up. */
export const describe = (used: WindowUsed) => `more than ${used.limit} requests in ${used.window} from this client`

/** The client has used its window; retry after `retryAfterSeconds`. Nothing was sent to any courier. */
export class ClientRateLimited extends Schema.TaggedError<ClientRateLimited>()("ClientRateLimited", {
  limit: Schema.Int,
  window: Schema.String,
  retryAfterSeconds: Schema.Int
}) {
  override get message() {
    return describe(this)
  }
}

export interface ClientWindow {
  /**
   * Counts one request of `client`: undefined when it is admitted, else the used-up window. Builds no error, so that
   * a flood of refusals costs little (the door's path, issue 22).
   */
  readonly count: (client: string) => Effect.Effect<WindowUsed | undefined>
  /** `count`, failing with `ClientRateLimited` once the window is used up. */
  readonly admit: (client: string) => Effect.Effect<void, ClientRateLimited>
  /**
   * `count` as a plain call, where the store counts in this process (`makeStoreMemory`); undefined where it counts
   * elsewhere (Redis). For the server's door, which runs on Node's request event with no fiber (issue 22).
   */
  readonly countNow: ((client: string) => WindowUsed | undefined) | undefined
}

export interface Options {
  /** Requests per window and client (at least 1). */
  readonly limit: number
  /** The window's length; default one minute. */
  readonly window?: Duration.Input | undefined
}

/** The key under which a client's requests are counted (shared by every instance on one store). */
export const keyOf = (client: string) => `tawsil:shipping:client:${client}`

type FixedWindow = Parameters<RateLimiter.RateLimiterStore["Service"]["fixedWindow"]>[0]

/** The stores made by `makeStoreMemory`, each with its fixed window as a plain call at a given time. */
const countedInProcess = new WeakMap<
  RateLimiter.RateLimiterStore["Service"],
  (options: FixedWindow, now: number) => readonly [count: number, ttlMillis: number]
>()

/**
 * Effect's fixed window over the `RateLimiterStore`, read as `RateLimiter.consume` reads it (a count past the limit is
 * refused, and the store's time to live is the wait), without the two errors `consume` builds for each refusal.
 */
export const make = Effect.fnUntraced(function* (options: Options) {
  const store = yield* RateLimiter.RateLimiterStore
  // The clock and metrics `countNow` counts with.
  const context = yield* Effect.context<never>()
  const window = Duration.fromInputUnsafe(options.window ?? Duration.minutes(1))
  const windowText = Duration.equals(window, Duration.minutes(1)) ? "a minute" : Duration.format(window)
  const refillRate = Duration.divideUnsafe(window, options.limit)
  /** The used-up window for a count and time to live read from the store; undefined while within the limit. */
  const usedUp = ([count, ttlMillis]: readonly [number, number]): WindowUsed | undefined =>
    count <= options.limit
      ? undefined
      : { limit: options.limit, window: windowText, retryAfterSeconds: Math.max(1, Math.ceil(ttlMillis / 1000)) }
  const count = (client: string): Effect.Effect<WindowUsed | undefined> =>
    store.fixedWindow({ key: keyOf(client), tokens: 1, refillRate, limit: options.limit }).pipe(
      Effect.flatMap((counted) => {
        const used = usedUp(counted)
        return used === undefined ? Effect.undefined : Effect.as(ShippingMetrics.refused("client_window"), used)
      }),
      Effect.catchTag("RateLimiterError", ({ reason }) =>
        Effect.as(
          Effect.logWarning("client window store failed; request admitted").pipe(
            Effect.annotateLogs({ reason: reason.message })
          ),
          undefined
        )
      )
    )
  const admit = (client: string): Effect.Effect<void, ClientRateLimited> =>
    Effect.flatMap(count(client), (used) =>
      used === undefined ? Effect.void : Effect.fail(new ClientRateLimited(used))
    )
  const inProcess = countedInProcess.get(store)
  const clock = Context.get(context, Clock.Clock)
  const countNow =
    inProcess &&
    ((client: string) => {
      const counted = inProcess(
        { key: keyOf(client), tokens: 1, refillRate, limit: options.limit },
        clock.currentTimeMillisUnsafe()
      )
      const used = usedUp(counted)
      if (used !== undefined) ShippingMetrics.refusedIn(context, "client_window")
      return used
    })
  return { count, admit, countNow } satisfies ClientWindow
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
  // The same counting as effect's memory store: a window opens empty once the last one has expired, each admitted
  // token moves its end by `refillRate`, and a refused request changes nothing.
  const fixedWindow = ({ key, tokens, refillRate, limit }: FixedWindow, now: number) => {
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
  }
  const store = RateLimiter.RateLimiterStore.of({
    ...effectStore,
    fixedWindow: (options) =>
      Effect.clockWith((clock) => Effect.sync(() => fixedWindow(options, clock.currentTimeMillisUnsafe())))
  })
  countedInProcess.set(store, fixedWindow)
  return { store, windows: () => windows.size }
})

/** `makeStoreMemory` as the `RateLimiterStore`. */
export const layerStoreMemory = (options: { readonly sweepEvery?: Duration.Input | undefined } = {}) =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.map(makeStoreMemory(options), ({ store }) => store)
  )
