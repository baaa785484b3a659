import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/YalidineMapping.ts"
import * as Status from "../src/YalidineStatus.ts"
import { historyPairs } from "./fixtures/responses.ts"
import { variants, vocabulary } from "./fixtures/statuses.ts"

/** couriers.md §3.3, the Yalidine table, row by row (first readings; the bracketed alternatives are in the README). */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["Pas encore expédié", "A vérifier", "En préparation"]],
  ["pending_pickup", ["Pas encore ramassé", "Prêt à expédier"]],
  ["picked_up", ["Ramassé"]],
  ["in_transit", ["Transfert", "Expédié", "Centre", "En localisation", "Vers Wilaya", "Reçu à Wilaya", "Débloqué"]],
  ["out_for_delivery", ["Prêt pour livreur", "Sorti en livraison"]],
  ["at_stopdesk", ["En attente du client"]],
  ["failed_attempt", ["Tentative échouée"]],
  ["on_hold", ["Bloqué", "En attente", "En alerte"]],
  ["delivered", ["Livré"]],
  ["returning", ["Echèc livraison"]],
  ["failed_attempt", ["Echange échoué"]],
  [
    "returning",
    [
      "Retour vers centre",
      "Retourné au centre",
      "Retour transfert",
      "Retour groupé",
      "Retour vers vendeur",
      "Retour à retirer"
    ]
  ],
  ["returned", ["Retourné au vendeur"]]
]

describe("YalidineStatus", () => {
  it("maps every status of the vocabulary but Alerte résolue, which says no place: it reads unknown, kept", () => {
    for (const raw of vocabulary) {
      assert.strictEqual(Object.hasOwn(Status.statuses, raw), raw !== "Alerte résolue", raw)
    }
  })

  it("maps each research row as §3.3 says", () => {
    for (const [canonical, raws] of researchTable) {
      for (const raw of raws) assert.strictEqual(Status.statuses[raw], canonical, raw)
    }
  })

  it("maps the other doc version's spellings like the ones they vary", () => {
    for (const [variant, of] of variants) assert.strictEqual(Status.statuses[variant], Status.statuses[of], variant)
  })

  it("lists nothing beyond the vocabulary and its spellings, and the pushed deletion (cancelled)", () => {
    const known = new Set([...vocabulary, ...variants.map(([variant]) => variant), Status.deleted])
    for (const raw of Object.keys(Status.statuses)) assert.isTrue(known.has(raw), raw)
    assert.strictEqual(Status.statuses[Status.deleted], "cancelled")
  })

  it("reads the four payment statuses (§1.1) as cash, apart from movement", () => {
    assert.deepStrictEqual(Status.codStatuses, {
      "not-ready": "not_collected",
      ready: "collected",
      receivable: "collected",
      payed: "remitted"
    })
    for (const raw of Object.keys(Status.codStatuses)) assert.notProperty(Status.statuses, raw)
  })

  it("maps only to canonical statuses, and never to unknown", () => {
    for (const [raw, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), raw)
      assert.notStrictEqual(status, "unknown", raw)
    }
  })

  it("maps every raw status in the reviewed fixtures but the two kept to show they read unknown", () => {
    for (const [name, answer] of historyPairs) {
      const events = Mapping.fromHistories("yal-337AAS", Result.getOrThrow(Mapping.fromHistoryPage(answer)).rows) ?? []
      for (const { rawStatus } of events) {
        if (rawStatus === "colis téléporté" || rawStatus === "Alerte résolue") {
          assert.notProperty(Status.statuses, rawStatus)
        } else assert.property(Status.statuses, rawStatus, `${name}: ${rawStatus}`)
      }
    }
  })

  it("starts a created parcel in preparation", () => {
    assert.strictEqual(Status.statuses[Status.created], "created")
  })
})
