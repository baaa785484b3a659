/**
 * MDM Express's raw order statuses mapped to the canonical set, as data (research: couriers.md §1.8 lists the eight
 * words, §3.3 maps them). MDM reports an order's status as a lower-case word, in the order itself and in each step of
 * its status history; the table is keyed exactly as it is sent. A word missing here becomes `unknown` in the core,
 * keeps its `rawStatus` and is logged once — never guessed.
 *
 * MDM reports no cash-on-delivery events in these statuses, so there is no `codStatuses` table.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** Registered, not yet confirmed with the customer. */
  pending: "created",
  /** Confirmed: MDM has made the parcel, which waits to be collected. */
  confirmed: "pending_pickup",
  /** Handed to the carrier, on its way. */
  shipped: "in_transit",
  delivered: "delivered",
  /** Back with the merchant. */
  returned: "returned",
  cancelled: "cancelled",
  /** Left unconfirmed until MDM dropped it: no parcel will move. */
  expired: "exception",
  /** Taken out of the merchant's list by MDM: no parcel will move. */
  archived: "exception"
}

/** What an order is once created, when MDM's answer does not say: its first status. */
export const created = "pending"
