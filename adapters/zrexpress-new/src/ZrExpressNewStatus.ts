/**
 * The new ZR Express platform's raw statuses mapped to the canonical set, as data (research: couriers.md §1.4 lists
 * the workflow state names, §3.3 maps them). A parcel's status is the name of its workflow state, keyed here exactly
 * as sent. The list is not official and may differ per tenant (§6 Q7): a state missing here becomes `unknown` in the
 * core and is logged once — never guessed.
 *
 * §1.4 also names three French equivalents (`commande_recue`, `pret_a_expedier`, `sortie_en_livraison`); each maps
 * like the English state it stands for. "Encaissé" (collected) is also read apart, from `codStatuses`.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"

const table: ReadonlyArray<readonly [CanonicalStatus, ReadonlyArray<string>]> = [
  [
    "created",
    ["OrderReceived", "InProcessing", "ConfirmationCall", "OrderConfirmed", "InPreparation", "commande_recue"]
  ],
  ["pending_pickup", ["ReadyToDispatch", "pret_a_expedier"]],
  ["in_transit", ["ConfirmedAtBranch", "Dispatched", "InterWilayaTransit", "InDelivery"]],
  ["out_for_delivery", ["OutForDelivery", "sortie_en_livraison"]],
  ["at_stopdesk", ["ReadyForPickup", "WaitingClient"]],
  ["failed_attempt", ["FailedDelivery"]],
  ["returning", ["OrderRefused", "InReturn"]],
  ["delivered", ["Delivered", "Collected", "Encaissé", "Encaisse"]],
  ["returned", ["Returned", "ReturnConfirmed"]],
  ["cancelled", ["Cancelled"]]
]

export const statuses: Readonly<Record<string, CanonicalStatus>> = Object.fromEntries(
  table.flatMap(([status, raws]) => raws.map((raw) => [raw, status]))
)

/** The delivered states that also say the courier has cashed the collected amount. */
export const codStatuses: Readonly<Record<string, CodStatus>> = {
  Collected: "collected",
  Encaissé: "collected",
  Encaisse: "collected"
}

/** The state a parcel must be in for the hub to collect it; created in any other, it is stranded. */
export const readyToDispatch = "ReadyToDispatch"

/** State names that mean ReadyToDispatch in a tenant's workflow, compared without case, spaces or punctuation. */
export const readyToDispatchNames: ReadonlySet<string> = new Set(["readytodispatch", "pretaexpedier"])
