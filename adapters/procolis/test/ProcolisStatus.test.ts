import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ProcolisMapping.ts"
import * as Status from "../src/ProcolisStatus.ts"
import { lirePairs } from "./fixtures/responses.ts"
import { vocabulary } from "./fixtures/situations.ts"

const calls = (prefix: string) => [1, 2, 3].map((n) => `${prefix}Appel sans Réponse ${n}`)

/** couriers.md §3.3, the Procolis table, row by row. */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["En Préparation", "Restaurée"]],
  ["pending_pickup", ["En Traitement - Prêt à Expédie", "Prêt à expédier"]],
  ["in_transit", ["Dispatcher"]],
  ["out_for_delivery", ["En livraison"]],
  ["at_stopdesk", ["Au Bureau", "SD - En Attente du Client"]],
  ["failed_attempt", [...calls(""), ...calls("SD - "), "A Relancé"]],
  ["on_hold", ["Reporté", "SD - Reporté", "Attente Information"]],
  ["delivered", ["Livrée", "Colis Livrée", "Livrée [ Encaisser ]", "Livrée [ Recouvert ]", "Échange"]],
  ["returning", ["Annuler par le Client", "SD - Annuler par le Client", "SD - Annuler 3X"]],
  ["returning", ["Retour de Dispatche", "Retour Livreur", "Retour Navette", "Retour Client"]],
  ["returned", ["Retour Stock"]],
  ["cancelled", ["Supprimée"]]
]

describe("ProcolisStatus", () => {
  it("maps every situation of the documented vocabulary, and nothing else", () => {
    assert.sameMembers(Object.keys(Status.statuses), vocabulary)
    assert.lengthOf(vocabulary, 32)
  })

  it("maps exactly as the research table says", () => {
    const expected = Object.fromEntries(researchTable.flatMap(([status, raws]) => raws.map((raw) => [raw, status])))
    assert.deepStrictEqual(Status.statuses, expected)
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
  })

  it("reads cash only from delivered situations", () => {
    for (const raw of Object.keys(Status.codStatuses)) assert.strictEqual(Status.statuses[raw], "delivered", raw)
    assert.deepStrictEqual(Status.codStatuses, {
      "Livrée [ Encaisser ]": "collected",
      "Livrée [ Recouvert ]": "collected"
    })
  })

  it("maps the status create answers to pending_pickup", () => {
    assert.strictEqual(Status.statuses[Status.confirmed], "pending_pickup")
  })

  it("covers every raw status in the documented-situation fixtures", () => {
    const raw = lirePairs
      .filter(([name]) => !name.includes("nobody documented"))
      .flatMap(([, response]) => Result.getOrThrow(Mapping.fromLire("TWL1", response)).map((event) => event.rawStatus))
    assert.isAbove(raw.length, 3)
    for (const status of raw) assert.isTrue(Object.hasOwn(Status.statuses, status), status)
  })
})
