import { assert, describe, it } from "@effect/vitest"
import { CourierError, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/NoestMapping.ts"
import { createPairs } from "./fixtures/orders.ts"
import {
  communesBody,
  desksBody,
  type ExpectedReason,
  errorPairs,
  feesBody,
  response,
  trackingPairs
} from "./fixtures/responses.ts"

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const wilaya = (code: number) => Schema.decodeUnknownSync(WilayaCode.WilayaCode)(code)

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

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

describe("NoestMapping", () => {
  describe("toCreateOrder", () => {
    it.each(createPairs)("%s", (_name, order, body) => {
      assert.deepStrictEqual(Mapping.toCreateOrder(order), body)
    })
  })

  it("asks for validation and tracking of exactly one parcel", () => {
    assert.deepStrictEqual(Mapping.validationBody("NOE1"), { tracking: "NOE1" })
    assert.deepStrictEqual(Mapping.trackingBody("NOE1"), { trackings: ["NOE1"] })
  })

  describe("fromCreated", () => {
    it("reads the tracking number", () => {
      assert.deepStrictEqual(
        Mapping.fromCreated(response(200, { success: true, tracking: "NOE000000001FK", reference: "CMD-1" })),
        Result.succeed("NOE000000001FK")
      )
    })

    it.each([
      ["success without tracking", { success: true }],
      ["an empty tracking", { success: true, tracking: "" }],
      ["a tracking that is not text", { success: true, tracking: 42 }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(200, body)))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCreated(answer)), expected, name)
    })
  })

  describe("fromValidated", () => {
    it("accepts the documented answer and refuses success:false, even on HTTP 200", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromValidated(response(200, { success: true }))))
      assertReason(
        failure(Mapping.fromValidated(response(200, { success: false, message: "La commande est déjà validée." }))),
        { _tag: "Refused", says: ["déjà validée"] },
        ""
      )
    })

    it("names the parcel it created when validation fails, never as a retryable error", () => {
      for (const reason of [
        new CourierError.Refused({ message: "Solde insuffisant" }),
        new CourierError.CourierRateLimited({ retryAfterSeconds: 30 }),
        new CourierError.Unreachable({ message: "the courier answered HTTP 502" })
      ]) {
        const refused = Mapping.notValidated("NOE000000009FK", reason)
        assert.strictEqual(refused._tag, "Refused")
        assert.include(refused.message, "NOE000000009FK")
        assert.include(refused.message, "do not create it again")
      }
    })
  })

  describe("fromTracking", () => {
    it.each(trackingPairs)("%s", (_name, tracking, answer, events) => {
      assert.deepStrictEqual(Mapping.fromTracking(tracking, answer), Result.succeed(events))
    })

    it.each([
      ["an empty answer (PHP's [])", response(200, [])],
      ["an answer for other parcels only", trackingPairs[0]![2]],
      ["an answer keyed by a longer number", response(200, { NOE000000007FKX: { activity: [] } })]
    ])("refuses %s: the asked parcel is unknown", (_name, answer) => {
      assertReason(
        failure(Mapping.fromTracking("NOE000000007FK", answer)),
        { _tag: "Refused", says: ["trackingNumber"] },
        ""
      )
    })

    it.each([
      ["no activity list", { NOE1: { OrderInfo: {} } }],
      ["a date in another format", { NOE1: { activity: [{ event_key: "upload", date: "18/04/2026 19:45" }] } }],
      ["an impossible day", { NOE1: { activity: [{ event_key: "upload", date: "2026-02-30 10:00:00" }] } }],
      ["an empty key", { NOE1: { activity: [{ event_key: "", date: "2026-02-03 10:00:00" }] } }],
      ["not an object", "NOE1"]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromTracking("NOE1", response(200, body)))._tag, "BadResponse")
    })
  })

  describe("timestampOf", () => {
    it.each([
      ["2026-04-18 19:45:06", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18 19:45", "2026-04-18T19:45:00+01:00"],
      ["2026-04-18T18:45:06.000000Z", "2026-04-18T19:45:06+01:00"],
      ["2026-12-31T23:30:00Z", "2027-01-01T00:30:00+01:00"],
      ["2026-04-18T19:45:06+0100", "2026-04-18T19:45:06+01:00"]
    ])("%s → %s", (text, iso) => {
      assert.strictEqual(Mapping.timestampOf(text), iso)
    })

    it.each(["2026-02-29 10:00:00", "2026-04-18", "19:45:06", "2026-04-18 24:00:00", "now"])("refuses %s", (text) => {
      assert.isUndefined(Mapping.timestampOf(text))
    })
  })

  describe("fromFees", () => {
    it.each([
      [
        "home to Algiers, amounts as strings",
        { toWilaya: 16, deliveryType: "home" },
        450,
        200,
        [
          ["home", 450, 200],
          ["stopdesk", 200, 150]
        ]
      ],
      [
        "a stop desk in Algiers",
        { toWilaya: 16, deliveryType: "stopdesk" },
        200,
        150,
        [
          ["home", 450, 200],
          ["stopdesk", 200, 150]
        ]
      ],
      [
        "a stop desk in Oran: one return fee for both",
        { toWilaya: 31, deliveryType: "stopdesk" },
        450,
        250,
        [
          ["home", 700, 250],
          ["stopdesk", 450, 250]
        ]
      ],
      ["home where there is no desk (null)", { toWilaya: 11, deliveryType: "home" }, 1100, 0, [["home", 1100, 0]]],
      ["home where there is no desk (absent)", { toWilaya: 37, deliveryType: "home" }, 1300, 0, [["home", 1300, 0]]]
    ] as const)("%s", (_name, asked, deliveryFee, returnFee, options) => {
      const rates = Result.getOrThrow(Mapping.fromFees(query(asked), response(200, feesBody)))
      assert.strictEqual(rates.deliveryType, asked.deliveryType)
      assert.strictEqual(rates.tier, "economic")
      assert.strictEqual<number>(rates.deliveryFee, deliveryFee)
      assert.strictEqual<number>(rates.returnFee, returnFee)
      assert.strictEqual(rates.codFee, 0)
      assert.strictEqual<number>(rates.total, deliveryFee)
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        rates.options.map((option) => [option.deliveryType, option.deliveryFee, option.returnFee]),
        options
      )
    })

    it.each([
      ["a wilaya NOEST does not serve", { toWilaya: 50, deliveryType: "home" }, "wilaya 50"],
      ["a stop desk where there is none", { toWilaya: 11, deliveryType: "stopdesk" }, "no stop-desk delivery"]
    ])("refuses %s", (_name, asked, says) => {
      assertReason(
        failure(Mapping.fromFees(query(asked), response(200, feesBody))),
        { _tag: "Refused", says: [says] },
        ""
      )
    })

    it.each([
      ["no tarifs", { delivery: {} }],
      ["a fractional fee", { tarifs: { delivery: { "16": { tarif: "450.5" } } } }],
      ["a negative fee", { tarifs: { delivery: { "16": { tarif: -1 } } } }],
      ["a list of rows", { tarifs: { delivery: [{ wilaya_id: 16, tarif: 450 }] } }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(
        failure(Mapping.fromFees(query({ toWilaya: 16, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })

    it("refuses the express tier: NOEST has one", () => {
      assert.isTrue(Result.isSuccess(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home" }))))
      assertReason(
        failure(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "express" }))),
        { _tag: "Refused", says: ["express"] },
        ""
      )
    })
  })

  describe("fromTrackingBatch", () => {
    const [[, first, firstAnswer, firstEvents], [, second, secondAnswer, secondEvents]] = trackingPairs as [
      (typeof trackingPairs)[number],
      (typeof trackingPairs)[number]
    ]
    const both = response(200, { ...JSON.parse(firstAnswer.text), ...JSON.parse(secondAnswer.text) })

    it("asks for each number once", () => {
      assert.deepStrictEqual(Mapping.batchTrackingBody(["A", "B", "A"]), { trackings: ["A", "B"] })
    })

    it("reads each asked parcel as track does; unknown numbers and numbers not asked are left out", () => {
      const batch = Result.getOrThrow(Mapping.fromTrackingBatch([second, "NOE999999999FK", first], both))
      assert.deepStrictEqual([...batch.keys()], [second, first])
      assert.deepStrictEqual(batch.get(first), firstEvents)
      assert.deepStrictEqual(batch.get(second), secondEvents)
      assert.deepStrictEqual(
        [...Result.getOrThrow(Mapping.fromTrackingBatch([first], both)).keys()],
        [first],
        "a neighbour NOEST also answered is not read"
      )
      assert.strictEqual(Result.getOrThrow(Mapping.fromTrackingBatch([first], response(200, []))).size, 0)
    })

    it("refuses success:false, and an asked parcel's undocumented entry is a BadResponse", () => {
      assertReason(
        failure(Mapping.fromTrackingBatch([first], response(200, { success: false, message: "Compte suspendu" }))),
        { _tag: "Refused", says: ["Compte suspendu"] },
        ""
      )
      assert.strictEqual(
        failure(Mapping.fromTrackingBatch(["NOE1"], response(200, { NOE1: { OrderInfo: {} } })))._tag,
        "BadResponse"
      )
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromTrackingBatch(["NOE1"], answer)), expected, name)
    })
  })

  describe("desks", () => {
    it.each([
      ["16A", 16],
      ["5B", 5],
      ["05A", 5],
      [" 31C", 31],
      ["HUB", undefined],
      ["160A", undefined]
    ] as const)("the station code %s is in wilaya %s", (code, expected) => {
      assert.strictEqual(Mapping.wilayaOfDesk(code), expected)
    })

    it("lists the wilaya's desks by code, the first phone given, blanks left out", () => {
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromDesks(wilaya(16), response(200, desksBody))), [
        {
          id: "16A",
          name: "Agence Bab Ezzouar",
          wilayaCode: wilaya(16),
          communeName: "Bab Ezzouar",
          address: "Cité 5 Juillet, Bab Ezzouar",
          phone: "0550 12 34 56"
        },
        { id: "16B", name: "Agence Chéraga", wilayaCode: wilaya(16) }
      ])
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromDesks(wilaya(5), response(200, desksBody))), [
        { id: "05A", name: "Agence Batna", wilayaCode: wilaya(5), communeName: "Batna" }
      ])
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromDesks(wilaya(16), response(200, []))), [])
    })

    it.each([
      ["a list of desks", [{ code: "16A", name: "Agence" }]],
      ["a desk without a code", { "16A": { name: "Agence" } }],
      ["a desk without a name", { "16A": { code: "16A", name: "" } }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromDesks(wilaya(16), response(200, body)))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromDesks(wilaya(16), answer)), expected, name)
    })
  })

  describe("fromCommunes", () => {
    it("keeps NOEST's spelling; home unless inactive; a desk where a desk's commune folds to the name", () => {
      const desks = Result.getOrThrow(Mapping.fromDesks(wilaya(16), response(200, desksBody)))
      assert.deepStrictEqual(Result.getOrThrow(Mapping.fromCommunes(response(200, communesBody), desks)), [
        { name: "Bab Ezzouar", home: true, stopdesk: true },
        { name: "Bab-Ezzouar annexe", home: false, stopdesk: false },
        { name: "Chéraga", home: true, stopdesk: false },
        { name: "Ouled Chebel", home: false, stopdesk: false },
        { name: "Rouiba", home: true, stopdesk: false }
      ])
      const accented = [{ id: "19A", name: "Agence Sétif", wilayaCode: wilaya(19), communeName: "Sétif" }]
      assert.deepStrictEqual(
        Result.getOrThrow(Mapping.fromCommunes(response(200, [{ nom: "SETIF", is_active: 1 }]), accented)),
        [{ name: "SETIF", home: true, stopdesk: true }]
      )
    })

    it.each([
      ["an object", { "16": communesBody }],
      ["a commune without a name", [{ wilaya_id: 16 }]],
      ["an odd flag", [{ nom: "Rouiba", is_active: "yes" }]]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCommunes(response(200, body), []))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCommunes(answer, [])), expected, name)
    })
  })

  describe("fromWilayas", () => {
    it("the list answered: the credentials work", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromWilayas(response(200, [{ code: 1, nom: "Adrar", is_active: 1 }]))))
      assert.strictEqual(failure(Mapping.fromWilayas(response(200, { success: true })))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromWilayas(answer)), expected, name)
    })
  })

  describe("fromLabel", () => {
    it("takes a PDF answer as the label; a redirect elsewhere is not followed nor quoted", () => {
      const label = Mapping.fromLabel(response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" }))
      assert.isTrue(Result.isSuccess(label) && label.success.contentType === "application/pdf")
      const redirect = failure(
        Mapping.fromLabel(
          response(302, "", { location: "https://noest-labels.s3.amazonaws.com/l.pdf?X-Amz-Signature=abc" })
        )
      )
      assert.strictEqual(redirect._tag, "BadResponse")
      assert.notInclude(redirect.message, "amazonaws")
      for (const [answer, reason] of [
        [response(200, { success: true }), "BadResponse"],
        [response(200, { success: false, message: "Commande non validée" }), "Refused"],
        [response(422, { message: "x", errors: { tracking: ["La commande n'est pas encore validée."] } }), "Refused"],
        [response(500, "oops", { "content-type": "text/plain" }), "Unreachable"]
      ] as const) {
        assert.strictEqual(failure(Mapping.fromLabel(answer))._tag, reason, answer.text)
      }
    })
  })
})
