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
 * Payment is a separate field (`payment_status`), never a status: a Yalidine parcel's cash is not read from its
 * movement, so the adapter declares no `codStatuses`.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

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
  "Retourné au vendeur": "returned"
}

/** What a parcel is when it has just been created: editable, not yet handed over ("En préparation"). */
export const created = "En préparation"
