import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Result, Schema } from "effect"
import * as Mapping from "../src/EcotrackMapping.ts"
import * as Status from "../src/EcotrackStatus.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** couriers.md §1.2, copied as written: the order-status keys (without the filter value `all`). */
const orderStatusKeys = [
  "prete_a_expedier",
  "en_ramassage",
  "en_preparation_stock",
  "vers_hub",
  "en_hub",
  "vers_wilaya",
  "en_preparation",
  "en_livraison",
  "suspendu",
  "livre_non_encaisse",
  "encaisse_non_paye",
  "paiements_prets",
  "paye_et_archive",
  "retour_chez_livreur",
  "retour_transit_entrepot",
  "retour_en_traitement",
  "retour_recu",
  "retour_archive",
  "annule"
]

/** couriers.md §1.2: the activity keys of `get/tracking/info`. */
const activityKeys = [
  "order_information_received_by_carrier",
  "notification_on_order",
  "picked",
  "accepted_by_carrier",
  "dispatched_to_driver",
  "attempt_delivery",
  "return_asked",
  "return_in_transit",
  "Return_received",
  "livred",
  "encaissed",
  "payed"
]

/** The payment keys: cash only (they move nothing), although §3.3 files them under delivered (issue 19). */
const paymentKeys = ["encaisse_non_paye", "paiements_prets", "paye_et_archive", "encaissed", "payed"]

/**
 * couriers.md §3.3, the Ecotrack table, row by row — but for `en_preparation`, which the table files under created
 * and the official order-status documentation shows on a parcel after failed delivery attempts at its destination
 * (between `vers_wilaya` and `en_livraison` in the documented list): the destination agency preparing it for delivery.
 */
const researchTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["en_preparation_stock", "order_information_received_by_carrier"]],
  ["pending_pickup", ["prete_a_expedier", "en_ramassage"]],
  ["picked_up", ["picked"]],
  ["in_transit", ["accepted_by_carrier", "vers_hub", "en_hub", "vers_wilaya", "en_preparation"]],
  ["out_for_delivery", ["en_livraison", "dispatched_to_driver"]],
  ["failed_attempt", ["attempt_delivery"]],
  ["on_hold", ["suspendu"]],
  [
    "delivered",
    ["livre_non_encaisse", "encaisse_non_paye", "paiements_prets", "paye_et_archive", "livred", "encaissed", "payed"]
  ],
  [
    "returning",
    ["return_asked", "return_in_transit", "retour_chez_livreur", "retour_transit_entrepot", "retour_en_traitement"]
  ],
  ["returned", ["retour_recu", "retour_archive", "Return_received"]],
  ["cancelled", ["annule"]]
]

describe("EcotrackStatus", () => {
  it("maps every documented key, as a movement or as cash only, except the remark notification", () => {
    for (const key of [...orderStatusKeys, ...activityKeys]) {
      const mapped = Object.hasOwn(Status.statuses, key) || Object.hasOwn(Status.codStatuses, key)
      assert.isTrue(mapped !== Status.notStatuses.has(key), key)
    }
    assert.deepStrictEqual([...Status.notStatuses], ["notification_on_order"])
  })

  it("maps movements as the research table says, and keeps the five payment keys to the cash dimension", () => {
    const expected = Object.fromEntries(
      researchTable.flatMap(([status, keys]) =>
        keys.filter((key) => !paymentKeys.includes(key)).map((key) => [key, status])
      )
    )
    // The official documentation's accented spellings of the same keys, beside the plain ones.
    const accented = { livré_non_encaissé: "delivered", retour_reçu: "returned" } as const
    assert.deepStrictEqual(Status.statuses, { ...expected, ...accented })
    for (const key of paymentKeys) {
      assert.isFalse(Object.hasOwn(Status.statuses, key), key)
      assert.isTrue(Object.hasOwn(Status.codStatuses, key), key)
    }
  })

  it("a payment recorded after a return leaves the parcel returned, and says where the cash is", () => {
    const { result } = Tracking.timeline(
      "ECO1",
      Status.statuses,
      [
        { rawStatus: "livred", timestamp: "2026-11-01T10:00:00Z" },
        { rawStatus: "return_asked", timestamp: "2026-11-02T10:00:00Z" },
        { rawStatus: "Return_received", timestamp: "2026-11-03T10:00:00Z" },
        { rawStatus: "payed", timestamp: "2026-11-04T10:00:00Z" }
      ],
      Status.codStatuses
    )
    assert.strictEqual(result.status, "returned")
    assert.strictEqual(result.cod, "remitted")
  })

  it("maps only to canonical statuses, never to unknown", () => {
    for (const [key, status] of Object.entries(Status.statuses)) {
      assert.isTrue(Schema.is(CanonicalStatus.CanonicalStatus)(status), key)
      assert.notStrictEqual(status, "unknown", key)
    }
  })

  it("maps the status create answers", () => {
    assert.strictEqual(Status.statuses[Status.validated], "pending_pickup")
  })

  it("covers every raw status in the documented-key fixtures", () => {
    const raw = trackingPairs
      .filter(([name]) => !name.includes("nobody documented"))
      .flatMap(([, response]) => Result.getOrThrow(Mapping.fromTracking(response)).map((event) => event.rawStatus))
    assert.isAbove(raw.length, 10)
    for (const status of raw) {
      assert.isTrue(Object.hasOwn(Status.statuses, status) || Object.hasOwn(Status.codStatuses, status), status)
    }
  })
})
