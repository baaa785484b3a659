import { assert, describe, it } from "@effect/vitest"
import { CanonicalStatus } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Result, Schema } from "effect"
import * as Mapping from "../src/NoestMapping.ts"
import * as Status from "../src/NoestStatus.ts"
import { trackingPairs } from "./fixtures/responses.ts"

/** couriers.md §1.6, "Liste des evenements", every key as written. */
const documentedKeys = [
  "upload",
  "customer_validation",
  "validation_collect_colis",
  "validation_reception_admin",
  "validation_reception",
  "fdr_activated",
  "sent_to_redispatch",
  "nouvel_tentative_asked_by_customer",
  "return_asked_by_customer",
  "return_asked_by_hub",
  "retour_dispatched_to_partenaires",
  "return_dispatched_to_partenaire",
  "colis_retour_transmit_to_partner",
  "colis_pickup_transmit_to_partner",
  "annulation_dispatch_retour",
  "cancel_return_dispatched_to_partenaire",
  "livraison_echoue_recu",
  "return_validated_by_partener",
  "return_redispatched_to_livraison",
  "return_dispatched_to_warehouse",
  "pickedup",
  "valid_return_pickup",
  "pickup_picked_recu",
  "colis_suspendu",
  "livre",
  "livred",
  "verssement_admin_cust",
  "verssement_admin_cust_canceled",
  "verssement_hub_cust_canceled",
  "validation_reception_cash_by_partener",
  "echange_valide",
  "echange_valid_by_hub",
  "ask_to_delete_by_admin",
  "ask_to_delete_by_hub",
  "edited_informations",
  "edit_price",
  "edit_wilaya",
  "extra_fee",
  "mise_a_jour"
]

/** couriers.md §3.3, the NOEST table, row by row (the pick-up row as its flow reads: picked_up → in_transit → delivered). */
const movementTable: ReadonlyArray<readonly [CanonicalStatus.CanonicalStatus, ReadonlyArray<string>]> = [
  ["created", ["upload"]],
  ["pending_pickup", ["customer_validation"]],
  ["picked_up", ["validation_collect_colis", "pickedup", "valid_return_pickup"]],
  [
    "in_transit",
    [
      "validation_reception_admin",
      "validation_reception",
      "sent_to_redispatch",
      "annulation_dispatch_retour",
      "cancel_return_dispatched_to_partenaire",
      "colis_pickup_transmit_to_partner"
    ]
  ],
  ["out_for_delivery", ["fdr_activated", "return_redispatched_to_livraison"]],
  ["failed_attempt", ["mise_a_jour", "nouvel_tentative_asked_by_customer"]],
  ["on_hold", ["colis_suspendu"]],
  ["delivered", ["livre", "livred", "echange_valide", "echange_valid_by_hub", "pickup_picked_recu"]],
  [
    "returning",
    [
      "return_asked_by_customer",
      "return_asked_by_hub",
      "retour_dispatched_to_partenaires",
      "return_dispatched_to_partenaire",
      "colis_retour_transmit_to_partner",
      "return_dispatched_to_warehouse"
    ]
  ],
  ["returned", ["livraison_echoue_recu", "return_validated_by_partener"]],
  ["cancelled", ["ask_to_delete_by_admin", "ask_to_delete_by_hub"]]
]

/** §3.3 "verssement_*, validation_reception_cash_by_partener | cod_status only". */
const cashKeys = [
  "verssement_admin_cust",
  "verssement_admin_cust_canceled",
  "verssement_hub_cust_canceled",
  "validation_reception_cash_by_partener"
]

/** §3.3 "edited_informations, edit_price, edit_wilaya, extra_fee | not movement". */
const adminKeys = ["edited_informations", "edit_price", "edit_wilaya", "extra_fee"]

const at = (day: number, hour: number) =>
  `2026-04-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:00:00+01:00`

describe("NoestStatus", () => {
  it("sorts every documented key into movement, cash or admin edit, and nothing else", () => {
    const movement = movementTable.flatMap(([, keys]) => keys)
    assert.sameMembers([...movement, ...cashKeys, ...adminKeys], documentedKeys)
    assert.sameMembers(Object.keys(Status.codStatuses), cashKeys)
    assert.sameMembers([...Status.notStatuses], adminKeys)
    for (const key of adminKeys) assert.isFalse(Object.hasOwn(Status.statuses, key), key)
  })

  it("maps movement exactly as the research table says; cash keys only as cash", () => {
    const expected = Object.fromEntries(movementTable.flatMap(([status, keys]) => keys.map((key) => [key, status])))
    for (const key of cashKeys) assert.isFalse(Object.hasOwn(Status.statuses, key), key)
    assert.deepStrictEqual(Status.statuses, expected)
    assert.deepStrictEqual(Status.codStatuses, {
      verssement_admin_cust: "remitted",
      validation_reception_cash_by_partener: "remitted",
      verssement_admin_cust_canceled: "collected",
      verssement_hub_cust_canceled: "collected"
    })
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

  it("covers every raw status in the fixtures but the undocumented one they keep", () => {
    const raw = trackingPairs.flatMap(([, tracking, response]) =>
      Result.getOrThrow(Mapping.fromTracking(tracking, response)).map((event) => event.rawStatus)
    )
    const known = (status: string) =>
      Object.hasOwn(Status.statuses, status) || Object.hasOwn(Status.codStatuses, status)
    assert.deepStrictEqual(
      raw.filter((status) => !known(status)),
      ["colis_teleporte"]
    )
    assert.sameMembers(
      [...new Set(raw.filter((status) => status !== "colis_teleporte"))],
      [...Object.keys(Status.statuses), ...Object.keys(Status.codStatuses)],
      "the fixtures carry every mapped key"
    )
  })

  describe("cash apart from movement (the core's timeline with this table)", () => {
    const timeline = (events: ReadonlyArray<readonly [string, string]>) =>
      Tracking.timeline(
        "NOE1",
        Status.statuses,
        events.map(([rawStatus, timestamp]) => ({ rawStatus, timestamp })),
        Status.codStatuses
      ).result

    it("a payment after a return leaves the parcel returned: cash moves nothing", () => {
      const returned = timeline([
        ["livre", at(20, 14)],
        ["return_validated_by_partener", at(22, 10)],
        ["verssement_admin_cust", at(27, 10)]
      ])
      assert.deepStrictEqual([returned.status, returned.cod], ["returned", "remitted"])
    })

    it("a payment after the delivery leaves the parcel delivered; the cash is read from it alone", () => {
      const delivered = timeline([
        ["customer_validation", at(18, 9)],
        ["livre", at(20, 14)]
      ])
      assert.deepStrictEqual([delivered.status, delivered.cod], ["delivered", "not_collected"])
      const paid = timeline([
        ["customer_validation", at(18, 9)],
        ["livre", at(20, 14)],
        ["verssement_admin_cust", at(27, 10)]
      ])
      assert.deepStrictEqual([paid.status, paid.cod], ["delivered", "remitted"])
      const confirmed = timeline([
        ["livre", at(20, 14)],
        ["verssement_admin_cust", at(27, 10)],
        ["validation_reception_cash_by_partener", at(28, 10)]
      ])
      assert.deepStrictEqual([confirmed.status, confirmed.cod], ["delivered", "remitted"])
    })

    it("a cancelled hand-over puts the cash back with the courier, and moves nothing", () => {
      const cancelled = timeline([
        ["livre", at(20, 14)],
        ["verssement_admin_cust", at(27, 10)],
        ["verssement_admin_cust_canceled", at(27, 12)]
      ])
      assert.deepStrictEqual([cancelled.status, cancelled.cod], ["delivered", "collected"])
      const again = timeline([
        ["livre", at(20, 14)],
        ["verssement_hub_cust_canceled", at(27, 12)],
        ["verssement_admin_cust", at(29, 12)]
      ])
      assert.deepStrictEqual([again.status, again.cod], ["delivered", "remitted"])
    })

    it("the movement keeps its own events; admin edits never reach the timeline", () => {
      const result = timeline([
        ["customer_validation", at(18, 9)],
        ["fdr_activated", at(20, 8)],
        ["mise_a_jour", at(20, 11)]
      ])
      assert.deepStrictEqual([result.status, result.cod], ["failed_attempt", "not_collected"])
      const tracked = Result.getOrThrow(Mapping.fromTracking(trackingPairs[0]![1], trackingPairs[0]![2]))
      for (const key of adminKeys)
        assert.isFalse(
          tracked.some((event) => event.rawStatus === key),
          key
        )
    })
  })
})
