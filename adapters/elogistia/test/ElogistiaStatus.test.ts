import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Schema } from "effect"
import * as Status from "../src/ElogistiaStatus.ts"

/** couriers.md §1.8, the fourteen labels as the research writes them (lower case, as courier-dz keys them). */
const researchLabels = [
  "ramassée",
  "réceptionnée",
  "à expédiée",
  "en transit",
  "en hub",
  "en cours livraison",
  "livré",
  "livrée & réglée",
  "suspendue",
  "annulée",
  "retour en transit",
  "retour remis",
  "perdue",
  "partiel remis"
]

/** couriers.md §3.3, the Elogistia table, row by row. */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["pending_pickup", ["à expédiée"]],
  ["picked_up", ["ramassée", "réceptionnée"]],
  ["in_transit", ["en transit", "en hub"]],
  ["out_for_delivery", ["en cours livraison"]],
  ["on_hold", ["suspendue"]],
  ["delivered", ["livré", "livrée & réglée"]],
  ["returning", ["retour en transit"]],
  ["returned", ["retour remis"]],
  ["cancelled", ["annulée"]],
  ["exception", ["perdue", "partiel remis"]]
]

describe("ElogistiaStatus", () => {
  it("maps the research's fourteen labels, read through the one rule, exactly as its table says", () => {
    assert.lengthOf(researchLabels, 14)
    for (const [status, labels] of researchTable) {
      for (const label of labels) {
        const spelled = Status.spellingOf(label)
        assert.isTrue(Object.hasOwn(Status.statuses, spelled), label)
        assert.strictEqual(Status.statuses[spelled], status, label)
      }
    }
    assert.sameMembers(
      researchLabels.map(Status.spellingOf),
      Status.research.map(([label]) => label)
    )
  })

  it("maps 24 labels: the fourteen, and ten from the Postman collection; 'À remettre' is left to unknown", () => {
    assert.lengthOf(Object.keys(Status.statuses), 24)
    assert.lengthOf(Status.postman, 10)
    assert.isFalse(Object.hasOwn(Status.statuses, Status.spellingOf("À remettre")))
  })

  it("maps only to canonical statuses, never to unknown, and no two labels fold alike", () => {
    for (const [label, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), label)
      assert.notStrictEqual(status, "unknown", label)
    }
    const folded = Object.keys(Status.statuses).map(Status.fold)
    assert.strictEqual(new Set(folded).size, folded.length)
  })

  it.each([
    ["Livrée & réglée", "Livrée & réglée"],
    ["livrée & réglée", "Livrée & réglée"],
    ["LIVREE ET REGLEE", "Livrée & réglée"],
    ["livrée&réglée", "Livrée & réglée"],
    ["  En   cours livraison ", "En cours livraison"],
    ["A expediee", "À expédiée"],
    ["Réceptionnée", "Réceptionnée"],
    // NFD: the accent as a combining mark, as some systems write it.
    ["Re\u0301ceptionne\u0301e", "Réceptionnée"],
    ["livre", "Livré"],
    ["livree", "Livrée"],
    ["Colis téléporté", "Colis téléporté"],
    ["À remettre", "À remettre"]
  ])("spells %j as %j", (sent, spelled) => {
    assert.strictEqual(Status.spellingOf(sent), spelled)
  })

  it("creates in a status of the table, and reads cash only from a delivered label", () => {
    assert.strictEqual(Status.statuses[Status.created], "pending_pickup")
    assert.deepStrictEqual(Status.codStatuses, { "Livrée & réglée": "collected" })
    for (const label of Object.keys(Status.codStatuses)) assert.strictEqual(Status.statuses[label], "delivered")
  })
})
