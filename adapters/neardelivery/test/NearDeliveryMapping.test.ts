import { assert, describe, it } from "@effect/vitest"
import { type CourierError, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/NearDeliveryMapping.ts"
import type * as Wire from "../src/NearDeliveryWire.ts"
import { type ExpectedReason, errorPairs, response } from "./fixtures/responses.ts"

/** A relay-point order; a member given as `undefined` is left out. */
const order = (input: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)(
    Object.fromEntries(
      Object.entries({
        recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
        deliveryType: "stopdesk",
        stopDeskId: "101",
        productList: "1x robe",
        codAmount: 4500,
        ...input
      }).filter(([, value]) => value !== undefined)
    )
  )

/** An origin wilaya, as the caller gives it (or none). */
const origin = (code: number | undefined) =>
  code === undefined ? undefined : Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const assertReason = (reason: CourierError.CourierErrorReason, expected: ExpectedReason, label: string) => {
  assert.strictEqual(reason._tag, expected._tag, `${label}: ${reason.message}`)
  if (expected.retryAfterSeconds !== undefined) {
    assert.strictEqual(
      reason._tag === "CourierRateLimited" ? reason.retryAfterSeconds : undefined,
      expected.retryAfterSeconds,
      label
    )
  }
  for (const part of expected.says ?? []) assert.include(reason.message, part, label)
}

const fees = (rows: ReadonlyArray<Record<string, unknown>>) => response(200, { status: true, data: rows })

const route = (from: string, to: string, b2b: unknown, back: unknown = "200.00") => ({
  id: 1,
  from_wilaya: from,
  to_wilaya: to,
  zone: "national",
  delivery_delay: "48-72h",
  b2b_fee: b2b,
  return_fee: back
})

describe("NearDeliveryMapping", () => {
  describe("toCreateParcels", () => {
    const pairs: ReadonlyArray<readonly [string, Shipment.ParcelOrder, Wire.Parcel]> = [
      [
        "a relay-point parcel with every field Near Delivery has",
        order({
          reference: "CMD-1042",
          recipient: {
            fullName: "Amina Benali",
            phone: "+213 555 12 34 56",
            phoneAlt: "0661 23 45 67",
            wilayaCode: 16,
            communeName: "Bab Ezzouar",
            addressLine: "Cité 2000 logements"
          },
          stopDeskId: " 101 ",
          productList: "2x robe kabyle",
          codAmount: 4500,
          weightKg: 1.5,
          notes: "Appeler avant 18h",
          hasOpenPackage: true,
          freeShipping: true,
          declaredValue: 5000
        }),
        {
          reference: "CMD-1042",
          recipient_name: "Amina Benali",
          recipient_phone: "0555123456",
          recipient_wilaya: "16",
          recipient_commune: "Bab Ezzouar",
          recipient_address: "Cité 2000 logements",
          payment_preference: 1,
          pickup_location_type: 1,
          buralist_id: 101,
          size: "S",
          items: [{ name: "2x robe kabyle", quantity: 1, unit_price: 4500 }]
        }
      ],
      [
        "nothing to collect, a one-digit wilaya, no address nor blank reference",
        order({
          reference: "  ",
          recipient: { fullName: "Yacine Haddad", phone: "0770112233", wilayaCode: 9, communeName: "Boufarik" },
          stopDeskId: "91",
          productList: "Coffret parfum x1",
          codAmount: 0
        }),
        {
          recipient_name: "Yacine Haddad",
          recipient_phone: "0770112233",
          recipient_wilaya: "09",
          recipient_commune: "Boufarik",
          payment_preference: 0,
          pickup_location_type: 1,
          buralist_id: 91,
          size: "S",
          items: [{ name: "Coffret parfum x1", quantity: 1, unit_price: 0 }]
        }
      ]
    ]
    it.each(pairs)("%s", (_name, input, parcel) => {
      assert.deepStrictEqual(Mapping.toCreateParcels(input), Result.succeed({ parcels: [parcel] }))
    })

    it("refuses a home delivery with the relay-point rule and what to send instead, never converting it", () => {
      const reason = failure(Mapping.toCreateParcels(order({ deliveryType: "home", stopDeskId: undefined })))
      assert.strictEqual(reason._tag, "Refused")
      assert.strictEqual(reason.message, `order.deliveryType: ${Mapping.RELAY_POINT_ONLY}`)
      for (const part of ["relay point", "buralist", 'deliveryType "stopdesk"', "stopDeskId"]) {
        assert.include(reason.message, part)
      }
      // A buralist given with a home delivery changes nothing: the caller must ask for the relay point.
      assert.strictEqual(
        failure(Mapping.toCreateParcels(order({ deliveryType: "home", stopDeskId: "101" }))).message,
        reason.message
      )
    })

    it.each([
      ["a stop desk without a buralist", { stopDeskId: undefined }, "order.stopDeskId: Near Delivery needs the relay"],
      ["a buralist id that is not a number", { stopDeskId: "16A" }, "order.stopDeskId: a Near Delivery buralist id"],
      ["a buralist id of zero", { stopDeskId: "0" }, "whole number"],
      ["a buralist id too long for one", { stopDeskId: "12345678901" }, "whole number"],
      ["the express tier", { tier: "express" }, "no express tier"],
      ["an exchange", { isExchange: true }, "order.isExchange"]
    ])("refuses %s", (_name, input, says) => {
      assertReason(failure(Mapping.toCreateParcels(order(input))), { _tag: "Refused", says: [says] }, "")
    })

    it("takes the economic tier, as the one speed there is", () => {
      assert.isTrue(Result.isSuccess(Mapping.toCreateParcels(order({ tier: "economic" }))))
    })
  })

  describe("checkRates and feesQuery", () => {
    it("refuses a quote for home delivery with the same rule, and the express tier", () => {
      assertReason(
        failure(Mapping.checkRates(query({ toWilaya: 31, deliveryType: "home" }))),
        { _tag: "Refused", says: [`query.deliveryType: ${Mapping.RELAY_POINT_ONLY}`] },
        ""
      )
      assertReason(
        failure(Mapping.checkRates(query({ toWilaya: 31, deliveryType: "stopdesk", tier: "express" }))),
        { _tag: "Refused", says: ["express"] },
        ""
      )
      assert.isTrue(Result.isSuccess(Mapping.checkRates(query({ toWilaya: 31, deliveryType: "stopdesk" }))))
    })

    it("asks for the destination's routes in one page", () => {
      assert.deepStrictEqual(Mapping.feesQuery(query({ toWilaya: 5, deliveryType: "stopdesk" })), {
        wilaya: "5",
        page: "1",
        size: "150"
      })
    })
  })

  describe("fromCreated", () => {
    it.each([
      [
        "the parcel with its id and status",
        {
          status: true,
          message: "1 parcel(s) created",
          data: [{ parcel_id: 5001, tracking_number: "NRD1", status: 0 }]
        },
        { trackingNumber: "NRD1", rawStatus: "0", courierReference: "5001" }
      ],
      [
        "no status: Pending (0); an id as text",
        { status: true, data: [{ parcel_id: "p-9", tracking_number: "NRD2", reference: "CMD-1" }] },
        { trackingNumber: "NRD2", rawStatus: "0", courierReference: "p-9" }
      ],
      [
        "a status given as a number, no id",
        { status: true, data: [{ tracking_number: "NRD3", status: 1, parcel_id: null }] },
        { trackingNumber: "NRD3", rawStatus: "1" }
      ]
    ])("reads %s", (_name, body, created) => {
      assert.deepStrictEqual(Mapping.fromCreated(response(201, body)), Result.succeed(created))
    })

    it.each([
      ["no parcel", { status: true, data: [] }],
      ["no tracking number", { status: true, data: [{ parcel_id: 1 }] }],
      ["an empty tracking number", { status: true, data: [{ tracking_number: "" }] }],
      ["a parcel outside a list", { status: true, data: { tracking_number: "NRD1" } }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(201, body)))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCreated(answer)), expected, name)
    })
  })

  describe("fromTracked", () => {
    const parcel = (data: Record<string, unknown>) =>
      response(200, { status: true, message: "Parcel found", data: { tracking_number: "NRD1", ...data } })

    it("reads the status history, UTC times in Algiers, numbers as text and names as sent", () => {
      assert.deepStrictEqual(
        Mapping.fromTracked(
          "NRD1",
          parcel({
            status: 7,
            created_at: "2026-04-18T18:45:06.000000Z",
            updated_at: "2026-04-21T13:02:33Z",
            status_history: [
              { status: 0, created_at: "2026-04-18T18:45:06.000000Z" },
              { status: 2, created_at: "2026-04-19T09:12:40+01:00" },
              { status: 6, created_at: "2026-04-20 10:00:00" },
              { status: "DELIVERED", created_at: "2026-04-21T13:02:33Z" }
            ]
          })
        ),
        Result.succeed([
          { rawStatus: "0", timestamp: "2026-04-18T19:45:06+01:00" },
          { rawStatus: "2", timestamp: "2026-04-19T09:12:40+01:00" },
          { rawStatus: "6", timestamp: "2026-04-20T10:00:00+01:00" },
          { rawStatus: "DELIVERED", timestamp: "2026-04-21T14:02:33+01:00" }
        ])
      )
    })

    it.each([
      ["no history", { status: 5, created_at: "2026-04-18T10:00:00Z", updated_at: "2026-04-19T10:00:00Z" }],
      ["an empty history", { status: 5, updated_at: "2026-04-19T10:00:00Z", status_history: [] }],
      ["a null history", { status: "5", updated_at: "2026-04-19T10:00:00Z", status_history: null }]
    ])("reads the current status at its last change when there is %s", (_name, data) => {
      assert.deepStrictEqual(
        Mapping.fromTracked("NRD1", parcel(data)),
        Result.succeed([{ rawStatus: "5", timestamp: "2026-04-19T11:00:00+01:00" }])
      )
    })

    it("takes the creation time when the parcel never changed", () => {
      assert.deepStrictEqual(
        Mapping.fromTracked("NRD1", parcel({ status: 0, created_at: "2026-04-18 19:45:06", updated_at: null })),
        Result.succeed([{ rawStatus: "0", timestamp: "2026-04-18T19:45:06+01:00" }])
      )
    })

    it.each([
      ["another parcel", response(200, { status: true, data: { tracking_number: "NRD10", status: 7 } }), "another"],
      ["no time at all", parcel({ status: 7 }), "time"],
      ["a time in another format", parcel({ status: 7, updated_at: "21/04/2026 14:02" }), "time"],
      ["an impossible day", parcel({ status: 7, updated_at: "2026-02-30T10:00:00Z" }), "time"],
      ["an empty status", parcel({ status: "", updated_at: "2026-02-03T10:00:00Z" }), "does not document"],
      ["a history entry without a time", parcel({ status: 7, status_history: [{ status: 7 }] }), "does not document"],
      ["no parcel", response(200, { status: true, data: null }), "does not document"]
    ])("answers BadResponse for %s", (_name, answer, says) => {
      assertReason(failure(Mapping.fromTracked("NRD1", answer)), { _tag: "BadResponse", says: [says] }, "")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromTracked("NRD1", answer)), expected, name)
    })
  })

  describe("fromFees", () => {
    const grid = fees([
      route("16", "31", "450.00"),
      route("25", "31", "500.00", "250.00"),
      route("31", "31", "350.00"),
      route("16", "05", 600, 200)
    ])

    it.each([
      ["from Algiers to Oran", 16, 31, 450, 200],
      ["within Oran", 31, 31, 350, 200],
      ["from Constantine, its own return fee", 25, 31, 500, 250],
      ["to Batna without an origin: its one route", undefined, 5, 600, 200]
    ] as const)("prices %s", (_name, from, to, deliveryFee, returnFee) => {
      const rates = Result.getOrThrow(
        Mapping.fromFees(query({ toWilaya: to, deliveryType: "stopdesk" }), origin(from), grid)
      )
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        [rates.deliveryType, rates.tier, rates.deliveryFee, rates.returnFee, rates.codFee, rates.total, rates.currency],
        ["stopdesk", "economic", deliveryFee, returnFee, 0, deliveryFee, "DZD"]
      )
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        rates.options.map((option) => [option.deliveryType, option.tier, option.deliveryFee, option.returnFee]),
        [["stopdesk", "economic", deliveryFee, returnFee]]
      )
    })

    it("takes a missing or null return fee as 0", () => {
      for (const back of [null, undefined]) {
        const rows = fees([
          { from_wilaya: 16, to_wilaya: 31, b2b_fee: 450, ...(back === null ? { return_fee: null } : {}) }
        ])
        const rates = Result.getOrThrow(
          Mapping.fromFees(query({ toWilaya: 31, deliveryType: "stopdesk" }), origin(16), rows)
        )
        assert.strictEqual(rates.returnFee, 0)
      }
    })

    it.each([
      ["a destination not in the fee list", 16, 48, "does not deliver to wilaya 48"],
      ["no origin where several ship from", undefined, 31, "give options.fromWilaya (one of 16, 25, 31)"],
      ["an origin with no route there", 19, 31, "no route from wilaya 19 to wilaya 31 (it ships there from 16, 25, 31)"]
    ] as const)("refuses %s", (_name, from, to, says) => {
      assertReason(
        failure(Mapping.fromFees(query({ toWilaya: to, deliveryType: "stopdesk" }), origin(from), grid)),
        { _tag: "Refused", says: [says] },
        ""
      )
    })

    it.each([
      ["a fractional fee", [route("16", "31", "450.50")]],
      ["a negative fee", [route("16", "31", -1)]],
      ["a wilaya that is not a code", [route("16", "Oran", 450)]],
      ["rows keyed by wilaya", { "31": { b2b_fee: 450 } }]
    ])("answers BadResponse for %s", (_name, data) => {
      assert.strictEqual(
        failure(
          Mapping.fromFees(
            query({ toWilaya: 31, deliveryType: "stopdesk" }),
            origin(16),
            response(200, { status: true, data })
          )
        )._tag,
        "BadResponse"
      )
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(
        failure(Mapping.fromFees(query({ toWilaya: 31, deliveryType: "stopdesk" }), origin(16), answer)),
        expected,
        name
      )
    })
  })

  describe("reference lists", () => {
    const algiers = Schema.decodeUnknownSync(WilayaCode.WilayaCode)(16)
    const buralist = (id: unknown, wilaya: unknown, extra: Record<string, unknown> = {}) => ({
      id,
      username: `buraliste-${String(id)}`,
      phone_number: "0555000101",
      center_address: "Bureau de tabac, Bab Ezzouar",
      wilaya_code: wilaya,
      commune_code: "1602",
      center_id: 16,
      ...extra
    })
    const network = response(200, {
      status: true,
      data: [buralist(101, "16"), buralist(311, "31"), buralist("102", 16, { commune_code: 1603 })]
    })
    const wilayas = response(200, {
      status: true,
      data: [
        {
          wilaya_code: "16",
          wilaya_name: "Alger",
          communes: [
            { code: "1601", name: "Alger Centre" },
            { code: "1602", name: " Bab  Ezzouar " },
            { code: 1603, name: "Hydra" }
          ]
        },
        { wilaya_code: "31", wilaya_name: "Oran", communes: [{ code: "3101", name: "Oran" }] }
      ]
    })

    it("buralistsIn keeps the wilaya's relay points, whether its code is text or a number", () => {
      const found = Result.getOrThrow(Mapping.buralistsIn(algiers, network))
      assert.deepStrictEqual(
        found.map((entry) => entry.id),
        [101, "102"]
      )
      assert.deepStrictEqual(
        Result.getOrThrow(Mapping.buralistsIn(algiers, response(200, { status: true, data: [] }))),
        []
      )
    })

    it("fromCommunes lists the wilaya's communes in Near Delivery's spelling with their codes, all by relay point", () => {
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromCommunes(algiers, wilayas)), [
        { name: "Alger Centre", id: "1601", home: false, stopdesk: true },
        { name: "Bab Ezzouar", id: "1602", home: false, stopdesk: true },
        { name: "Hydra", id: "1603", home: false, stopdesk: true }
      ])
      const unlisted = Schema.decodeUnknownSync(WilayaCode.WilayaCode)(33)
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromCommunes(unlisted, wilayas)), [])
    })

    it("toStopDesks names each buralist, its commune from the codes, its address and phone", () => {
      const buralists = Result.getOrThrow(Mapping.buralistsIn(algiers, network))
      const communes = Result.getOrThrow(Mapping.fromCommunes(algiers, wilayas))
      assert.deepStrictEqual(Mapping.toStopDesks(algiers, buralists, communes), [
        {
          id: "101",
          name: "buraliste-101",
          wilayaCode: algiers,
          communeName: "Bab Ezzouar",
          address: "Bureau de tabac, Bab Ezzouar",
          phone: "0555000101"
        },
        {
          id: "102",
          name: "buraliste-102",
          wilayaCode: algiers,
          communeName: "Hydra",
          address: "Bureau de tabac, Bab Ezzouar",
          phone: "0555000101"
        }
      ])
    })

    it("toStopDesks prefers a name, else says 'Buralist <id>'; leaves out what is blank or unknown", () => {
      const [named, bare] = Result.getOrThrow(
        Mapping.buralistsIn(
          algiers,
          response(200, {
            status: true,
            data: [
              buralist(7, "16", { name: "Tabac de la Gare" }),
              { id: 8, wilaya_code: "16", username: " ", phone_number: null, center_address: "", commune_code: "9999" }
            ]
          })
        )
      )
      assert.deepStrictEqual(Mapping.toStopDesks(algiers, [named!, bare!], []), [
        {
          id: "7",
          name: "Tabac de la Gare",
          wilayaCode: algiers,
          address: "Bureau de tabac, Bab Ezzouar",
          phone: "0555000101"
        },
        { id: "8", name: "Buralist 8", wilayaCode: algiers }
      ])
    })

    it("fromCenters: a list answered means the credentials work", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromCenters(response(200, { status: true, data: [{ id: 16 }] }))))
      assert.isTrue(Result.isSuccess(Mapping.fromCenters(response(200, { status: true, data: [] }))))
    })

    it.each([
      [
        "a buralist without an id",
        Mapping.buralistsIn(algiers, response(200, { status: true, data: [{ wilaya_code: "16" }] }))
      ],
      [
        "a buralist's wilaya that is not a code",
        Mapping.buralistsIn(algiers, response(200, { status: true, data: [buralist(1, "Alger")] }))
      ],
      ["buralists keyed by id", Mapping.buralistsIn(algiers, response(200, { status: true, data: { "101": {} } }))],
      [
        "a commune without a name",
        Mapping.fromCommunes(
          algiers,
          response(200, { status: true, data: [{ wilaya_code: "16", communes: [{ code: "1" }] }] })
        )
      ],
      [
        "a wilaya without its communes",
        Mapping.fromCommunes(algiers, response(200, { status: true, data: [{ wilaya_code: "16" }] }))
      ],
      ["centres that are not a list", Mapping.fromCenters(response(200, { status: true, data: {} }))]
    ] as const)("answers BadResponse for %s", (_name, result) => {
      assert.strictEqual(failure(result as Result.Result<unknown, CourierError.CourierErrorReason>)._tag, "BadResponse")
    })

    it.each(errorPairs)("buralistsIn: %s", (name, answer, expected) => {
      assertReason(failure(Mapping.buralistsIn(algiers, answer)), expected, name)
    })
    it.each(errorPairs)("fromCommunes: %s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCommunes(algiers, answer)), expected, name)
    })
    it.each(errorPairs)("fromCenters: %s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCenters(answer)), expected, name)
    })
  })
})
