import { assert, describe, it } from "@effect/vitest"
import { type CourierError, Shipment, WilayaNames } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/YalidineMapping.ts"
import { createPairs } from "./fixtures/orders.ts"
import {
  createdAnswer,
  createdAnswerTokenised,
  type ExpectedReason,
  errorPairs,
  feesAnswer,
  historyPairs,
  parcelAnswer,
  response
} from "./fixtures/responses.ts"

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)
const order = (input: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "1x robe",
    codAmount: 4500,
    ...input
  })

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

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

const success = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  if (Result.isFailure(result)) assert.fail(`expected a success, got ${result.failure._tag}: ${result.failure.message}`)
  return (result as Result.Success<A, CourierError.CourierErrorReason>).success
}

describe("YalidineMapping", () => {
  describe("toParcel", () => {
    it.each(createPairs)("%s", (_name, input, origin, parcel) => {
      assert.deepStrictEqual(success(Mapping.toParcel(input, origin, Mapping.orderIdOf(input, 0))), parcel)
    })

    it("spells the wilayas as the docs' examples do, and all 58 as the fake network lists them", () => {
      const name = (code: number) => Mapping.wilayaName(WilayaCode.WilayaCode.make(code))
      for (const [code, spelled] of [
        [1, "Adrar"],
        [4, "Oum El Bouaghi"],
        [5, "Batna"],
        [6, "Béjaïa"],
        [12, "Tébessa"],
        [16, "Alger"],
        [19, "Sétif"]
      ] as const) {
        assert.strictEqual(name(code), spelled)
      }
      assert.lengthOf(WilayaNames.FRENCH, 58)
      for (let code = 1; code <= 58; code++) assert.strictEqual(name(code), WilayaNames.FRENCH[code - 1])
    })

    it.each([
      ["no stop desk id", order({ deliveryType: "stopdesk" })],
      ["a stop desk id that is not a center id", order({ deliveryType: "stopdesk", stopDeskId: "16A" })]
    ])("refuses a stop desk with %s before any call", (_name, input) => {
      const reason = failure(Mapping.toParcel(input, WilayaCode.WilayaCode.make(16), "o1"))
      assertReason(reason, { _tag: "Refused", says: ["order.stopDeskId"] }, "stop desk")
    })

    it("ignores a stop desk id on a home delivery", () => {
      const parcel = success(Mapping.toParcel(order({ stopDeskId: "163001" }), WilayaCode.WilayaCode.make(16), "o1"))
      assert.isFalse(parcel.is_stopdesk)
      assert.notProperty(parcel, "stopdesk_id")
    })

    it("names the order after the caller's reference, else after the clock", () => {
      assert.strictEqual(Mapping.orderIdOf(order({ reference: " R-1 " }), 1_700_000_000_000), "R-1")
      assert.strictEqual(Mapping.orderIdOf(order(), 1_700_000_000_000), "tawsil-loyw3v28")
      assert.strictEqual(Mapping.orderIdOf(order({ reference: "  " }), 35), "tawsil-z")
    })
  })

  describe("originOf", () => {
    it("takes the first wilaya given and refuses none", () => {
      const [oran, alger] = [WilayaCode.WilayaCode.make(31), WilayaCode.WilayaCode.make(16)]
      assert.strictEqual(success(Mapping.originOf(undefined, oran, alger)), oran)
      assertReason(
        failure(Mapping.originOf(undefined, undefined)),
        { _tag: "Refused", says: ["options.fromWilaya"] },
        ""
      )
    })
  })

  describe("checkTracking", () => {
    it.each(["yal-123456", "yal-12345A", "GPX-XYZ", "a"])("accepts %s", (tracking) => {
      assert.strictEqual(success(Mapping.checkTracking(tracking)), tracking)
    })

    it.each(["", "..", "yal/1", "yal 1", "yal-1,yal-2", "yal-1?x=1", "%2e%2e", "-yal", "ÿal-1", "y".repeat(65)])(
      "refuses %j: it could not be one path segment of ours",
      (tracking) => {
        assertReason(failure(Mapping.checkTracking(tracking)), { _tag: "Refused", says: ["trackingNumber"] }, tracking)
      }
    )

    it("builds the paths with the tracking number as one segment", () => {
      assert.strictEqual(Mapping.historiesPath("yal-1"), "/v1/histories/yal-1")
      assert.strictEqual(Mapping.parcelPath("yal-1"), "/v1/parcels/yal-1")
    })
  })

  describe("fromCreated", () => {
    it("reads this parcel's tracking number and its label link, when it embeds no secret", () => {
      assert.deepStrictEqual(success(Mapping.fromCreated("MyFirstOrder", response(200, createdAnswer))), {
        tracking: "yal-12345A",
        labelUrl: "https://api.yalidine.app/labels/yal-12345A"
      })
    })

    it("passes on the documented label link with the label's own token: the link is the label", () => {
      // The docs' create answer (`label: "https://yalidine.app/app/bordereau.php?tracking=…&token=…"`): "publicly
      // accessible. Anyone with this link can see the label".
      const created = success(Mapping.fromCreated("MyFirstOrder", response(200, createdAnswerTokenised)))
      assert.strictEqual(created.tracking, "yal-12345A")
      assert.strictEqual(
        created.labelUrl,
        "https://yalidine.app/app/bordereau.php?tracking=yal-12345A&token=eVIzd0lCdFRGdXlmbkcwK1JBOWlHUT09"
      )
    })

    it("reads a parcel refused inside an HTTP 200 as a refusal with the courier's words, never a success", () => {
      const reason = failure(Mapping.fromCreated("MySecondOrder", response(200, createdAnswer)))
      assertReason(reason, { _tag: "Refused", says: ["do_insurance parameter must be of type boolean"] }, "refused")
    })

    it.each([
      ["no result for the parcel sent", "Other", createdAnswer],
      ["success without tracking", "o1", { o1: { success: true, tracking: null } }],
      ["success with a blank tracking", "o1", { o1: { success: true, tracking: " " } }],
      ["a list instead of the object", "o1", [{ success: true, tracking: "yal-1" }]],
      ["a numeric success", "o1", { o1: { success: 1, tracking: "yal-1" } }]
    ])("answers BadResponse for %s", (_name, orderId, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(orderId, response(200, body)))._tag, "BadResponse")
    })

    it("does not mistake an inherited property for a result", () => {
      assert.strictEqual(failure(Mapping.fromCreated("constructor", response(200, {})))._tag, "BadResponse")
    })
  })

  describe("publicLabelUrl", () => {
    it.each<readonly [string, string | null, string | undefined]>([
      ["the 2026 form", "https://api.guepex.app/labels/gpx-1", "https://api.guepex.app/labels/gpx-1"],
      [
        "the docs' tokenised link",
        "https://yalidine.app/app/bordereau.php?tracking=yal-1&token=abc",
        "https://yalidine.app/app/bordereau.php?tracking=yal-1&token=abc"
      ],
      ["plain http", "http://api.yalidine.app/labels/yal-1", undefined],
      ["user info", "https://user:pass@api.yalidine.app/labels/yal-1", undefined],
      ["a credential the core blanked out", "https://api.yalidine.app/labels/<redacted>/yal-1", undefined],
      ["no link", null, undefined],
      ["not a URL", "labels/yal-1", undefined]
    ])("%s", (_name, link, expected) => {
      assert.strictEqual(Mapping.publicLabelUrl(link), expected)
    })
  })

  describe("fromHistories", () => {
    const rowsOf = (answer: ReturnType<typeof response>) => success(Mapping.fromHistoryPage(answer)).rows

    it.each(historyPairs)("%s", (_name, answer, events) => {
      assert.deepStrictEqual(Mapping.fromHistories("yal-337AAS", rowsOf(answer)), events)
    })

    it("says there is no row of this parcel (for the parcel read to decide) rather than answering nothing", () => {
      assert.isUndefined(Mapping.fromHistories("yal-337AAS", rowsOf(response(200, { data: [] }))))
      const others = response(200, {
        data: [{ date_status: "2022-12-17 01:48:09", tracking: "yal-337AASX", status: "Livré" }]
      })
      assert.isUndefined(Mapping.fromHistories("yal-337AAS", rowsOf(others)))
    })

    it.each([
      ["a row without a time", { data: [{ tracking: "yal-337AAS", status: "Livré" }] }],
      [
        "a time in another format",
        { data: [{ date_status: "17/12/2022 01:48", tracking: "yal-337AAS", status: "Livré" }] }
      ],
      ["an empty status", { data: [{ date_status: "2022-12-17 01:48:09", tracking: "yal-337AAS", status: "" }] }],
      ["no list", { tracking: "yal-337AAS" }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHistoryPage(response(200, body)))._tag, "BadResponse")
    })
  })

  describe("fromParcel", () => {
    it("reads the current status as the one event of a parcel with no history yet", () => {
      assert.deepStrictEqual(success(Mapping.fromParcel("yal-1", parcelAnswer("yal-1"))), [
        { rawStatus: "En préparation", timestamp: "2020-03-25T18:44:22+01:00" }
      ])
    })

    it("refuses a tracking number the courier does not have, even when another one starts with it", () => {
      for (const answer of [response(200, { has_more: false, total_data: 0, data: [] }), parcelAnswer("yal-12")]) {
        assertReason(failure(Mapping.fromParcel("yal-1", answer)), { _tag: "Refused", says: ["trackingNumber"] }, "")
      }
    })
  })

  describe("fromFees", () => {
    const fees = response(200, feesAnswer)

    it("prices express home delivery to the wilaya's seat when asked, with the COD fee and every option there", () => {
      const result = success(
        Mapping.fromFees(
          query({ fromWilaya: 5, toWilaya: 1, deliveryType: "home", tier: "express", codAmount: 4500 }),
          fees
        )
      )
      assert.deepStrictEqual(
        { ...result, options: result.options.map((option) => ({ ...option })) },
        {
          deliveryType: "home",
          tier: "express",
          deliveryFee: 1400,
          returnFee: 250,
          codFee: 34,
          total: 1434,
          currency: "DZD",
          options: [
            { deliveryType: "home", tier: "express", deliveryFee: 1400, returnFee: 250 },
            { deliveryType: "stopdesk", tier: "express", deliveryFee: 1100, returnFee: 250 }
          ]
        }
      )
    })

    it("prices the commune asked, matched whatever its accents and case, and its economic tier", () => {
      const result = success(
        Mapping.fromFees(query({ toWilaya: 1, toCommune: "TAMEST", deliveryType: "home", tier: "economic" }), fees)
      )
      assert.strictEqual(result.deliveryFee, 1300)
      assert.strictEqual(result.tier, "economic")
      assert.strictEqual(result.codFee, 0, "no cash, no fee")
      assert.strictEqual(result.total, 1300)
      assert.deepStrictEqual(
        result.options.map((option): ReadonlyArray<unknown> => [option.tier, option.deliveryType, option.deliveryFee]),
        [
          ["express", "home", 1500],
          ["economic", "home", 1300]
        ]
      )
      const akabli = success(
        Mapping.fromFees(query({ toWilaya: 1, toCommune: "akabli", deliveryType: "stopdesk", tier: "express" }), fees)
      )
      assert.strictEqual(akabli.deliveryFee, 1100)
    })

    it.each([
      [
        "a commune the courier does not list",
        { toWilaya: 1, toCommune: "Oran", deliveryType: "home" },
        "query.toCommune"
      ],
      [
        "a stop desk where there is none",
        { toWilaya: 1, toCommune: "Tamest", deliveryType: "stopdesk", tier: "express" },
        "no express stop-desk"
      ],
      ["a tier the account does not have", { toWilaya: 1, deliveryType: "home", tier: "economic" }, "no economic home"],
      ["the default tier where it is not sold", { toWilaya: 1, deliveryType: "home" }, "no economic home"]
    ])("refuses %s", (_name, input, says) => {
      assertReason(failure(Mapping.fromFees(query(input), fees)), { _tag: "Refused", says: [says] }, says)
    })

    it("refuses a wilaya it lists no fees for", () => {
      const empty = response(200, { ...feesAnswer, per_commune: {} })
      assertReason(
        failure(Mapping.fromFees(query({ toWilaya: 50, deliveryType: "home" }), empty)),
        { _tag: "Refused", says: ["wilaya 50"] },
        ""
      )
    })

    it.each([
      ["a negative fee", { ...feesAnswer, retour_fee: -1 }],
      [
        "a fractional fee",
        { ...feesAnswer, per_commune: { "1": { ...feesAnswer.per_commune["101"], express_home: 12.5 } } }
      ],
      ["a percentage above 100", { ...feesAnswer, cod_percentage: 250 }],
      ["no per_commune", { ...feesAnswer, per_commune: undefined }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(
        failure(Mapping.fromFees(query({ toWilaya: 1, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })

    it("asks for both wilayas", () => {
      assert.deepStrictEqual(Mapping.feesQuery(WilayaCode.WilayaCode.make(16), WilayaCode.WilayaCode.make(31)), {
        from_wilaya_id: "16",
        to_wilaya_id: "31"
      })
    })
  })

  describe("fromLabel", () => {
    it("returns the PDF", () => {
      const pdf = response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" })
      assert.strictEqual(success(Mapping.fromLabel(pdf)).contentType, "application/pdf")
    })

    it.each<readonly [string, ReturnType<typeof response>, ExpectedReason]>([
      ["an unknown parcel (404)", response(404, { error: { message: "Label not found" } }), { _tag: "Refused" }],
      ["an HTML page", response(200, "<html>bordereau</html>"), { _tag: "BadResponse", says: ["not a PDF"] }],
      ["a 500", response(500, ""), { _tag: "Unreachable" }],
      ["a 429", response(429, "", { "retry-after": "3" }), { _tag: "CourierRateLimited", retryAfterSeconds: 3 }]
    ])("fails on %s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromLabel(answer)), expected, name)
    })
  })

  describe("errorOf", () => {
    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(Mapping.errorOf(answer), expected, name)
    })

    it("turns an error answer to a read into that reason", () => {
      for (const [name, answer, expected] of errorPairs) {
        assertReason(failure(Mapping.fromHistoryPage(answer)), expected, name)
      }
    })
  })
})
