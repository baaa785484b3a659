/**
 * The canonical parcel statuses every courier's own vocabulary maps to (research: couriers.md §3.2), and the
 * separate cash-on-delivery dimension: money events never overwrite a parcel's movement status.
 */
import { Schema } from "effect"

export const CanonicalStatus = Schema.Literals([
  /** Registered at the courier, not yet confirmed or validated. */
  "created",
  /** Ready or validated, waiting for the courier to collect it. */
  "pending_pickup",
  /** Collected from the merchant or the warehouse. */
  "picked_up",
  /** Between hubs or wilayas, or at a hub. */
  "in_transit",
  /** With a driver. */
  "out_for_delivery",
  /** At a desk or relay, waiting for the recipient. */
  "at_stopdesk",
  /** An attempt failed (no answer, absent, postponed); may be retried. */
  "failed_attempt",
  /** Blocked, suspended or waiting for information. */
  "on_hold",
  /** Delivered and paid by the customer. Terminal. */
  "delivered",
  /** A return is in progress. */
  "returning",
  /** Back with the merchant. Terminal. */
  "returned",
  /** Cancelled before it shipped. Terminal. */
  "cancelled",
  /** Lost, damaged, out of stock. */
  "exception",
  /** The courier's status is not in the adapter's map; `rawStatus` keeps it. Never a guess. */
  "unknown"
])
export type CanonicalStatus = typeof CanonicalStatus.Type

export const terminal: ReadonlySet<CanonicalStatus> = new Set(["delivered", "returned", "cancelled"])

/** Cash on delivery, apart from movement. */
export const CodStatus = Schema.Literals(["not_collected", "collected", "remitted"])
export type CodStatus = typeof CodStatus.Type
