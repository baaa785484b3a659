/**
 * Ecotrack's raw statuses mapped to the canonical set, as data (research: couriers.md §1.2 lists the keys, §3.3
 * maps them). Ecotrack has two vocabularies: the order-status keys of `get/orders`, `get/orders/status` and of the
 * `status` the tracking answers carry, and the activity keys of `get/tracking/info`; both are here, keyed exactly as
 * sent (`Return_received` is capitalised), and the keys the official order-status documentation spells with accents
 * (`livré_non_encaissé`, `encaissé_non_payé`, `payé_et_archivé`, `retour_reçu`) beside their plain spellings. A key
 * missing here becomes `unknown` in the core and is logged once — never guessed.
 *
 * The tracking answers' `status` is the order status in words, the tenant's display label ("Prêt à expédier",
 * "Suspendus", "Livre non encaissé"): {@link keyOfLabel} reads the platform's default labels back to their keys.
 * Tenants may relabel; a label not known here is passed on as sent, and maps to `unknown`.
 *
 * Money: `livre_non_encaisse` is a movement (delivered, cash not yet collected). The five payment keys
 * (`encaisse_non_paye`, `paiements_prets`, `paye_et_archive`, and the activity keys `encaissed`, `payed`) are cash
 * only, as NOEST's are: they live in `codStatuses` alone, so they move nothing — a payment recorded after a return
 * cannot flip the parcel back to delivered — and the core reads the cash from them.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  // Order-status keys.
  // At the destination's agency, being prepared for delivery: it sits between `vers_wilaya` and `en_livraison` in the
  // documented list, and the order-status documentation shows it again after failed attempts at the destination.
  en_preparation: "in_transit",
  en_preparation_stock: "created",
  prete_a_expedier: "pending_pickup",
  en_ramassage: "pending_pickup",
  vers_hub: "in_transit",
  en_hub: "in_transit",
  vers_wilaya: "in_transit",
  en_livraison: "out_for_delivery",
  suspendu: "on_hold",
  livre_non_encaisse: "delivered",
  livré_non_encaissé: "delivered",
  retour_chez_livreur: "returning",
  retour_transit_entrepot: "returning",
  retour_en_traitement: "returning",
  retour_recu: "returned",
  retour_reçu: "returned",
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
  livré_non_encaissé: "not_collected",
  encaisse_non_paye: "collected",
  encaissé_non_payé: "collected",
  paiements_prets: "collected",
  encaissed: "collected",
  paye_et_archive: "remitted",
  payé_et_archivé: "remitted",
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
 * What a parcel is once created and not yet validated: the courier does not see it (research §3.2: created).
 * Ecotrack's order statuses name no such stage; the activity key `order_information_received_by_carrier` (the
 * order's details reached the carrier, nothing more), which the table reads as created, stands for it.
 */
export const unvalidated = "order_information_received_by_carrier"

/** A name compared without case, accents, spaces or punctuation (`Livré non encaissé` = `livre non encaisse`). */
const fold = (name: string) =>
  name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")

/**
 * The platform's default display labels of the order-status keys, singular and plural (the dashboard's tabs are
 * plural: "Suspendus", "Retours prêts"), as integrations and the tracking answers show them.
 */
const labels: ReadonlyArray<readonly [key: string, labels: ReadonlyArray<string>]> = [
  ["en_preparation_stock", ["En préparation stock"]],
  ["prete_a_expedier", ["Prêt à expédier", "Prêts à expédier", "Prête à expédier"]],
  ["en_ramassage", ["En ramassage"]],
  ["vers_hub", ["Vers hub"]],
  ["en_hub", ["En hub"]],
  ["vers_wilaya", ["Vers wilaya"]],
  ["en_preparation", ["En préparation"]],
  ["en_livraison", ["En livraison"]],
  ["suspendu", ["Suspendu", "Suspendus"]],
  ["livre_non_encaisse", ["Livré non encaissé", "Livrés non encaissés"]],
  ["encaisse_non_paye", ["Encaissé non payé", "Encaissés non payés"]],
  ["paiements_prets", ["Paiement prêt", "Paiements prêts"]],
  ["paye_et_archive", ["Payé et archivé", "Payés et archivés"]],
  ["retour_chez_livreur", ["Retour chez livreur", "Retours chez livreur"]],
  ["retour_transit_entrepot", ["Retour transit entrepôt", "Retours transit entrepôt", "Retour en transit"]],
  ["retour_en_traitement", ["Retour en traitement", "Retours en traitement"]],
  ["retour_recu", ["Retour reçu", "Retours reçus"]],
  ["retour_archive", ["Retour archivé", "Retours archivés"]],
  ["annule", ["Annulé", "Annulés"]]
]

const keysByLabel = new Map(labels.flatMap(([key, names]) => names.map((name) => [fold(name), key] as const)))

/**
 * The order-status key a tracking answer's `status` names: a key as sent, or a default label read back to its key
 * (compared without case or accents); any other label is kept as sent, for the core to report as `unknown`.
 */
export const keyOfLabel = (status: string): string =>
  Object.hasOwn(statuses, status) || Object.hasOwn(codStatuses, status)
    ? status
    : (keysByLabel.get(fold(status)) ?? status.trim())
