/**
 * NOEST's event keys mapped to the canonical set, as data (research: couriers.md §1.6 lists the keys of the PDF's
 * "Liste des evenements", §3.3 maps them). Keys are mapped exactly as sent, historical spellings included
 * (`livred`, `verssement_*`, `partener`). A key missing here becomes `unknown` in the core and is logged once —
 * never guessed.
 *
 * NOEST mixes three kinds of event in one feed:
 * - movement, mapped in {@link statuses};
 * - cash (`verssement_*`, `validation_reception_cash_by_partener`): only in {@link codStatuses}, so they move
 *   nothing — the core reads the parcel's status from the newest movement and the cash from them alone;
 * - admin edits (`edited_informations`, `edit_price`, `edit_wilaya`, `extra_fee`): not statuses at all
 *   ({@link notStatuses}); tracking drops them, as Ecotrack's adapter drops remarks.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  /** Uploadé sur le système (created, not yet validated) */
  upload: "created",
  /** Validé (`valid/order`): the courier sees it, waiting for collection */
  customer_validation: "pending_pickup",
  /** Colis ramassé */
  validation_collect_colis: "picked_up",
  /** Réception validée (at a hub) */
  validation_reception_admin: "in_transit",
  /** Enlevé par le livreur (§6 Q15: the aggregators disagree; §3.3 reads in_transit) */
  validation_reception: "in_transit",
  /** En livraison (redispatched) */
  sent_to_redispatch: "in_transit",
  /** Transmission du retour au partenaire annulée */
  annulation_dispatch_retour: "in_transit",
  cancel_return_dispatched_to_partenaire: "in_transit",
  /** En livraison */
  fdr_activated: "out_for_delivery",
  /** Retour remis en livraison */
  return_redispatched_to_livraison: "out_for_delivery",
  /** Tentative de livraison */
  mise_a_jour: "failed_attempt",
  /** Nouvelle tentative demandée par le vendeur */
  nouvel_tentative_asked_by_customer: "failed_attempt",
  /** Suspendu */
  colis_suspendu: "on_hold",
  /** Livré */
  livre: "delivered",
  livred: "delivered",
  /** Échange validé */
  echange_valide: "delivered",
  echange_valid_by_hub: "delivered",
  /** Retour demandé par le partenaire */
  return_asked_by_customer: "returning",
  /** Retour en transit */
  return_asked_by_hub: "returning",
  /** Retour transmis au partenaire */
  retour_dispatched_to_partenaires: "returning",
  return_dispatched_to_partenaire: "returning",
  colis_retour_transmit_to_partner: "returning",
  /** Retour transmis vers entrepôt */
  return_dispatched_to_warehouse: "returning",
  /** Retour reçu par le partenaire */
  livraison_echoue_recu: "returned",
  /** Retour validé par le partenaire */
  return_validated_by_partener: "returned",
  /** Demande de suppression */
  ask_to_delete_by_admin: "cancelled",
  ask_to_delete_by_hub: "cancelled",
  // The pick-up flow (`type_id` 3): collected → handed on → received by the merchant.
  /** Pick-Up collecté */
  pickedup: "picked_up",
  /** Pick-Up validé */
  valid_return_pickup: "picked_up",
  /** Pick-Up transmis au partenaire */
  colis_pickup_transmit_to_partner: "in_transit",
  /** Pick-Up reçu par le partenaire */
  pickup_picked_recu: "delivered"
}

/**
 * The cash on delivery, apart from movement: the amount handed to the merchant (`remitted`), or a hand-over
 * cancelled (the courier holds the cash again: `collected`).
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  /** Montant transmis au partenaire */
  verssement_admin_cust: "remitted",
  /** Montant reçu par le partenaire */
  validation_reception_cash_by_partener: "remitted",
  /** Versement annulé */
  verssement_admin_cust_canceled: "collected",
  verssement_hub_cust_canceled: "collected"
}

/** Admin edits in the event feed: not statuses. Tracking drops them, so an edit never moves a parcel. */
export const notStatuses: ReadonlySet<string> = new Set([
  "edited_informations",
  "edit_price",
  "edit_wilaya",
  "extra_fee"
])

/** What a parcel is once created and validated (`valid/order`): waiting for the courier to collect it. */
export const validated = "customer_validation"

/** What a parcel is once created and not yet validated ("Uploadé sur le système"): the courier does not see it. */
export const uploaded = "upload"

/** A label compared without case, accents, spaces or punctuation (`Uploadé sur le système` = `uploade sur le systeme`). */
const fold = (label: string) =>
  label
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")

/**
 * The PDF's "Liste des evenements", label → key: what an event is when a row gives only its label (`event`), as
 * the official examples print them. Where several keys share a label, the first one the list gives for it stands
 * (they map alike, but "En livraison": `fdr_activated`, with a driver, over `sent_to_redispatch`).
 */
const labels: ReadonlyArray<readonly [label: string, key: string]> = [
  ["Uploadé sur le système", "upload"],
  ["Validé", "customer_validation"],
  ["Colis Ramassé", "validation_collect_colis"],
  ["Reception validé", "validation_reception_admin"],
  ["Enlevé par le livreur", "validation_reception"],
  ["En livraison", "fdr_activated"],
  ["Nouvelle tentative demandée par le vendeur", "nouvel_tentative_asked_by_customer"],
  ["Retour demandé par le partenaire", "return_asked_by_customer"],
  ["Retour En transit", "return_asked_by_hub"],
  ["Retour transmis au partenaire", "retour_dispatched_to_partenaires"],
  ["Pick-UP transmis au partenaire", "colis_pickup_transmit_to_partner"],
  ["Transmission du retour au partenaire annulée", "annulation_dispatch_retour"],
  ["Retour reçu par le partenaire", "livraison_echoue_recu"],
  ["Retour validé par le partenaire", "return_validated_by_partener"],
  ["Retour remis en livraison", "return_redispatched_to_livraison"],
  ["Retour transmis vers entrepôt", "return_dispatched_to_warehouse"],
  ["Pick-Up collecté", "pickedup"],
  ["Pick-Up validé", "valid_return_pickup"],
  ["Pick-Up reçu par le partenaire", "pickup_picked_recu"],
  ["Suspendu", "colis_suspendu"],
  ["Livré", "livre"],
  ["Montant transmis au partenaire", "verssement_admin_cust"],
  ["Versement annulé", "verssement_admin_cust_canceled"],
  ["Montant reçu par le partenaire", "validation_reception_cash_by_partener"],
  ["Échange validé", "echange_valide"],
  ["Demande de suppression", "ask_to_delete_by_admin"],
  ["Informations modifiées", "edited_informations"],
  ["Prix modifié", "edit_price"],
  ["Changement de wilaya", "edit_wilaya"],
  ["Surfacturation du colis", "extra_fee"],
  ["Tentative de livraison", "mise_a_jour"]
]

const keysByLabel = new Map(labels.map(([label, key]) => [fold(label), key] as const))

/**
 * An event's key: the row's `event_key` when it gives one, else the key its label stands for in the PDF's list; a
 * label not in the list is kept as sent (the core maps it to `unknown`).
 */
export const keyOf = (row: { readonly event_key?: string | null; readonly event?: string | null }): string => {
  const key = row.event_key?.trim() ?? ""
  if (key !== "") return key
  const label = row.event?.trim() ?? ""
  return keysByLabel.get(fold(label)) ?? label
}
