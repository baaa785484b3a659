/**
 * Procolis' raw statuses mapped to the canonical set, as data (research: couriers.md §1.3 lists the `Situation`
 * texts, §3.3 maps them). Procolis reports a parcel's situation as French display text, keyed here exactly as sent —
 * accents, capitals, brackets and the API's own misspellings ("Prêt à Expédie") included. "SD -" prefixes the
 * stop-desk variants. A text missing here becomes `unknown` in the core and is logged once — never guessed.
 *
 * Cash on delivery is folded into two of the delivered texts ("Livrée [ Encaisser ]", "Livrée [ Recouvert ]"); they
 * are read apart, from `codStatuses`.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

const calls = (prefix: string) => [1, 2, 3].map((attempt) => `${prefix}Appel sans Réponse ${attempt}`)

const table: ReadonlyArray<readonly [CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["En Préparation", "Restaurée"]],
  ["pending_pickup", ["En Traitement - Prêt à Expédie", "Prêt à expédier"]],
  ["in_transit", ["Dispatcher"]],
  ["out_for_delivery", ["En livraison"]],
  ["at_stopdesk", ["Au Bureau", "SD - En Attente du Client"]],
  ["failed_attempt", [...calls(""), ...calls("SD - "), "A Relancé"]],
  ["on_hold", ["Reporté", "SD - Reporté", "Attente Information"]],
  ["delivered", ["Livrée", "Colis Livrée", "Livrée [ Encaisser ]", "Livrée [ Recouvert ]", "Échange"]],
  // The customer refused at the door: the goods still have to come back (§3.3; other aggregators say cancelled).
  ["returning", ["Annuler par le Client", "SD - Annuler par le Client", "SD - Annuler 3X"]],
  ["returning", ["Retour de Dispatche", "Retour Livreur", "Retour Navette", "Retour Client"]],
  ["returned", ["Retour Stock"]],
  ["cancelled", ["Supprimée"]]
]

export const statuses: Readonly<Record<string, CanonicalStatus>> = Object.fromEntries(
  table.flatMap(([status, raws]) => raws.map((raw) => [raw, status]))
)

/**
 * The delivered texts that also say where the cash is. Both are read as collected by the courier: "[ Recouvert ]"
 * may mean the cash has already been remitted to the merchant, which no source confirms (README "Unverified").
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  "Livrée [ Encaisser ]": "collected",
  "Livrée [ Recouvert ]": "collected"
}

/** What a confirmed parcel is (`Confrimee` 1, or after `pret`): ready to ship, waiting for collection. */
export const confirmed = "Prêt à expédier"
