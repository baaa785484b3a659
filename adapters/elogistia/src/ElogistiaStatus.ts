/**
 * Elogistia's raw statuses mapped to the canonical set, as data. The research (couriers.md §1.8 lists them, §3.3
 * maps them) gives fourteen French labels; the list the courier's Postman collection enumerates ("Liste des status
 * des commandes", quoted by a public integration) adds nine more, and its tracking sample one ("Retour"). Keys are
 * spelled as the platform displays them — capital first letter, accents, `&` — and every label is read through one
 * rule, {@link spellingOf}, when creating and when tracking alike.
 *
 * "À remettre" is named by the Postman list but not mapped: it could mean "to hand to the recipient" or "to hand
 * back to the merchant", and a guess is worse than `unknown`, which the core reports with the raw label kept.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

/** The fourteen labels of research §1.8, in the table's spelling, with §3.3's mapping. */
export const research: ReadonlyArray<readonly [string, CanonicalStatus]> = [
  ["À expédiée", "pending_pickup"],
  ["Ramassée", "picked_up"],
  ["Réceptionnée", "picked_up"],
  ["En transit", "in_transit"],
  ["En hub", "in_transit"],
  ["En cours livraison", "out_for_delivery"],
  ["Suspendue", "on_hold"],
  ["Livré", "delivered"],
  ["Livrée & réglée", "delivered"],
  ["Retour en transit", "returning"],
  ["Retour remis", "returned"],
  ["Annulée", "cancelled"],
  ["Perdue", "exception"],
  ["Partiel remis", "exception"]
]

/** The labels only the Postman collection names (README "Unverified"), mapped by their plain French meaning. */
export const postman: ReadonlyArray<readonly [string, CanonicalStatus]> = [
  ["Brouillon", "created"],
  ["À ramasser", "pending_pickup"],
  ["Ramassage à relancer", "pending_pickup"],
  ["En cours de ramassage", "pending_pickup"],
  ["En cours de livraison", "out_for_delivery"],
  ["Livrée", "delivered"],
  ["Retour", "returning"],
  ["Retour reçu", "returned"],
  ["Cassée", "exception"],
  // Like "Partiel remis": part of the order delivered, which no canonical movement says.
  ["Partiel", "exception"]
]

export const statuses: Readonly<Record<string, CanonicalStatus>> = Object.fromEntries([...research, ...postman])

/**
 * "Livrée & réglée" (delivered and settled) also says where the cash is. It is read as collected by the courier:
 * "réglée" may mean the courier has already paid the merchant (`remitted`), which no source confirms.
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = { "Livrée & réglée": "collected" }

/**
 * What a parcel is just after `insertCommande/`, which answers no status: waiting to be shipped, for the courier
 * to collect.
 */
export const created = "À expédiée"

/**
 * A label compared without case, accents, spacing or punctuation, `&` read as "et": "LIVREE ET REGLEE",
 * "livrée&réglée" and "Livrée & réglée" are one label. No two labels of the table fold alike (a test checks it).
 */
export const fold = (label: string): string =>
  label
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/&/g, " et ")
    .replace(/[^\p{L}\p{N}]+/gu, "")

const spellings = new Map(Object.keys(statuses).map((label) => [fold(label), label]))

/**
 * A label in the table's spelling: one the table has is kept, a variant of one (another case, accents dropped,
 * `et` for `&`, extra spaces) is reported as the table spells it, and one the table does not know is kept as sent
 * (the core maps it to `unknown` and logs it once). The one rule for every label the adapter reports.
 */
export const spellingOf = (label: string): string =>
  Object.hasOwn(statuses, label) ? label : (spellings.get(fold(label)) ?? label)
