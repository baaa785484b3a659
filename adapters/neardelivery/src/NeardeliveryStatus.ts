/**
 * Near Delivery's raw statuses mapped to the canonical set, as data. Every status the courier documents is listed here,
 * spelled exactly as it is sent; one missing becomes `unknown` in the core and is logged once — never guessed.
 * Cash events (the courier collected the cash, or paid it to the merchant) go in `codStatuses` only, so they never
 * move the parcel: the core reads where the parcel is from the newest movement, and the cash from these alone.
 *
 * Replace these example keys with the ones your courier's API documents.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  registered: "created",
  ready: "pending_pickup",
  picked_up: "picked_up",
  in_transit: "in_transit",
  out_for_delivery: "out_for_delivery",
  at_desk: "at_stopdesk",
  attempt_failed: "failed_attempt",
  on_hold: "on_hold",
  delivered: "delivered",
  returning: "returning",
  returned: "returned",
  cancelled: "cancelled",
  lost: "exception"
}

export const codStatuses: Readonly<Record<string, CodStatus>> = {
  cash_collected: "collected",
  cash_paid: "remitted"
}
