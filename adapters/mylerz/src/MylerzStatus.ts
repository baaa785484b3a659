/**
 * Mylerz's package statuses mapped to the canonical set, as data. Mylerz documents none of their values: the help
 * pages give the fields (`StatusEnName` in a package's history), never what they hold. These are the English names
 * public integrations act on — the official WooCommerce plugin ("Delivered, Thank you :-)", "Rejected - reason to
 * be mentioned") and a merchant's Laravel integration of the same platform (the others) — keyed exactly as sent. A
 * name missing here becomes `unknown` in the core, keeps its `rawStatus` and is logged once: never guessed.
 *
 * Mylerz reports no cash-on-delivery events in these statuses, so there is no `codStatuses` table.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** The order came in through the API: created, not yet collected. */
  Uploaded: "created",
  "Not Picked Yet": "pending_pickup",
  Picked: "picked_up",
  "In-Transit": "in_transit",
  "Out for Delivery": "out_for_delivery",
  /** The courier tried and will try again. */
  "Re-attempt Delivery": "failed_attempt",
  /** The delivery moved to another day, at the customer's word. */
  Rescheduled: "on_hold",
  "Delivered, Thank you :-)": "delivered",
  /** The customer refused the parcel: it goes back to the merchant. */
  "Rejected - reason to be mentioned": "returning",
  "Returned to shipper": "returned",
  "Returned to shipper confirmed": "returned",
  Damaged: "exception",
  Lost: "exception"
}

/** What a package is once `AddOrders` made it, when the answer names no status. */
export const created = "Uploaded"
