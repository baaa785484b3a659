/**
 * Colivraison Express's order statuses mapped to the canonical set, as data. The research has no table for this
 * courier (peer-landscape.md §1 row 6 names only its endpoints); the vocabulary is the one public integration's
 * (WooBordereauGenerator, `Admin/Shipping/ColivraisonExpressSettings.php`, its `status()` list: ten upper-case keys
 * with English labels). The keys are mapped exactly as that list spells them; a status missing here becomes
 * `unknown` in the core, keeps its `rawStatus` and is logged once — never guessed.
 *
 * No cash status is known: the list has no payment key, so the adapter declares no `codStatuses` (README
 * "Unverified").
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** "Placed": the order is registered, the courier has not received the parcel. */
  PLACED: "created",
  /** "Pending reception": waiting for the courier to receive (collect) it. */
  PENDING_RECEPTION: "pending_pickup",
  /** "Awaiting transit": received by the courier, not yet on its way. */
  AWAITING_TRANSIT: "picked_up",
  /** "In transit" */
  IN_TRANSIT: "in_transit",
  /** "Ready for delivery": at the destination, not yet with a driver (README "Unverified": it may mean a desk). */
  READY_FOR_DELIVERY: "in_transit",
  /** "Out for delivery" */
  OUT_FOR_DELIVERY: "out_for_delivery",
  /** "Delivered" */
  DELIVERED: "delivered",
  /** "Returned": marked for return — `RETURN_COLLECTED` comes after it, so the return is not over yet. */
  RETURNED: "returning",
  /** "In return": on its way back. */
  IN_RETURN: "returning",
  /** "Return collected": the merchant has the parcel back. */
  RETURN_COLLECTED: "returned"
}

/** What an order is once `orders/bulk` accepted it: its answer carries no status (README "Unverified"). */
export const placed = "PLACED"
