import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ZrExpressNewMapping.ts"
import * as Status from "../src/ZrExpressNewStatus.ts"
import { historyPairs, parcel, response, stateNames } from "./fixtures/responses.ts"

/** couriers.md §3.3, the ZR Express new table, row by row ("Collected/Encaissé" and §1.4's "Encaisse" spelled out). */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["OrderReceived", "InProcessing", "ConfirmationCall", "OrderConfirmed", "InPreparation"]],
  ["pending_pickup", ["ReadyToDispatch"]],
  ["in_transit", ["ConfirmedAtBranch", "Dispatched", "InterWilayaTransit", "InDelivery"]],
  ["out_for_delivery", ["OutForDelivery"]],
  ["at_stopdesk", ["ReadyForPickup", "WaitingClient"]],
  ["failed_attempt", ["FailedDelivery"]],
  ["returning", ["OrderRefused", "InReturn"]],
  ["delivered", ["Delivered", "Collected", "Encaissé", "Encaisse"]],
  ["returned", ["Returned", "ReturnConfirmed"]],
  ["cancelled", ["Cancelled"]]
]

/** §1.4's French equivalents, each with the English state it stands for. */
const french: ReadonlyArray<readonly [string, string]> = [
  ["commande_recue", "OrderReceived"],
  ["pret_a_expedier", "ReadyToDispatch"],
  ["sortie_en_livraison", "OutForDelivery"]
]

describe("ZrExpressNewStatus", () => {
  it("maps every state the research and the live default workflow name, and nothing else", () => {
    assert.sameMembers(Object.keys(Status.statuses), stateNames)
  })

  it("maps the English states exactly as the research table says, and the French ones like their English twins", () => {
    for (const [status, raws] of researchTable) {
      for (const raw of raws) assert.strictEqual(Status.statuses[raw], status, raw)
    }
    for (const [fr, en] of french) assert.strictEqual(Status.statuses[fr], Status.statuses[en], fr)
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
  })

  it("reads cash only from delivered states, and ReadyToDispatch as pending pickup", () => {
    for (const raw of Object.keys(Status.codStatuses)) assert.strictEqual(Status.statuses[raw], "delivered", raw)
    assert.strictEqual(Status.statuses[Status.readyToDispatch], "pending_pickup")
    assert.isTrue(Status.isReadyToDispatch(Status.readyToDispatch))
  })

  it("reads a tenant's spelling of a state by one rule, when creating and when tracking", () => {
    for (const name of ["Ready To Dispatch", "ready-to-dispatch", "READYTODISPATCH", "Prêt à expédier"]) {
      assert.isTrue(Status.isReadyToDispatch(name), name)
      assert.strictEqual(Status.statuses[Status.spellingOf(name)], "pending_pickup", name)
    }
    assert.strictEqual(Status.spellingOf("Out for delivery"), "OutForDelivery")
    assert.strictEqual(Status.spellingOf("Encaisse"), "Encaisse", "a spelling of the table is kept as sent")
    assert.strictEqual(Status.spellingOf("ENCAISSE"), "encaisse", "a variant reads as the default workflow's slug")
    assert.strictEqual(Status.spellingOf("Encaissé"), "Encaissé", "a spelling of the table is kept as sent")
    // A state the table does not know is kept as sent: the core maps it to unknown and logs it once.
    assert.strictEqual(Status.spellingOf("Perdu en route"), "Perdu en route")
    assert.isFalse(Status.isReadyToDispatch("Dispatched"))
  })

  it("covers every raw status in the documented-state fixtures", () => {
    const read = Result.getOrThrow(Mapping.fromParcel(response(200, parcel)))
    const raw = historyPairs
      .filter(([name]) => !name.includes("nobody documented"))
      .flatMap(([, wire]) => Result.getOrThrow(Mapping.fromStateHistory(read, wire)).map((event) => event.rawStatus))
    assert.isAbove(raw.length, 4)
    for (const status of raw) assert.isTrue(Object.hasOwn(Status.statuses, status), status)
  })
})
