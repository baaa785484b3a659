/**
 * Zimou Express's package statuses mapped to the canonical set, as data. Zimou reports a parcel's status as a numeric
 * `status_id` (its `helpers/package-statuses` list); the id, written as a decimal string (`"8"`), is the raw status:
 * the names beside them (`LIVRÉ`) are Zimou's labels, which the aggregators say change in case and accents, so they
 * are not keys. The ids and names are courier-dz's `ZimouAdapter.js` (uften's PHP adapter carries the same list);
 * the canonical reading is research couriers.md §3.3 "Zimou", with its one open row split below.
 *
 * Every id §3.3 lists is here: 1–46, 83, 112–116 and 118 (53 ids). §1.7 names the range "112–118", but no source
 * names 117: it is left out, so the core reports it `unknown` (keeping the raw id) and logs it once — never guessed.
 * Zimou documents no cash status: there is no `codStatuses` table.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"

export const statuses: Readonly<Record<string, CanonicalStatus>> = {
  // §3.3 "created / pending_pickup": "EN PREPARATION" (being prepared, not ready) is created; "PRÊT" (ready), "PAS
  // ENCORE RAMASSÉ" and "EN ATTENTE" (waiting for collection) are pending_pickup.
  /** EN PREPARATION */
  "1": "created",
  /** PRÊT À EXPÉDIER */
  "2": "pending_pickup",
  /** EN ATTENTE */
  "12": "pending_pickup",
  /** WAREHOUSE EN PREPARATION */
  "26": "created",
  /** WAREHOUSE PRET */
  "28": "pending_pickup",
  /** PAS ENCORE RAMASSÉ */
  "33": "pending_pickup",
  /** DROPSHIP EN PREPARATION */
  "34": "created",
  /** DROPSHIP PRET */
  "35": "pending_pickup",
  /** FRET EN PREPARATION */
  "43": "created",
  /** FRET PRET */
  "44": "pending_pickup",

  /** EXPEDIE */
  "3": "picked_up",
  /** PICKUP */
  "23": "picked_up",
  /** ECHANGE COLLECTÉ */
  "39": "picked_up",

  /** VERS WILAYA (SAC) */
  "4": "in_transit",
  /** CENTRE (HUB) */
  "5": "in_transit",
  /** TRANSFERT (SAC) */
  "6": "in_transit",
  /** SOCIETE PARTENAIRE: handed to the partner courier */
  "21": "in_transit",
  /** En Dispatche */
  "24": "in_transit",
  /** Dispatché */
  "25": "in_transit",
  /** AU CENTRE */
  "40": "in_transit",
  /** En localisation */
  "112": "in_transit",
  /** En Transit */
  "114": "in_transit",
  /** En Hub */
  "115": "in_transit",

  /** SORTIE EN LIVRAISON */
  "7": "out_for_delivery",
  /** Prêt pour livreur */
  "113": "out_for_delivery",

  /** ÉCHEC DE LIVRAISON */
  "9": "failed_attempt",
  /** REPORTER (Date): postponed by the recipient */
  "11": "failed_attempt",
  /** TENTATIVE ÉCHOUÉE 1 */
  "13": "failed_attempt",
  /** TENTATIVE ÉCHOUÉE 2 */
  "14": "failed_attempt",
  /** TENTATIVE ÉCHOUÉE 3 */
  "15": "failed_attempt",
  /** REFUSÉ: the recipient refused it (the return is a later status) */
  "22": "failed_attempt",

  /** ALERT (courier-dz: exception; §3.3: on_hold) */
  "10": "on_hold",
  /** Bloqué (courier-dz: exception; §3.3: on_hold, as Yalidine's Bloqué) */
  "83": "on_hold",

  /** LIVRÉ */
  "8": "delivered",

  /** RETOUR VERS CENTRE */
  "16": "returning",
  /** RETOURNEE AU CENTRE */
  "17": "returning",
  /** RETOUR A RETIRER: at a desk, for the merchant to collect */
  "18": "returning",
  /** RETOUR VERS VENDEUR (SAC) */
  "19": "returning",
  /** ECHANGE A RETIRER: the exchanged item, at a desk for the merchant */
  "36": "returning",
  /** Retour (Station) */
  "116": "returning",

  /** RETOURNEE AU VENDEUR (SAC) */
  "20": "returned",
  /** WAREHOUSE RETOURNÉE */
  "29": "returned",
  /** DROPSHIPS RETOURNEÉ */
  "37": "returned",

  /** WAREHOUSE DEMANDE ANNULATION */
  "30": "cancelled",
  /** WAREHOUSE ANNULÉE */
  "31": "cancelled",
  /** DROPSHIPS DEMANDE ANNULATION */
  "41": "cancelled",
  /** DROPSHIPS ANNULÉE */
  "42": "cancelled",
  /** FRET DEMANDE ANNULATION */
  "45": "cancelled",
  /** FRET ANNULÉE */
  "46": "cancelled",

  /** WAREHOUSE HORS STOCK */
  "27": "exception",
  /** WAREHOUSE RETOURNÉE ENDOMAGÉ */
  "32": "exception",
  /** DROPSHIPS RETOURNEÉ ENDOMMAGÉ */
  "38": "exception",
  /** Perdu */
  "118": "exception"
}
