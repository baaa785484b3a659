/**
 * The Yalidine engine's raw statuses mapped to the canonical set, as data (research: couriers.md §1.1 lists them,
 * §3.3 maps them). One vocabulary serves `last_status` on parcels and `status` on history rows, in French, keyed
 * exactly as sent (accents and capitals included). Where the research records a disagreement between aggregators,
 * the mapping is its first reading; the alternatives are in README "Unverified". A status missing here becomes
 * `unknown` in the core and is logged once — never guessed.
 *
 * `Alerte résolue`, a documented history status, is not mapped: it says an alert was lifted, not where the parcel
 * is (§3.3: "keep the previous status", which no table can say). It reads `unknown` in the timeline — never left out —
 * until the parcel's next movement.
 *
 * Payment is a separate dimension (`payment_status` on a parcel, `parcel_payment_updated` pushed), never a movement
 * status: its values are the cash table, `codStatuses`, read from pushes only (tracking reads no cash for Yalidine:
 * `codTracked: false`), so a payment never moves a parcel. The deletion Yalidine pushes is in the status table too
 * (`parcel_deleted`, YalidinePush.ts): no status string exists for it.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  "Pas encore expédié": "created",
  "A vérifier": "created",
  "En préparation": "created",
  "Pas encore ramassé": "pending_pickup",
  "Prêt à expédier": "pending_pickup",
  Ramassé: "picked_up",
  Transfert: "in_transit",
  Expédié: "in_transit",
  Centre: "in_transit",
  "En localisation": "in_transit",
  "Vers Wilaya": "in_transit",
  "Reçu à Wilaya": "in_transit",
  Débloqué: "in_transit",
  "Prêt pour livreur": "out_for_delivery",
  "Sorti en livraison": "out_for_delivery",
  // The recipient is to collect it at the desk (cdz: out_for_delivery; go: at_hub).
  "En attente du client": "at_stopdesk",
  "Attente du client": "at_stopdesk",
  "Tentative échouée": "failed_attempt",
  // cdz maps Bloqué to exception and En attente to pending; §3.3 holds all three.
  Bloqué: "on_hold",
  "En attente": "on_hold",
  "En alerte": "on_hold",
  Livré: "delivered",
  // The delivery failed for good and the parcel starts back (cdz: failed_delivery; go: returned).
  "Echèc livraison": "returning",
  "Echec livraison": "returning",
  // An exchange that failed at the door; the parcel may be presented again (go: returned).
  "Echange échoué": "failed_attempt",
  "Retour vers centre": "returning",
  "Retourné au centre": "returning",
  "Retour transfert": "returning",
  "Retour groupé": "returning",
  "Retour vers vendeur": "returning",
  "Retour à retirer": "returning",
  "Retourné au vendeur": "returned",
  // Not a status string: the type of the event Yalidine pushes when a parcel is deleted, which it allows only while
  // the parcel is "En préparation" (YalidinePush.ts).
  parcel_deleted: "cancelled"
}

/** The pushed deletion, as a raw status. */
export const deleted = "parcel_deleted"

/**
 * A parcel's payment status (research §1.1: `not-ready | ready | receivable | payed`): nothing collected yet; the
 * courier holds the cash (ready to be paid out, or receivable by the merchant); paid to the merchant.
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  "not-ready": "not_collected",
  ready: "collected",
  receivable: "collected",
  payed: "remitted"
}

/** What a parcel is when it has just been created: editable, not yet handed over ("En préparation"). */
export const created = "En préparation"
