/**
 * E-COM Delivery's raw statuses mapped to the canonical set, as data. E-COM reports a parcel on two axes, both as
 * French display text keyed here exactly as sent: its `Avancement` (where the parcel is: 9 values) and its
 * `Situation` (what happened with the recipient: 14 values). The 23 are the list on E-COM's API page ("Avancements et
 * les Situations"), the research's "23 statuses" (couriers.md §1.8), which courier-dz maps too; the meanings follow
 * the Procolis mapping of research §3.3 where the words are the same. A text missing here becomes `unknown` in the
 * core and is logged once — never guessed.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

/** Where the parcel is: every tracked parcel has one. */
export const avancements: ReadonlyArray<string> = [
  "En Préparation",
  "En Traitement",
  "Au Bureau",
  "Sortir en livraison",
  "En livraison",
  "Dispatcher",
  "Retour Fournisseur",
  "Récupérer",
  "Perdu"
]

/** What happened with the recipient: "EnCours" while nothing has. */
export const situations: ReadonlyArray<string> = [
  "EnCours",
  "Ne Réponde pas #1",
  "Ne Réponde pas #2",
  "Ne Réponde pas #3",
  "Annuler",
  "Annuler x3",
  "Attend Information",
  "Reporté",
  "Reporté Commune Erronée",
  "Reporté Wilaya Erronée",
  "BIZ",
  "Appel Tel",
  "SMS Envoyé",
  "Recouvert"
]

const table: ReadonlyArray<readonly [CanonicalStatus, ReadonlyArray<string>]> = [
  // Created, editable until `aExpédier`; then ready and waiting for collection.
  ["created", ["En Préparation"]],
  ["pending_pickup", ["En Traitement"]],
  ["in_transit", ["Dispatcher"]],
  ["at_stopdesk", ["Au Bureau"]],
  ["out_for_delivery", ["Sortir en livraison", "En livraison"]],
  ["failed_attempt", ["Ne Réponde pas #1", "Ne Réponde pas #2", "Ne Réponde pas #3"]],
  // Postponed, or waiting for a corrected address or more information: blocked until someone acts (§3.3's Reporté).
  ["on_hold", ["Reporté", "Reporté Commune Erronée", "Reporté Wilaya Erronée", "Attend Information"]],
  // The goods were handed over and paid for (courier-dz, from Vargo's enum of E-COM's statuses).
  ["delivered", ["Récupérer"]],
  // The recipient refused: the goods still have to come back (§3.3 reads Procolis' "Annuler par le Client" so).
  ["returning", ["Annuler", "Annuler x3", "Retour Fournisseur"]],
  ["exception", ["Perdu"]]
]

export const statuses: Readonly<Record<string, CanonicalStatus>> = Object.fromEntries(
  table.flatMap(([status, raws]) => raws.map((raw) => [raw, status]))
)

/**
 * Where the cash is. "Récupérer" is a delivery, so the courier holds the cash; "Recouvert" is cash only — the money
 * has reached the merchant (two integrations read it so) — and never moves the parcel.
 */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  Récupérer: "collected",
  Recouvert: "remitted"
}

/**
 * Situations that report contact, not a state: "EnCours" (nothing yet), "Appel Tel" (the recipient was called),
 * "SMS Envoyé" (a text was sent). Tracking leaves them out, as the guide leaves out remarks, so that they never hide
 * where the parcel is.
 */
export const remarks: ReadonlyArray<string> = ["EnCours", "Appel Tel", "SMS Envoyé"]

/**
 * Documented, but what it means is not: "BIZ" (courier-dz reads it as an exception, another integration as an
 * exchange parcel). It is passed on and becomes `unknown` in the core, which logs it.
 */
export const unexplained: ReadonlyArray<string> = ["BIZ"]

/** What a parcel is once `aExpédier` has shipped it: ready, waiting for collection. */
export const shipped = "En Traitement"

/** What a parcel is once created, before `aExpédier`: editable, not yet for the courier to collect. */
export const created = "En Préparation"
