/**
 * Near Delivery's numeric parcel statuses, 0 to 16, mapped to the canonical set as data. The names are those of
 * courier-dz's adapter (from the "Vargo NearDeliveryParcelStatus" enum); the mapping is couriers.md §3.3's, row by
 * row. §3.3 leaves out 4, 8 and 9, which no source names: each has a conservative mapping of its own, marked
 * below and in the README ("Unverified"). Keys are the statuses as text (`"7"`), as tracking passes them on; any
 * other value becomes `unknown` in the core, keeps its `rawStatus`, and is logged once — never guessed.
 *
 * No cash status is documented: Near Delivery reports the cash in no status, so there is no `codStatuses`.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** Pending */
  "0": "pending_pickup",
  /** Waiting for pickup */
  "1": "pending_pickup",
  /** Picked up */
  "2": "picked_up",
  /** Arrived at warehouse */
  "3": "in_transit",
  /**
   * Unnamed (§3.3 leaves it out). It sits between "arrived at warehouse" (3) and "in transit" (5): the parcel is
   * inside the network, so `in_transit`, which claims neither a delivery nor a return.
   */
  "4": "in_transit",
  /** In transit */
  "5": "in_transit",
  /** Arrived at last center: at the buralist, waiting for the recipient */
  "6": "at_stopdesk",
  /** Delivered */
  "7": "delivered",
  /**
   * Unnamed (§3.3 leaves it out), between "delivered" (7) and "return initialized" (10): most likely a failed
   * collection or a hold. `on_hold` is not terminal and claims no outcome, so the next status replaces it.
   */
  "8": "on_hold",
  /** Unnamed (§3.3 leaves it out): as 8. */
  "9": "on_hold",
  /** Return initialized */
  "10": "returning",
  /** Return in transit */
  "11": "returning",
  /** Return arrived at warehouse */
  "12": "returning",
  /** Returned to last center */
  "13": "returning",
  /** Return confirmed: back with the sender */
  "14": "returned",
  /** Return in region */
  "15": "returning",
  /** Pickup from sender */
  "16": "picked_up"
}

/** The statuses §3.3 leaves out, mapped here conservatively (README "Unverified"). */
export const unnamed: ReadonlySet<string> = new Set(["4", "8", "9"])

/** What a parcel is when its create answer carries no status: 0, "Pending" (README "Unverified"). */
export const created = "0"
