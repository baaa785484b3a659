/**
 * The shipping API's per-client rate limit: each client gets a window that opens with its first request and lasts
 * `windowMillis`; the window admits `limit` requests, and a refused request is told how long until it closes.
 * The next request after that opens a new window. Refused requests do not count.
 *
 * Plain synchronous code on purpose: it runs on every create, track and rates call, and Effect's `RateLimiter`
 * (Duration values, a store effect and a result record per call) cost 8 % of a sandbox create's instructions
 * (docs/benchmarks.md). Closed windows are swept at most once per window length, so a server that sees many
 * clients keeps only the windows still open.
 */

export interface FixedWindow {
  /** Counts a request from `client` at `now` (ms): 0 when admitted, else the milliseconds until its window closes. */
  readonly take: (client: string, now: number) => number
  /** How many windows are held (open or not yet swept). */
  readonly size: () => number
}

/** `limit` is at least 1. */
export const make = (options: { readonly limit: number; readonly windowMillis: number }): FixedWindow => {
  const windows = new Map<string, { closesAt: number; count: number }>()
  let nextSweep = 0
  const sweep = (now: number) => {
    for (const [client, window] of windows) if (window.closesAt <= now) windows.delete(client)
    nextSweep = now + options.windowMillis
  }
  return {
    take: (client, now) => {
      if (now >= nextSweep) sweep(now)
      const window = windows.get(client)
      if (window === undefined || window.closesAt <= now) {
        windows.set(client, { closesAt: now + options.windowMillis, count: 1 })
        return 0
      }
      if (window.count >= options.limit) return window.closesAt - now
      window.count++
      return 0
    },
    size: () => windows.size
  }
}
