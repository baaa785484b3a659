/**
 * How a host paces one courier account's calls under the limits its adapter declares (`CourierAdapter.RateLimit`),
 * as plain arithmetic, so that the host (`@tawsil/shipping`'s `CourierPacer`, in process or shared through Redis)
 * and the conformance kit schedule alike.
 *
 * Couriers suspend accounts that keep reaching their ceilings (Yalidine disables one for longer after each overrun),
 * and count in windows that need not line up with anyone else's (Yalidine's turn over every new second, minute and
 * hour; Laravel's throttle starts at an account's first call). So each declared limit is paced, not just counted:
 *
 * - **Sustained, 80 % of the ceiling** ({@link HEADROOM}): the limit's slots come evenly, `window / budget` apart,
 *   where the budget is ⌊limit × 0.8⌋ (Yalidine's 5 a second: one call every 250 ms).
 * - **A short burst after a quiet spell**: at most half of the remaining 20 % ({@link burstOf}: Ecotrack's 50 a
 *   minute lets 5 calls go at once, then one every 1.5 s). In any span of the courier's window, wherever it falls,
 *   an account so paced sends at most burst + budget − 1 calls: 44 of Ecotrack's 50, 4 of Yalidine's 5 a second.
 *   The rest of the ceiling absorbs network jitter and the courier's own clock.
 *
 * The schedule is the generic cell rate algorithm: each limit keeps the time its next slot is due (its "theoretical
 * arrival time"); a call takes the earliest time every one of the account's limits allows, and each limit's next
 * slot moves on from there. Taking all of an account's limits in one step keeps them consistent: a call held back
 * by one limit is counted by the others at the time it really goes.
 */

import { Duration } from "effect"
import type { RateLimit } from "./CourierAdapter.ts"

/** The share of each documented ceiling a host uses at most, sustained (courier SDKs elsewhere keep 10–20 % off). */
export const HEADROOM = 0.8

/** One declared limit, as the host paces it. */
export interface Pace {
  /** The limit's name in an account's state: `<limit>/<window in milliseconds>`. */
  readonly id: string
  /** The calls per window the host allows, sustained: {@link budgetOf}. */
  readonly budget: number
  /** The calls that may go at once after a quiet spell: {@link burstOf}. */
  readonly burst: number
  /** Milliseconds between two slots at the sustained pace: window / budget. */
  readonly intervalMillis: number
}

/** The calls per window the host allows of a ceiling, sustained: ⌊limit × {@link HEADROOM}⌋, at least 1. */
export const budgetOf = (limit: number): number => Math.max(1, Math.floor(limit * HEADROOM))

/** Half of what the headroom leaves of a ceiling, at least one call. */
export const burstOf = (limit: number): number => Math.max(1, Math.floor((limit - budgetOf(limit)) / 2))

export const paceOf = (limit: RateLimit): Pace => {
  const windowMillis = Duration.toMillis(limit.window)
  const budget = budgetOf(limit.limit)
  return {
    id: `${limit.limit}/${windowMillis}`,
    budget,
    burst: Math.min(budget, burstOf(limit.limit)),
    intervalMillis: windowMillis / budget
  }
}

/**
 * The time each limit's next slot is due, in milliseconds of the host's clock, by {@link Pace.id}; a limit with none
 * (never used, or quiet long enough) is missing.
 */
export type Due = (id: string) => number | undefined

/**
 * The earliest time at or after `now` every limit allows a call: a limit whose next slot is due at `t` allows one
 * from `t − (burst − 1) × interval` (a full burst is banked once it has been quiet that long).
 */
export const slotOf = (paces: ReadonlyArray<Pace>, due: Due, now: number): number => {
  let at = now
  for (const pace of paces) {
    const next = due(pace.id)
    if (next !== undefined) at = Math.max(at, next - (pace.burst - 1) * pace.intervalMillis)
  }
  return at
}

/** Each limit's next slot after a call taken at `at`: one interval on from the later of its own and `at`. */
export const taken = (
  paces: ReadonlyArray<Pace>,
  due: Due,
  at: number
): ReadonlyArray<readonly [id: string, due: number]> =>
  paces.map((pace) => [pace.id, Math.max(due(pace.id) ?? at, at) + pace.intervalMillis] as const)

/**
 * The pace a scheduler can plan on: the longest interval among the limits, so that calls spread that far apart stay
 * under every one of them indefinitely (Yalidine's 10 000 a day: one call every 10.8 s; Ecotrack's 50 a minute:
 * 1.5 s). Undefined when the adapter declares no limit.
 */
export const sustainedInterval = (limits: ReadonlyArray<RateLimit>): Duration.Duration | undefined =>
  limits.length === 0 ? undefined : Duration.millis(Math.max(...limits.map((limit) => paceOf(limit).intervalMillis)))
