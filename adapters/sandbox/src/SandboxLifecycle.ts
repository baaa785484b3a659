/**
 * The life a sandbox parcel lives, as a function of its age: integrators see every canonical step of a normal
 * delivery — or of a failed one that comes back — within an hour, without anything being stored. Times are minutes
 * after creation; the raw statuses are the sandbox's own vocabulary, mapped like any courier's.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import { AlgiersTime } from "@tawsil/domain"
import { DateTime } from "effect"
import type { Scenario } from "./SandboxTrackingNumber.ts"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  order_created: "created",
  ready_for_pickup: "pending_pickup",
  picked: "picked_up",
  in_transit: "in_transit",
  out_for_delivery: "out_for_delivery",
  at_desk: "at_stopdesk",
  delivery_failed: "failed_attempt",
  delivered: "delivered",
  // After delivery the money moves; the parcel does not.
  cash_collected: "delivered",
  cash_remitted: "delivered",
  return_in_progress: "returning",
  returned: "returned",
  // A parcel cancelled before it was picked up (kept in the host's memory for adapters, not in the number).
  cancelled: "cancelled"
}

/** Where the cash on delivery is, apart from movement. */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  cash_collected: "collected",
  cash_remitted: "remitted"
}

const steps: Readonly<Record<Scenario, ReadonlyArray<readonly [minutes: number, rawStatus: string]>>> = {
  home_delivered: [
    [0, "order_created"],
    [2, "ready_for_pickup"],
    [5, "picked"],
    [15, "in_transit"],
    [30, "out_for_delivery"],
    [45, "delivered"],
    [50, "cash_collected"],
    [120, "cash_remitted"]
  ],
  home_returned: [
    [0, "order_created"],
    [2, "ready_for_pickup"],
    [5, "picked"],
    [15, "in_transit"],
    [30, "out_for_delivery"],
    [40, "delivery_failed"],
    [50, "return_in_progress"],
    [60, "returned"]
  ],
  stopdesk_delivered: [
    [0, "order_created"],
    [2, "ready_for_pickup"],
    [5, "picked"],
    [15, "in_transit"],
    [30, "at_desk"],
    [45, "delivered"],
    [50, "cash_collected"],
    [120, "cash_remitted"]
  ],
  stopdesk_returned: [
    [0, "order_created"],
    [2, "ready_for_pickup"],
    [5, "picked"],
    [15, "in_transit"],
    [30, "at_desk"],
    [50, "return_in_progress"],
    [60, "returned"]
  ]
}

/** The events a parcel created at `createdAtSeconds` has reached by `nowSeconds`. */
/** An event's timestamp: Algiers time, to the second. */
export const timestampOf = (seconds: number) => AlgiersTime.formatIso(DateTime.makeUnsafe(seconds * 1000))

export const eventsAt = (scenario: Scenario, createdAtSeconds: number, nowSeconds: number) =>
  steps[scenario]
    .filter(([minutes]) => createdAtSeconds + minutes * 60 <= nowSeconds)
    .map(([minutes, rawStatus]) => ({
      rawStatus,
      timestamp: AlgiersTime.formatIso(DateTime.makeUnsafe((createdAtSeconds + minutes * 60) * 1000))
    }))
