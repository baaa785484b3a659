/**
 * Ecotrack's raw statuses mapped to the canonical set, as data (research: couriers.md §1.2 lists the keys, §3.3
 * maps them). Ecotrack has two vocabularies: the order-status keys of `get/orders` and `get/orders/status`, and the
 * activity keys of `get/tracking/info`; both are here, keyed exactly as sent (`Return_received` is capitalised).
 * Tenants relabel their French display wording, never the keys, so only keys are mapped. A key missing here
 * becomes `unknown` in the core and is logged once — never guessed.
 *
 * Money: `livre_non_encaisse` is a movement (delivered, cash not yet collected). The five payment keys
 * (`encaisse_non_paye`, `paiements_prets`, `paye_et_archive`, and the activity keys `encaissed`, `payed`) are cash
 * only, as NOEST's are: they live in `codStatuses` alone, so they move nothing — a payment recorded after a return
 * cannot flip the parcel back to delivered — and the core reads the cash from them.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  // Order-status keys.
  en_preparation: "created",
  en_preparation_stock: "created",
  prete_a_expedier: "pending_pickup",
  en_ramassage: "pending_pickup",
  vers_hub: "in_transit",
  en_hub: "in_transit",
  vers_wilaya: "in_transit",
  en_livraison: "out_for_delivery",
  suspendu: "on_hold",
  livre_non_encaisse: "delivered",
  retour_chez_livreur: "returning",
  retour_transit_entrepot: "returning",
  retour_en_traitement: "returning",
  retour_recu: "returned",
  retour_archive: "returned",
  annule: "cancelled",
  // Activity keys.
  order_information_received_by_carrier: "created",
  picked: "picked_up",
  accepted_by_carrier: "in_transit",
  dispatched_to_driver: "out_for_delivery",
  attempt_delivery: "failed_attempt",
  return_asked: "returning",
  return_in_transit: "returning",
  Return_received: "returned",
  livred: "delivered"
}

/**
 * The money keys on the cash dimension: delivered but not yet cashed by the courier, cashed and not yet paid,
 * payment prepared, paid to the merchant (research §3.2, "separate cod_status dimension"). All but
 * `livre_non_encaisse` are only here.
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  livre_non_encaisse: "not_collected",
  encaisse_non_paye: "collected",
  paiements_prets: "collected",
  encaissed: "collected",
  paye_et_archive: "remitted",
  payed: "remitted"
}

/**
 * Activity keys that are not parcel statuses: `notification_on_order` fires when a remark is added. Tracking drops
 * them, so a remark never overwrites the parcel's status (mixing the two is a known integration bug).
 */
export const notStatuses: ReadonlySet<string> = new Set(["notification_on_order"])

/** What a parcel is once created and validated (`valid/order`): ready to ship, waiting for collection. */
export const validated = "prete_a_expedier"

/**
 * What a parcel is once created and not yet validated: the courier does not see it (research §3.2: created). Ecotrack
 * names no key for that stage; `en_preparation`, the order-status key the table reads as created, stands for it.
 */
export const unvalidated = "en_preparation"
