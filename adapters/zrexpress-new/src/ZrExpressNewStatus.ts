/**
 * The new ZR Express platform's raw statuses mapped to the canonical set, as data (research: couriers.md §1.4 lists
 * the workflow state names, §3.3 maps them). A parcel's status is the name of its workflow state, keyed here exactly
 * as sent. The list is not official and may differ per tenant (§6 Q7): a state missing here becomes `unknown` in the
 * core and is logged once — never guessed.
 *
 * §1.4 also names three French equivalents (`commande_recue`, `pret_a_expedier`, `sortie_en_livraison`); each maps
 * like the English state it stands for. "Encaissé" (collected) is also read apart, from `codStatuses`.
 *
 * The live default workflow ("New Delivery Workflow") names its states in French slugs: the 22 states an
 * integrator's audit of the production API captured (`POST workflows/search`) are here, each mapped as its
 * description says (`livre`: Livré; `vers_wilaya`: towards the destination wilaya; `attente_recuperation_fournisseur`:
 * a return waiting for the merchant to collect it). The English names no ZR document uses are kept for tenants that
 * renamed theirs.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import * as Names from "./internal/Names.ts"

const table: ReadonlyArray<readonly [CanonicalStatus, ReadonlyArray<string>]> = [
  [
    "created",
    [
      "OrderReceived",
      "InProcessing",
      "ConfirmationCall",
      "OrderConfirmed",
      "InPreparation",
      "commande_recue",
      "en_traitement",
      "appel_confirmation",
      "commande_confirmee",
      "en_preparation"
    ]
  ],
  ["pending_pickup", ["ReadyToDispatch", "pret_a_expedier"]],
  [
    "in_transit",
    [
      "ConfirmedAtBranch",
      "Dispatched",
      "InterWilayaTransit",
      "InDelivery",
      "confirme_au_bureau",
      "confirme_chez_partenaire",
      "dispatch",
      "vers_wilaya"
    ]
  ],
  ["out_for_delivery", ["OutForDelivery", "sortie_en_livraison", "en_livraison"]],
  ["at_stopdesk", ["ReadyForPickup", "WaitingClient"]],
  ["failed_attempt", ["FailedDelivery"]],
  [
    "returning",
    ["OrderRefused", "InReturn", "retour_sous_traitant", "attente_recuperation_fournisseur", "colis_recupere"]
  ],
  ["delivered", ["Delivered", "Collected", "Encaissé", "Encaisse", "livre", "encaisse", "recouvert"]],
  [
    "returned",
    ["Returned", "ReturnConfirmed", "recupere_par_fournisseur", "reinjecte_dans_stock", "remboursement_reinjecte"]
  ],
  ["cancelled", ["Cancelled", "colis_annule"]]
]

export const statuses: Readonly<Record<string, CanonicalStatus>> = Object.fromEntries(
  table.flatMap(([status, raws]) => raws.map((raw) => [raw, status]))
)

/** The delivered states that also say the courier has cashed the collected amount. */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  Collected: "collected",
  Encaissé: "collected",
  Encaisse: "collected",
  encaisse: "collected",
  recouvert: "collected"
}

/** The state a parcel must be in for the hub to collect it; created in any other, it is stranded. */
export const readyToDispatch = "ReadyToDispatch"

/** The table's spelling of every state name, by its folded form. */
const spellings = new Map(Object.keys(statuses).map((raw) => [Names.fold(raw), raw]))

/**
 * A tenant's state name in the table's spelling, compared without case, accents, spaces or punctuation (`Ready To
 * Dispatch` = `ReadyToDispatch`): a name the table has is kept as sent, a variant of one is reported in the table's
 * spelling, and a name the table does not know is kept as sent (the core maps it to `unknown`).
 * One rule for every state name the adapter reads: the workflow state it creates in, and every tracked state.
 */
export const spellingOf = (name: string): string =>
  Object.hasOwn(statuses, name) ? name : (spellings.get(Names.fold(name)) ?? name)

const readyNames: ReadonlySet<string> = new Set([readyToDispatch, "pret_a_expedier"])

/** Whether a tenant's state name is ReadyToDispatch (or its French equivalent), by the same rule. */
export const isReadyToDispatch = (name: string): boolean => readyNames.has(spellingOf(name))
