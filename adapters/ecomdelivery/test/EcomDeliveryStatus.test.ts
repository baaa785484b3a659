import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Schema } from "effect"
import * as Status from "../src/EcomDeliveryStatus.ts"

/**
 * E-COM's page, "Avancements et les Situations", as listed there (the research's 23 statuses, couriers.md §1.8): the
 * nine Avancements, then the fourteen Situations.
 */
const page = {
  avancements: [
    "En Préparation",
    "En Traitement",
    "Au Bureau",
    "Sortir en livraison",
    "En livraison",
    "Dispatcher",
    "Retour Fournisseur",
    "Récupérer",
    "Perdu"
  ],
  situations: [
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
}

/** The research's examples (couriers.md §1.8), as E-COM's page spells them. */
const researchExamples = [
  "En Préparation",
  "Au Bureau",
  "Sortir en livraison",
  "Ne Réponde pas #1",
  "Ne Réponde pas #2",
  "Ne Réponde pas #3",
  "Récupérer",
  "Recouvert",
  "Annuler x3",
  "Retour Fournisseur"
]

/** What each documented status means here, row by row (README "Statuses"). */
const expected: Readonly<Record<string, CanonicalStatus.CanonicalStatus>> = {
  "En Préparation": "created",
  "En Traitement": "pending_pickup",
  Dispatcher: "in_transit",
  "Au Bureau": "at_stopdesk",
  "Sortir en livraison": "out_for_delivery",
  "En livraison": "out_for_delivery",
  "Ne Réponde pas #1": "failed_attempt",
  "Ne Réponde pas #2": "failed_attempt",
  "Ne Réponde pas #3": "failed_attempt",
  Reporté: "on_hold",
  "Reporté Commune Erronée": "on_hold",
  "Reporté Wilaya Erronée": "on_hold",
  "Attend Information": "on_hold",
  Récupérer: "delivered",
  Annuler: "returning",
  "Annuler x3": "returning",
  "Retour Fournisseur": "returning",
  Perdu: "exception"
}

describe("EcomDeliveryStatus", () => {
  it("lists the 23 documented statuses on their two axes", () => {
    assert.deepStrictEqual(Status.avancements, page.avancements)
    assert.deepStrictEqual(Status.situations, page.situations)
    assert.lengthOf([...Status.avancements, ...Status.situations], 23)
    for (const example of researchExamples) {
      assert.include([...Status.avancements, ...Status.situations], example)
    }
  })

  it("reads every documented status one way: movement, cash, remark, or knowingly unexplained", () => {
    for (const raw of [...page.avancements, ...page.situations]) {
      const ways = [
        Object.hasOwn(Status.statuses, raw) && !Object.hasOwn(Status.codStatuses, raw),
        Object.hasOwn(Status.codStatuses, raw),
        Status.remarks.includes(raw),
        Status.unexplained.includes(raw)
      ].filter(Boolean)
      assert.lengthOf(ways, 1, raw)
    }
    // 18 movements, of which one also reports cash, one cash-only status, three remarks, one unexplained.
    assert.lengthOf(Object.keys(Status.statuses), 18)
    assert.lengthOf(Object.keys(Status.codStatuses), 2)
    assert.lengthOf(Status.remarks, 3)
    assert.deepStrictEqual(Status.unexplained, ["BIZ"])
  })

  it("maps each movement as the README's table says, and nothing undocumented", () => {
    assert.deepStrictEqual(Status.statuses, expected)
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
  })

  it("keeps cash apart: Recouvert moves nothing, and cash follows only a delivery", () => {
    assert.deepStrictEqual(Status.codStatuses, { Récupérer: "collected", Recouvert: "remitted" })
    assert.isFalse(Object.hasOwn(Status.statuses, "Recouvert"))
    for (const raw of Object.keys(Status.codStatuses).filter((raw) => Object.hasOwn(Status.statuses, raw))) {
      assert.strictEqual(Status.statuses[raw], "delivered", raw)
    }
  })

  it("maps the status a shipped parcel has to pending_pickup", () => {
    assert.strictEqual(Status.statuses[Status.shipped], "pending_pickup")
  })
})
