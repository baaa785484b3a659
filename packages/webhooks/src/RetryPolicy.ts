/**
 * When a failed delivery is tried again (spec "Events" 4: after 5 failed attempts a delivery is given up; the
 * endpoint itself is never paused). The delays between attempts come from `WEBHOOK_RETRY_DELAYS`: comma-separated
 * durations (`250ms`, `30s`, `5m`, `1h`, `1d`), the delay after the first failed attempt first; with fewer than
 * four, each missing delay doubles the one before it (exponential backoff). Every delay gets ±20 % jitter, so the
 * retries of many deliveries that failed together do not arrive together.
 */
import { Duration, Result } from "effect"

/** Attempts a delivery gets before it is given up (a manual retry adds one). */
export const MAX_ATTEMPTS = 5

/** The default delays: about seven hours from the first attempt to the fifth. */
export const DEFAULT_DELAYS = "30s,5m,1h,6h"

/** Jitter: a delay is multiplied by a factor drawn uniformly from [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2

const MAX_DELAY = Duration.days(7)
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** The four delays (after attempts 1 to 4) a `WEBHOOK_RETRY_DELAYS` value means, or why it means none. */
export const parseDelays = (text: string): Result.Result<ReadonlyArray<Duration.Duration>, string> => {
  const entries = text.split(",").map((entry) => entry.trim())
  if (entries.length > MAX_ATTEMPTS - 1 || entries.some((entry) => entry === "")) {
    return Result.fail(`1 to ${MAX_ATTEMPTS - 1} comma-separated durations such as 30s,5m,1h,6h`)
  }
  const delays: Array<Duration.Duration> = []
  for (const entry of entries) {
    const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry)
    const millis = match === null ? Number.NaN : Number(match[1]) * UNITS[match[2]!]!
    if (!(millis > 0) || millis > Duration.toMillis(MAX_DELAY)) {
      return Result.fail(`durations from 1ms to 7d, each a whole number and a unit (ms, s, m, h, d): not ${entry}`)
    }
    delays.push(Duration.millis(millis))
  }
  while (delays.length < MAX_ATTEMPTS - 1) {
    const last = delays[delays.length - 1]!
    delays.push(Duration.min(Duration.times(last, 2), MAX_DELAY))
  }
  return Result.succeed(delays)
}

/** The delays of `DEFAULT_DELAYS`. */
export const defaultDelays: ReadonlyArray<Duration.Duration> = Result.getOrThrow(parseDelays(DEFAULT_DELAYS))

/** What becomes of a delivery after an attempt. */
export type Next =
  | { readonly status: "succeeded" }
  | { readonly status: "failed" }
  | { readonly status: "pending"; readonly retryInMillis: number }

/**
 * After attempt `attempt` (1-based) of at most `maxAttempts`: done when it succeeded, given up when it was the last,
 * else due again after the attempt's delay (the last configured one past the fourth) times a jitter factor drawn
 * from `random` in [0, 1).
 */
export const next = (input: {
  readonly succeeded: boolean
  readonly attempt: number
  readonly maxAttempts: number
  readonly delays: ReadonlyArray<Duration.Duration>
  readonly random: number
}): Next => {
  if (input.succeeded) return { status: "succeeded" }
  if (input.attempt >= input.maxAttempts) return { status: "failed" }
  const base = input.delays[Math.min(input.attempt, input.delays.length) - 1] ?? input.delays[0]!
  const factor = 1 - JITTER + 2 * JITTER * input.random
  return { status: "pending", retryInMillis: Math.max(1, Math.round(Duration.toMillis(base) * factor)) }
}
