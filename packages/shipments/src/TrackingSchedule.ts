/**
 * How often a shipment on its way is checked (docs/cod-loop.md, "Polling"), and how many calls a poll may make to
 * one courier account: pure rules over the canonical status and the courier's documented limits.
 *
 * Parcels out for delivery are checked more often than parcels waiting for pickup; a terminal parcel is not checked
 * again. A courier that pushes is polled too, as a safety net, but rarely. A cycle plans at most `HEADROOM` of each
 * documented limit of an account (courier accounts get suspended for hitting their ceilings).
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import type { RateLimit } from "@tawsil/courier/CourierAdapter"
import { Duration } from "effect"

/** The share of each documented limit a poll may use. */
export const HEADROOM = 0.8

/** The most parcels one batch read asks for (the SDK's `trackBatch`). */
export const BATCH_SIZE = 100

const intervals: { readonly [S in CanonicalStatus]: Duration.Duration | undefined } = {
  out_for_delivery: Duration.minutes(30),
  failed_attempt: Duration.minutes(30),
  at_stopdesk: Duration.hours(2),
  picked_up: Duration.hours(2),
  in_transit: Duration.hours(2),
  on_hold: Duration.hours(2),
  returning: Duration.hours(2),
  exception: Duration.hours(2),
  unknown: Duration.hours(2),
  created: Duration.hours(4),
  pending_pickup: Duration.hours(4),
  delivered: undefined,
  returned: undefined,
  cancelled: undefined
}

/** How long a courier that pushes is trusted between safety-net polls. */
export const PUSHED_INTERVAL = Duration.hours(12)

/** When a shipment in `status` is checked next; undefined: never again (terminal). */
export const nextCheck = (status: CanonicalStatus, pushes: boolean): Duration.Duration | undefined => {
  const interval = intervals[status]
  if (interval === undefined) return undefined
  return pushes ? Duration.max(interval, PUSHED_INTERVAL) : interval
}

/**
 * The calls a poll of `every` may make to one account under `limits` with `HEADROOM`: the tightest limit's share of
 * the cycle, at least one call per cycle only when the tightest window allows one in the cycle. Fractions are
 * carried by the caller (`budget`).
 */
export const callsPerCycle = (limits: ReadonlyArray<RateLimit>, every: Duration.Duration): number =>
  limits.reduce(
    (calls, limit) =>
      Math.min(calls, (limit.limit * HEADROOM * Duration.toMillis(every)) / Duration.toMillis(limit.window)),
    Number.POSITIVE_INFINITY
  )
