/**
 * Maystro's raw statuses mapped to the canonical set, as data (research: couriers.md §1.5 lists the numeric codes,
 * §3.3 maps them). Maystro reports a status as a bare number (4 … 53) in an order's `status` and in each step of
 * its history; the table is keyed by the number's decimal text, as the adapter passes it on. A code missing here
 * becomes `unknown` in the core and is logged once — never guessed (integrations that guessed showed "delivered"
 * for parcels still waiting for pickup).
 *
 * Maystro reports no cash-on-delivery events, so there is no `codStatuses` table.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** Créé */
  "4": "created",
  /** Demande de ramassage */
  "5": "pending_pickup",
  /** En cours / traitement */
  "6": "pending_pickup",
  /** En attente de transit */
  "8": "picked_up",
  /** En transit pour expédition */
  "9": "in_transit",
  /** En transit pour retour */
  "10": "returning",
  /** En attente */
  "11": "on_hold",
  /** Rupture de stock */
  "12": "exception",
  /** Prêt à expédier */
  "15": "picked_up",
  /** Assigné (to a driver) */
  "22": "out_for_delivery",
  /** Expédié */
  "31": "out_for_delivery",
  /** Alerté */
  "32": "failed_attempt",
  /** Livré */
  "41": "delivered",
  /** Reporté */
  "42": "on_hold",
  /** Annulé (aborted) */
  "50": "cancelled",
  /** Prêt à retourner */
  "51": "returning",
  /** Pris par le magasin (back with the merchant) */
  "52": "returned",
  /** Non reçu (lost) */
  "53": "exception"
}

/** What a parcel is once created: Maystro's first status. */
export const created = "4"
