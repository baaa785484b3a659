import { assert, describe, it } from "@effect/vitest"
import { CourierError, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ZrExpressNewMapping.ts"
import * as Wire from "../src/ZrExpressNewWire.ts"
import { createPairs, HUB, IDS } from "./fixtures/orders.ts"
import {
  ALGER,
  algiersCommunes,
  BAB_EZZOUAR,
  EL_MARSA,
  type ExpectedReason,
  errorPairs,
  historyPairs,
  hubsPage,
  ORAN,
  parcel,
  ratePairs,
  rateTable,
  response,
  wilayas
} from "./fixtures/responses.ts"

const order = (input: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...input
  })

const query = (input: { readonly toWilaya: number; readonly deliveryType: string; readonly tier?: string }) =>
  Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const assertReason = (reason: CourierError.CourierErrorReason, expected: ExpectedReason, label: string) => {
  assert.strictEqual(reason._tag, expected._tag, label)
  if (expected.retryAfterSeconds !== undefined) {
    assert.strictEqual(
      reason._tag === "CourierRateLimited" ? reason.retryAfterSeconds : undefined,
      expected.retryAfterSeconds,
      label
    )
  }
  for (const part of expected.says ?? []) assert.include(reason.message, part, label)
}

const territories = (items: ReadonlyArray<unknown>) =>
  Result.getOrThrow(Mapping.fromTerritories(response(200, { items, hasNext: false }))).items

describe("ZrExpressNewMapping", () => {
  describe("toCreateParcel", () => {
    it.each(createPairs)("%s", (_name, order, body) => {
      const built = Mapping.toCreateParcel(order, IDS)
      assert.deepStrictEqual(built, body)
      assert.isTrue(Schema.is(Wire.CreateParcel)(built))
    })
  })

  it("moves a parcel to a state by id, and addresses parcels by an escaped path segment", () => {
    assert.deepStrictEqual(Mapping.toUpdateState(parcel.id, IDS.stateId), {
      parcelId: parcel.id,
      newStateId: IDS.stateId
    })
    assert.strictEqual(Mapping.parcelPath("16-JUKYSI-ZR"), "/api/v1/parcels/16-JUKYSI-ZR")
    assert.strictEqual(Mapping.parcelPath("../../x?y#z"), "/api/v1/parcels/..%2F..%2Fx%3Fy%23z")
  })

  it("searches wilayas, the communes of one wilaya, and workflows, a page at a time", () => {
    assert.deepStrictEqual(Mapping.wilayasSearch(2), {
      pageNumber: 2,
      pageSize: 1000,
      advancedFilter: { logic: "and", filters: [{ field: "level", operator: "eq", value: "wilaya" }] }
    })
    assert.deepStrictEqual(Mapping.communesSearch(ALGER, 1), {
      pageNumber: 1,
      pageSize: 1000,
      advancedFilter: {
        logic: "and",
        filters: [
          { field: "level", operator: "eq", value: "commune" },
          { field: "parentId", operator: "eq", value: ALGER }
        ]
      }
    })
    assert.deepStrictEqual(Mapping.workflowsSearch(1), { pageNumber: 1, pageSize: 100 })
  })

  it("writes phones in the international form and makes version 4 UUIDs", () => {
    assert.strictEqual(Mapping.intlPhone("0555 12 34 56"), "+213555123456")
    assert.strictEqual(Mapping.intlPhone("+213 (0) 661 23 45 67"), "+213661234567")
    const uuid = Mapping.uuidFrom(Array.from({ length: 16 }, (_, i) => i * 17))
    assert.strictEqual(uuid, "00112233-4455-4677-8899-aabbccddeeff")
    assert.isTrue(Schema.is(Wire.Uuid)(Mapping.uuidFrom(Array.from({ length: 16 }, () => 255))))
  })

  it("refuses, before any call, a stop desk without a pickup-point UUID, and the express tier", () => {
    for (const stopDeskId of [undefined, "3104", "not-a-uuid"]) {
      const asked = order({ deliveryType: "stopdesk", ...(stopDeskId === undefined ? {} : { stopDeskId }) })
      assert.include(failure(Mapping.checkStopDesk(asked)).message, "order.stopDeskId", String(stopDeskId))
    }
    assert.isTrue(Result.isSuccess(Mapping.checkStopDesk(order({ deliveryType: "stopdesk", stopDeskId: HUB }))))
    assert.isTrue(Result.isSuccess(Mapping.checkStopDesk(order())))
    assert.strictEqual(
      failure(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "express" })))._tag,
      "Refused"
    )
  })

  describe("territories", () => {
    it("finds a wilaya by code, numbers or numeric strings, and refuses one the courier does not list", () => {
      assert.strictEqual(Result.getOrThrow(Mapping.wilayaOf(territories(wilayas), 16)).id, ALGER)
      assert.strictEqual(Result.getOrThrow(Mapping.wilayaOf(territories(wilayas), 31)).id, ORAN)
      const refused = failure(Mapping.wilayaOf(territories(wilayas), 9))
      assert.strictEqual(refused._tag, "Refused")
      assert.include(refused.message, "order.recipient.wilayaCode")
    })

    it.each([
      ["Bab Ezzouar", BAB_EZZOUAR],
      ["BAB-EZZOUAR", BAB_EZZOUAR],
      ["bab ezzouar ", BAB_EZZOUAR],
      ["باب الزوار", BAB_EZZOUAR],
      ["El-Marsa", EL_MARSA],
      ["Bir Mourad Rais", "22222222-2222-4222-8222-222222221606"],
      ["bir mourad raïs", "22222222-2222-4222-8222-222222221606"]
    ])("finds the commune %j of the wilaya", (name, id) => {
      assert.strictEqual(Result.getOrThrow(Mapping.communeOf(territories(algiersCommunes), name)).id, id)
    })

    it("refuses a commune the wilaya does not have, naming the field", () => {
      const refused = failure(Mapping.communeOf(territories(algiersCommunes), "Bir El Djir"))
      assert.strictEqual(refused._tag, "Refused")
      assert.include(refused.message, "order.recipient.communeName")
      assert.include(refused.message, "Bir El Djir")
    })

    it("reads hasNext, absent meaning the last page, and refuses undocumented pages", () => {
      const more = Result.getOrThrow(Mapping.fromTerritories(response(200, { items: wilayas, hasNext: true })))
      assert.isTrue(more.hasNext)
      assert.lengthOf(more.items, 2)
      assert.isFalse(Result.getOrThrow(Mapping.fromTerritories(response(200, { items: [] }))).hasNext)
      for (const body of [wilayas, { items: [{ id: "not-a-uuid", name: "x", level: "wilaya" }] }, { data: [] }]) {
        assert.strictEqual(failure(Mapping.fromTerritories(response(200, body)))._tag, "BadResponse")
      }
    })
  })

  describe("the ReadyToDispatch state", () => {
    const workflows = (states: ReadonlyArray<string>) =>
      Result.getOrThrow(
        Mapping.fromWorkflows(
          response(200, {
            items: [
              {
                id: "w1",
                name: "Parcels",
                states: states.map((name, i) => ({ id: `55555555-5555-4555-8555-55555555555${i}`, name }))
              }
            ]
          })
        )
      ).items

    it.each([
      ["ReadyToDispatch"],
      ["Ready to dispatch"],
      ["ready_to_dispatch"],
      ["pret_a_expedier"],
      ["Prêt à expédier"]
    ])("is found under %j", (name) => {
      assert.strictEqual(
        Mapping.readyStateOf(workflows(["OrderReceived", name, "Delivered"])),
        "55555555-5555-4555-8555-555555555551"
      )
    })

    it("is missing from a workflow without it", () => {
      assert.isUndefined(Mapping.readyStateOf(workflows(["OrderReceived", "Dispatched"])))
      assert.strictEqual(Mapping.noReadyState._tag, "Refused")
    })
  })

  describe("create answers", () => {
    it("reads the new parcel's id, the parcel, and the state change", () => {
      assert.deepStrictEqual(Mapping.fromCreated(response(201, { id: parcel.id })), Result.succeed(parcel.id))
      assert.strictEqual(Result.getOrThrow(Mapping.fromParcel(response(200, parcel))).trackingNumber, "16-JUKYSI-ZR")
      const changed = response(200, { parcelId: parcel.id, newStateId: IDS.stateId, newStateName: "ReadyToDispatch" })
      assert.isTrue(Result.isSuccess(Mapping.fromStateChanged(IDS.stateId.toUpperCase(), changed)))
    })

    it.each([
      ["a created answer without id", Mapping.fromCreated(response(201, {}))],
      ["a created id that is not a UUID", Mapping.fromCreated(response(201, { id: 42 }))],
      ["a parcel without tracking number", Mapping.fromParcel(response(200, { ...parcel, trackingNumber: "" }))],
      ["a parcel without state", Mapping.fromParcel(response(200, { ...parcel, state: null }))],
      [
        "a state change to another state",
        Mapping.fromStateChanged(IDS.stateId, response(200, { parcelId: parcel.id, newStateId: parcel.id }))
      ]
    ])("answers BadResponse for %s", (_name, result) => {
      assert.strictEqual(failure(result as Result.Result<unknown, CourierError.CourierErrorReason>)._tag, "BadResponse")
    })

    it("names the parcel and says not to create again when it cannot be made ready", () => {
      for (const reason of [
        new CourierError.Unreachable({ message: "the courier answered HTTP 500" }),
        new CourierError.CourierRateLimited({ retryAfterSeconds: 30 }),
        new CourierError.Refused({ message: "newStateId: State not found.", courierCode: "X1" })
      ]) {
        const refusal = Mapping.notReady("16-JUKYSI-ZR", reason)
        assert.strictEqual(refusal._tag, "Refused")
        assert.include(refusal.message, "16-JUKYSI-ZR")
        assert.include(refusal.message, "ReadyToDispatch")
        assert.include(refusal.message, "do not create it again")
      }
      assert.include(
        Mapping.notReady("p", new CourierError.CourierRateLimited({ retryAfterSeconds: 30 })).message,
        "retry after 30 s"
      )
    })
  })

  describe("tracking", () => {
    it("takes only exactly the asked parcel: the same path answers parcels by id, and 404 is unknown", () => {
      assert.strictEqual(
        Result.getOrThrow(Mapping.fromTrackedParcel("16-JUKYSI-ZR", response(200, parcel))).id,
        parcel.id
      )
      for (const [asked, wire] of [
        [parcel.id, response(200, parcel)],
        ["16-jukysi-zr", response(200, parcel)],
        ["16-JUKYSI-Z", response(200, parcel)],
        ["16-NOPE-ZR", response(404, { title: "Not Found", status: 404 })]
      ] as const) {
        const refused = failure(Mapping.fromTrackedParcel(asked, wire))
        assert.strictEqual(refused._tag, "Refused", asked)
        assert.include(refused.message, "trackingNumber")
      }
    })

    it.each(historyPairs)("%s", (_name, wire, events) => {
      const read = Result.getOrThrow(Mapping.fromParcel(response(200, parcel)))
      assert.deepStrictEqual(Mapping.fromStateHistory(read, wire), Result.succeed(events))
    })

    it.each([
      ["a row without a state", [{ stateDate: "2026-04-18T18:45:06Z" }]],
      ["a date in another format", [{ stateName: "Delivered", stateDate: "18/04/2026 19:45" }]],
      ["an object instead of the list", { items: [] }]
    ])("answers BadResponse for %s", (_name, body) => {
      const read = Result.getOrThrow(Mapping.fromParcel(response(200, parcel)))
      assert.strictEqual(failure(Mapping.fromStateHistory(read, response(200, body)))._tag, "BadResponse")
    })

    it.each([
      ["2026-04-18T18:45:06.1234567Z", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T19:45:06", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T21:45:06+03:00", "2026-04-18T19:45:06+01:00"],
      ["2026-12-31T23:59:59Z", "2027-01-01T00:59:59+01:00"]
    ])("writes %s as %s", (raw, expected) => {
      assert.strictEqual(Mapping.algiersTimestamp(raw), expected)
    })
  })

  describe("fromRates", () => {
    it.each(ratePairs)("%s", (_name, asked, destination, expected) => {
      const rates = Result.getOrThrow(Mapping.fromRates(query(asked), destination, response(200, rateTable)))
      assert.strictEqual(rates.deliveryType, asked.deliveryType)
      assert.strictEqual(rates.tier, "economic")
      assert.strictEqual(rates.deliveryFee, expected.deliveryFee)
      assert.strictEqual(rates.returnFee, expected.returnFee)
      assert.strictEqual(rates.codFee, 0)
      assert.strictEqual(rates.total, expected.deliveryFee)
      assert.deepStrictEqual(
        rates.options.map((option) => [option.deliveryType, option.deliveryFee, option.returnFee]),
        expected.options.map((option) => [...option])
      )
    })

    it("refuses a wilaya missing from the table and a pickup point where there is none", () => {
      const wire = response(200, rateTable)
      assert.include(
        failure(Mapping.fromRates(query({ toWilaya: 9, deliveryType: "home" }), {}, wire)).message,
        "wilaya 9"
      )
      assert.include(
        failure(Mapping.fromRates(query({ toWilaya: 1, deliveryType: "stopdesk" }), {}, wire)).message,
        "no stop-desk delivery"
      )
    })

    it.each([
      ["a bare list", rateTable.rates],
      [
        "a fractional price",
        { rates: [{ ...rateTable.rates[0], deliveryPrices: [{ deliveryType: "home", price: 4.5 }] }] }
      ],
      [
        "a negative price",
        { rates: [{ ...rateTable.rates[0], deliveryPrices: [{ deliveryType: "home", price: -1 }] }] }
      ]
    ])("answers BadResponse for %s", (_name, body) => {
      const result = Mapping.fromRates(query({ toWilaya: 16, deliveryType: "home" }), {}, response(200, body))
      assert.strictEqual(failure(result)._tag, "BadResponse")
    })
  })

  describe("desks and communes", () => {
    const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)
    const [algiers, oran] = territories(wilayas) as [Wire.Territory, Wire.Territory]

    it("asks for every hub a page at a time, and one workflow to check the credentials", () => {
      assert.deepStrictEqual(Mapping.hubsSearch(2), { pageNumber: 2, pageSize: Mapping.PAGE_SIZE })
      assert.deepStrictEqual(Mapping.credentialsProbe, { pageNumber: 1, pageSize: 1 })
    })

    it("keeps the pickup points whose address is in the wilaya's territory, blanks left out", () => {
      const hubs = Result.getOrThrow(Mapping.fromHubs(response(200, hubsPage)))
      assert.isFalse(hubs.hasNext)
      assert.deepStrictEqual(Mapping.desksOf(hubs.items, algiers, wilaya(16)), [
        {
          id: "33333333-3333-4333-8333-333333331601",
          name: "Point relais Bab Ezzouar",
          wilayaCode: wilaya(16),
          communeName: "Bab Ezzouar",
          address: "Cité 5 Juillet",
          phone: "+213550000001"
        },
        { id: "33333333-3333-4333-8333-333333331602", name: "Point relais El Marsa", wilayaCode: wilaya(16) }
      ])
      assert.deepStrictEqual(
        Mapping.desksOf(hubs.items, oran, wilaya(31)).map(({ id }) => id),
        ["33333333-3333-4333-8333-333333333101"]
      )
    })

    it.each([
      ["a list", hubsPage.items],
      ["a hub id that is no UUID", { items: [{ id: "hub-1", name: "Point relais" }] }],
      ["a hub without a name", { items: [{ id: "33333333-3333-4333-8333-333333331601", name: "" }] }]
    ])("answers BadResponse for %s of hubs", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHubs(response(200, body)))._tag, "BadResponse")
    })

    it("finds a wilaya territory by code, or none", () => {
      assert.strictEqual(Mapping.findWilaya(territories(wilayas), 31)?.id, ORAN)
      assert.isUndefined(Mapping.findWilaya(territories(wilayas), 9))
      assert.isUndefined(Mapping.findWilaya(territories(algiersCommunes), 1602), "a commune is no wilaya")
    })

    it("answers the communes with their territory ids; home unless false, a desk only when true", () => {
      const flagged = territories([
        { ...algiersCommunes[0], delivery: { hasHomeDelivery: true, hasPickupPoint: true } },
        { ...algiersCommunes[1], delivery: { hasHomeDelivery: false, hasPickupPoint: null } },
        algiersCommunes[2],
        wilayas[0]
      ])
      assert.deepStrictEqual(Mapping.communesOf(flagged), [
        { name: "Bab Ezzouar", id: BAB_EZZOUAR, home: true, stopdesk: true },
        { name: "El Marsa", id: EL_MARSA, home: false, stopdesk: false },
        { name: "Bir Mourad Raïs", id: "22222222-2222-4222-8222-222222221606", home: true, stopdesk: false }
      ])
    })
  })

  describe("cancel and the credentials check", () => {
    it("a 2xx deletes, with or without a body; a 409 is NotCancellable in the platform's words", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromDeleted(response(204, ""))))
      assert.isTrue(Result.isSuccess(Mapping.fromDeleted(response(200, { id: BAB_EZZOUAR }))))
      const conflict = failure(
        Mapping.fromDeleted(response(409, { title: "Conflict", status: 409, detail: "Le colis est déjà expédié." }))
      )
      assert.strictEqual(conflict._tag, "NotCancellable")
      assert.include(conflict.message, "Le colis est déjà expédié.")
      assert.strictEqual(
        failure(Mapping.fromDeleted(response(422, { title: "Unprocessable", detail: "Non." })))._tag,
        "Refused",
        "another refusal is no conflict with the parcel's state"
      )
      assert.strictEqual(failure(Mapping.fromDeleted(response(404, { title: "Not Found" })))._tag, "BadResponse")
    })

    it("the workflows page answered: the credentials work", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromCredentialsProbe(response(200, { items: [], hasNext: false }))))
      assert.strictEqual(failure(Mapping.fromCredentialsProbe(response(200, { data: [] })))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, wire, expected) => {
      if (wire.status !== 409) assertReason(failure(Mapping.fromDeleted(wire)), expected, name)
      assertReason(failure(Mapping.fromCredentialsProbe(wire)), expected, name)
      assertReason(failure(Mapping.fromHubs(wire)), expected, name)
    })
  })

  describe("errorOf", () => {
    it.each(errorPairs)("%s", (name, wire, expected) => {
      assertReason(Mapping.errorOf(wire), expected, name)
      assertReason(failure(Mapping.fromCreated(wire)), expected, name)
      assertReason(failure(Mapping.fromRates(query({ toWilaya: 16, deliveryType: "home" }), {}, wire)), expected, name)
    })
  })
})
