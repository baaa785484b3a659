/**
 * Paces each courier account's calls under the limits its adapter declares, with headroom (`@tawsil/courier`'s
 * `Pace`: 80 % of every ceiling sustained, a short burst after a quiet spell): the one limiter every courier call of
 * the host goes through — the shipping API's, the store's rate sync and its shipment poller alike, since all of them
 * reach couriers through `HttpTransport`.
 *
 * A call asks for the account's next slot within its deadline (`take`). It waits for that slot when the slot comes
 * before the deadline, and is refused as `CourierRateLimited` — waiting for nothing and taking no slot — only when it
 * does not. Slots are reserved when they are handed out, so callers queue in the order they asked and none of them
 * overtakes another.
 *
 * Where the schedule is kept: in this process (`layerMemory`), or in Redis (`layerRedis`, one Lua script per call) so
 * that every instance of the host paces an account together. When Redis fails, the call is paced by this process
 * alone (a fallback kept beside it, with a warning in the log): each instance then keeps to the pace on its own,
 * never none.
 */
import type { RateLimit } from "@tawsil/courier/CourierAdapter"
import { CourierRateLimited } from "@tawsil/courier/CourierError"
import * as Pace from "@tawsil/courier/Pace"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"

/** The share of each documented ceiling the host uses at most, sustained (`Pace.HEADROOM`). */
export const HEADROOM = Pace.HEADROOM

/** A call's place in its account's queue. */
export interface Take {
  /** The account: the courier key and the caller's account at it ({@link keyOf}). */
  readonly key: string
  /** The adapter's declared limits (`adapter.rateLimits`). */
  readonly limits: ReadonlyArray<RateLimit>
  /** When the caller stops waiting, in `Clock` milliseconds: a slot at or past it is refused. */
  readonly deadline: number
}

export class CourierPacer extends Context.Service<
  CourierPacer,
  {
    /**
     * Takes the account's next slot under every one of `limits` and waits until it comes; fails with
     * `CourierRateLimited` (`retryAfterSeconds`: until that slot) without waiting or taking it when the slot is not
     * before `deadline`. With no limits it returns at once.
     */
    readonly take: (take: Take) => Effect.Effect<void, CourierRateLimited>
  }
>()("@tawsil/shipping/CourierPacer") {}

/** Where one courier account is paced, shared by every instance on one store: never the credentials themselves. */
export const keyOf = (courier: string, account: string) => `${courier}:${account}`

/** A slot handed out (`at`, reserved), or the first one past the deadline (`refused`, nothing reserved). */
export type Reservation = { readonly at: number } | { readonly refused: number }

/** Where an account's schedule is kept. */
interface Store {
  readonly reserve: (
    key: string,
    paces: ReadonlyArray<Pace.Pace>,
    now: number,
    deadline: number
  ) => Effect.Effect<Reservation, Redis.RedisError>
}

/**
 * The schedule in this process. An account quiet for longer than its limits' intervals holds nothing a fresh one
 * does not, so such entries are dropped, at most once a minute: a public server sees a new account for every set of
 * credentials it is sent.
 */
export const makeStoreMemory = () => {
  const accounts = new Map<string, Map<string, number>>()
  let nextSweep = 0
  const sweep = (now: number) => {
    for (const [key, due] of accounts) if (Math.max(...due.values()) <= now) accounts.delete(key)
    nextSweep = now + 60_000
  }
  const reserveNow = (key: string, paces: ReadonlyArray<Pace.Pace>, now: number, deadline: number): Reservation => {
    if (now >= nextSweep) sweep(now)
    const due = accounts.get(key) ?? new Map<string, number>()
    const at = Pace.slotOf(paces, (id) => due.get(id), now)
    if (at >= deadline) return { refused: at }
    for (const [id, next] of Pace.taken(paces, (id) => due.get(id), at)) due.set(id, next)
    accounts.set(key, due)
    return { at }
  }
  const store: Store = {
    reserve: (key, paces, now, deadline) => Effect.sync(() => reserveNow(key, paces, now, deadline))
  }
  return { store, accounts: () => accounts.size }
}

/**
 * One account's schedule in a Redis hash (`<prefix><key>`: each limit's next slot by `Pace.id`), read and moved in
 * one script, so that every instance takes slots from one queue. The hash expires once its last slot has passed.
 * The arithmetic is `Pace.slotOf` and `Pace.taken`, written once more in Lua; the shared test suite runs both.
 */
const reserveScript = Redis.script(
  (key: string, now: number, deadline: number, paces: ReadonlyArray<Pace.Pace>) => [
    key,
    now,
    deadline,
    paces.length,
    ...paces.flatMap((pace) => [pace.id, pace.intervalMillis, (pace.burst - 1) * pace.intervalMillis])
  ],
  {
    numberOfKeys: 1,
    lua: `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local deadline = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local at = now
local due = {}
for i = 0, count - 1 do
  local next = tonumber(redis.call("HGET", key, ARGV[4 + i * 3]))
  due[i + 1] = next
  if next ~= nil then
    local allowed = next - tonumber(ARGV[6 + i * 3])
    if allowed > at then at = allowed end
  end
end
if at >= deadline then
  return { 0, string.format("%.17g", at) }
end
local last = now
for i = 0, count - 1 do
  local from = due[i + 1]
  if from == nil or from < at then from = at end
  local next = from + tonumber(ARGV[5 + i * 3])
  redis.call("HSET", key, ARGV[4 + i * 3], string.format("%.17g", next))
  if next > last then last = next end
end
redis.call("PEXPIRE", key, math.max(1, math.ceil(last - now)))
return { 1, string.format("%.17g", at) }
`
  }
).withReturnType<readonly [reserved: number, at: string]>()

const makeStoreRedis = (prefix: string) =>
  Effect.map(Redis.Redis, (redis): Store => {
    const reserve = redis.eval(reserveScript)
    return {
      reserve: (key, paces, now, deadline) =>
        Effect.map(reserve(`${prefix}${key}`, now, deadline, paces), ([reserved, at]) =>
          reserved === 1 ? { at: Number(at) } : { refused: Number(at) }
        )
    }
  })

/** A limit whose window is `scale` times the declared one ({@link layerMemoryScaled}). */
const scaled =
  (scale: number) =>
  (limit: RateLimit): RateLimit =>
    scale === 1 ? limit : { limit: limit.limit, window: Duration.times(limit.window, scale) }

/**
 * The pacer over `store`, and `fallback` for when it fails (a store in this process never does); each limit's window
 * `scale` times the declared one.
 */
const make = (store: Store, fallback: Store = store, scale = 1) =>
  CourierPacer.of({
    take: ({ key, limits, deadline }) =>
      limits.length === 0
        ? Effect.void
        : Effect.gen(function* () {
            const paces = limits.map(scaled(scale)).map(Pace.paceOf)
            const now = yield* Clock.currentTimeMillis
            const reservation = yield* store
              .reserve(key, paces, now, deadline)
              .pipe(
                Effect.catchTag("RedisError", (error) =>
                  Effect.logWarning("courier pacing store failed; paced by this process alone").pipe(
                    Effect.annotateLogs({ reason: String(error.cause) }),
                    Effect.andThen(fallback.reserve(key, paces, now, deadline)),
                    Effect.orDie
                  )
                )
              )
            if ("refused" in reservation) {
              return yield* new CourierRateLimited({
                retryAfterSeconds: Math.max(1, Math.ceil((reservation.refused - now) / 1000))
              })
            }
            if (reservation.at > now) yield* Effect.sleep(Duration.millis(reservation.at - now))
          })
  })

/** Each account paced in this process. */
export const layerMemory: Layer.Layer<CourierPacer> = Layer.sync(CourierPacer, () => make(makeStoreMemory().store))

/**
 * Each account paced in this process, every declared window `scale` times as long: the same schedule (budget, burst,
 * queueing, refusals at the deadline), run sooner. For tests of a host against fakes, which would otherwise wait a
 * minute's limit out in real time (Ecotrack's 50 a minute: a call every 1.5 s past the burst; at 0.001, every
 * 1.5 ms). The host itself paces at the declared windows ({@link layerMemory}, {@link layerRedis}).
 */
export const layerMemoryScaled = (scale: number): Layer.Layer<CourierPacer> =>
  Layer.sync(CourierPacer, () => {
    const { store } = makeStoreMemory()
    return make(store, store, scale)
  })

/** Each account paced in Redis, shared by every instance on it (keys `<prefix><courier>:<account>`). */
export const layerRedis = (options: { readonly prefix?: string | undefined } = {}) =>
  Layer.effect(
    CourierPacer,
    Effect.map(makeStoreRedis(options.prefix ?? "tawsil:pace:"), (store) => make(store, makeStoreMemory().store))
  )
