import { assert, describe, it } from "@effect/vitest"
import { type CourierError, Shipment, WilayaNames } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ColivraisonMapping.ts"
import * as Wire from "../src/ColivraisonWire.ts"
import { createPairs } from "./fixtures/orders.ts"
import { type ExpectedReason, errorPairs, historyPairs, pricingRows, response } from "./fixtures/responses.ts"

const query = (input: Record<string, unknown>) => Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

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

const pdf = (text: string) => {
  const bytes = new TextEncoder().encode(text)
  return { status: 200, headers: { "content-type": "application/pdf" }, text, bytes }
}

describe("ColivraisonMapping", () => {
  describe("toOrder", () => {
    it.each(createPairs)("%s", (_name, order, entry) => {
      assert.deepStrictEqual(Mapping.toOrder(order), entry)
    })

    it("sends one order in the bulk body", () => {
      const [, order, entry] = createPairs[0]!
      assert.deepStrictEqual(Mapping.createBody(order), { orders: [entry] })
    })
  })

  it("names every wilaya 1–58 by the SDK's French names, each once", () => {
    for (let code = 1; code <= 58; code++)
      assert.strictEqual(Wire.wilayaName(code as never), WilayaNames.FRENCH[code - 1])
    assert.strictEqual(new Set(WilayaNames.FRENCH).size, 58)
    assert.strictEqual(Wire.wilayaName(16 as never), "Alger")
    assert.strictEqual(Wire.wilayaName(58 as never), "El Meniaa")
  })

  it("cuts the product name by characters, never inside one", () => {
    assert.strictEqual(Mapping.productName("x".repeat(255)), "x".repeat(255))
    assert.strictEqual(Mapping.productName("x".repeat(256)), `${"x".repeat(252)}...`)
    const emoji = "🧣".repeat(300)
    assert.strictEqual(Array.from(Mapping.productName(emoji)).length, 255)
    assert.isTrue(Mapping.productName(emoji).startsWith("🧣".repeat(252)))
  })

  it("asks for one parcel's history and one parcel's label", () => {
    assert.deepStrictEqual(Mapping.historyBody("CLX1"), { tracking_numbers: ["CLX1"] })
    assert.deepStrictEqual(Mapping.labelBody("CLX1"), { order_ids: ["CLX1"] })
  })

  describe("fromCreated", () => {
    it("reads the tracking number of the one outcome; the parcel is PLACED", () => {
      assert.deepStrictEqual(
        Mapping.fromCreated(
          response(200, { messages: [{ success: true, tracking: "CLX00000001", message: "Commande créée" }] })
        ),
        Result.succeed({ trackingNumber: "CLX00000001", rawStatus: "PLACED" })
      )
    })

    it("takes a tracking number as a made parcel whatever success says: a refusal would make a second one", () => {
      assert.deepStrictEqual(
        Mapping.fromCreated(response(200, { messages: [{ success: false, tracking: " CLX2 ", message: "Doublon" }] })),
        Result.succeed({ trackingNumber: "CLX2", rawStatus: "PLACED" })
      )
    })

    it.each([
      [
        "success:false with the courier's words",
        { success: false, tracking: null, message: "Wilaya introuvable" },
        ["Wilaya introuvable"]
      ],
      ["words alone", { message: "Commune introuvable : Atlantis." }, ["Commune introuvable"]],
      ["success:false without words", { success: false }, ["without giving a reason"]]
    ])("refuses an outcome without tracking: %s", (_name, outcome, says) => {
      assertReason(failure(Mapping.fromCreated(response(200, { messages: [outcome] }))), { _tag: "Refused", says }, "")
    })

    it.each([
      ["no messages", { messages: [] }],
      ["an outcome with nothing in it", { messages: [{}] }],
      ["an empty tracking and success:true", { messages: [{ success: true, tracking: "" }] }],
      ["a tracking that is not text", { messages: [{ tracking: 42 }] }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(200, body)))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCreated(answer)), expected, name)
    })
  })

  describe("fromHistory", () => {
    it.each(historyPairs)("%s", (_name, tracking, answer, events) => {
      assert.deepStrictEqual(Mapping.fromHistory(tracking, answer), Result.succeed(events))
    })

    it.each([
      ["an empty answer (PHP's [])", response(200, [])],
      ["an answer for other parcels only", historyPairs[0]![2]],
      ["an answer keyed by a longer number", response(200, { CLX00000007X: [] })],
      ["a null entry", response(200, { CLX00000007: null })]
    ])("refuses %s: the asked parcel is unknown", (_name, answer) => {
      assertReason(
        failure(Mapping.fromHistory("CLX00000007", answer)),
        { _tag: "Refused", says: ["trackingNumber"] },
        ""
      )
    })

    it.each([
      ["an entry that is no list", { CLX1: { status: "PLACED" } }],
      ["an event without date", { CLX1: [{ status: "PLACED" }] }],
      ["an empty status", { CLX1: [{ status: "", date: "2026-02-03 10:00:00" }] }],
      ["a date in another format", { CLX1: [{ status: "PLACED", date: "18/04/2026 19:45" }] }],
      ["an impossible day", { CLX1: [{ status: "PLACED", date: "2026-02-30 10:00:00" }] }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHistory("CLX1", response(200, body)))._tag, "BadResponse")
    })

    it.each(errorPairs.filter(([name]) => !name.includes("set to false")))("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromHistory("CLX1", answer)), expected, name)
    })
  })

  describe("fromHistories (batch)", () => {
    const answer = response(200, {
      CLX00000001: [{ status: "PLACED", date: "2026-04-18 19:45:06" }],
      CLX00000002: [
        { status: "OUT_FOR_DELIVERY", date: "2026-04-20 08:05:12" },
        { status: "PLACED", date: "2026-04-18 19:45:07" }
      ],
      CLX00000003: [],
      CLX00000009: [{ status: "DELIVERED", date: "2026-04-21 10:00:00" }]
    })

    it("reads each asked number the answer holds, as one parcel's history is read; the rest are left out", () => {
      const read = Result.getOrThrow(
        Mapping.fromHistories(["CLX00000001", "CLX00000002", "CLX00000003", "CLX00000004"], answer)
      )
      assert.deepStrictEqual(
        [...read],
        [
          ["CLX00000001", [{ rawStatus: "PLACED", timestamp: "2026-04-18T19:45:06+01:00" }]],
          [
            "CLX00000002",
            [
              { rawStatus: "OUT_FOR_DELIVERY", timestamp: "2026-04-20T08:05:12+01:00" },
              { rawStatus: "PLACED", timestamp: "2026-04-18T19:45:07+01:00" }
            ]
          ],
          ["CLX00000003", []]
        ]
      )
      // Keys not asked for (CLX00000009) are never read; PHP's [] and null entries are unknown parcels.
      assert.strictEqual(Result.getOrThrow(Mapping.fromHistories(["CLX1"], response(200, []))).size, 0)
      assert.strictEqual(Result.getOrThrow(Mapping.fromHistories(["CLX1"], response(200, { CLX1: null }))).size, 0)
    })

    it.each([
      ["an entry that is no list", { CLX1: { status: "PLACED" } }],
      ["an event without date", { CLX1: [{ status: "PLACED" }] }],
      ["a date in another format", { CLX1: [{ status: "PLACED", date: "18/04/2026 19:45" }] }]
    ])("answers BadResponse for %s of an asked number", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHistories(["CLX1", "CLX2"], response(200, body)))._tag, "BadResponse")
    })

    it.each(errorPairs.filter(([name]) => !name.includes("set to false")))("%s", (name, failed, expected) => {
      assertReason(failure(Mapping.fromHistories(["CLX1", "CLX2"], failed)), expected, name)
    })

    it("sends the numbers once each in one list; refuses more than 100, or a blank one, before any call", () => {
      assert.deepStrictEqual(Result.getOrThrow(Mapping.checkBatch(["CLX1", "CLX2", "CLX1"])), ["CLX1", "CLX2"])
      assert.deepStrictEqual(Mapping.batchBody(["CLX1", "CLX2"]), { tracking_numbers: ["CLX1", "CLX2"] })
      const hundred = Array.from({ length: 100 }, (_, i) => `CLX${i}`)
      assert.lengthOf(Result.getOrThrow(Mapping.checkBatch(hundred)), 100)
      assert.strictEqual(failure(Mapping.checkBatch([...hundred, "CLX100"]))._tag, "Refused")
      assert.strictEqual(failure(Mapping.checkBatch(["CLX1", " "]))._tag, "Refused")
    })
  })

  describe("fromPricingCheck (checkCredentials)", () => {
    it("takes any price list as both secrets working", () => {
      assert.isTrue(Result.isSuccess(Mapping.fromPricingCheck(response(200, pricingRows))))
      assert.isTrue(Result.isSuccess(Mapping.fromPricingCheck(response(200, []))))
    })

    it.each(errorPairs.filter(([name]) => !name.includes("set to false")))("%s", (name, failed, expected) => {
      assertReason(failure(Mapping.fromPricingCheck(failed)), expected, name)
    })
  })

  describe("timestampOf", () => {
    it.each([
      ["2026-04-18 19:45:06", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18 19:45", "2026-04-18T19:45:00+01:00"],
      ["2026-04-18T18:45:06.000000Z", "2026-04-18T19:45:06+01:00"],
      ["2026-12-31T23:30:00Z", "2027-01-01T00:30:00+01:00"]
    ])("%s → %s", (text, iso) => {
      assert.strictEqual(Mapping.timestampOf(text), iso)
    })
  })

  describe("fromPricing", () => {
    it("prices home delivery to the wilaya from its row, the return and cash fees 0, no tier named", () => {
      const result = Mapping.fromPricing(query({ toWilaya: 16, deliveryType: "home" }), response(200, pricingRows))
      assert.deepStrictEqual(
        result,
        Result.succeed(
          Shipment.RatesResult.make({
            deliveryType: "home",
            deliveryFee: 400 as never,
            returnFee: 0 as never,
            codFee: 0 as never,
            total: 400 as never,
            currency: "DZD",
            options: [
              Shipment.RateOption.make({ deliveryType: "home", deliveryFee: 400 as never, returnFee: 0 as never })
            ]
          })
        )
      )
    })

    it.each([
      [31, 650],
      [19, 650]
    ])("reads wilaya %s as text or number, and its price likewise", (toWilaya, fee) => {
      const result = Mapping.fromPricing(query({ toWilaya, deliveryType: "home" }), response(200, pricingRows))
      assert.strictEqual(Result.getOrThrow(result).deliveryFee, fee)
    })

    it("reads a list keyed by wilaya the same way", () => {
      const keyed = Object.fromEntries(pricingRows.map((row) => [String(row.wilaya_mat), row]))
      const result = Mapping.fromPricing(query({ toWilaya: 31, deliveryType: "home" }), response(200, keyed))
      assert.strictEqual(Result.getOrThrow(result).total, 650)
    })

    it("ignores the origin, the commune, the cash amount and the tier: the list has one price per wilaya", () => {
      const result = Mapping.fromPricing(
        query({
          fromWilaya: 31,
          toWilaya: 16,
          toCommune: "Hydra",
          deliveryType: "home",
          codAmount: 9000,
          tier: "express"
        }),
        response(200, pricingRows)
      )
      assert.strictEqual(Result.getOrThrow(result).total, 400)
    })

    it("refuses a wilaya missing from the list, and a desk, which it does not price", () => {
      assertReason(
        failure(Mapping.fromPricing(query({ toWilaya: 50, deliveryType: "home" }), response(200, pricingRows))),
        { _tag: "Refused", says: ["wilaya 50", "price list"] },
        ""
      )
      assertReason(
        failure(Mapping.fromPricing(query({ toWilaya: 16, deliveryType: "stopdesk" }), response(200, pricingRows))),
        { _tag: "Refused", says: ["door only", "home"] },
        ""
      )
    })

    it.each([
      ["a row without a price", [{ wilaya_mat: 16 }]],
      ["a price that is no number", [{ wilaya_mat: 16, delivery_price: "gratuit" }]],
      ["a negative price", [{ wilaya_mat: 16, delivery_price: -5 }]],
      ["a wilaya that is no whole number", [{ wilaya_mat: 16.5, delivery_price: 400 }]]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(
        failure(Mapping.fromPricing(query({ toWilaya: 16, deliveryType: "home" }), response(200, body)))._tag,
        "BadResponse"
      )
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromPricing(query({ toWilaya: 16, deliveryType: "home" }), answer)), expected, name)
    })
  })

  describe("fromLabel", () => {
    it("passes the PDF on as it came", () => {
      const answer = pdf("%PDF-1.4\n% bordereau CLX1\n%%EOF\n")
      assert.deepStrictEqual(
        Mapping.fromLabel(answer),
        Result.succeed({ contentType: "application/pdf", bytes: answer.bytes })
      )
    })

    it("refuses an error inside the 200; anything else that is not a PDF is no label", () => {
      assertReason(
        failure(Mapping.fromLabel(response(200, { error: true, message: "Commande introuvable : CLX9." }))),
        { _tag: "Refused", says: ["Commande introuvable"] },
        ""
      )
      for (const body of [{ url: "https://example.com/label.pdf" }, "PDF-1.4 almost", { error: false }]) {
        assertReason(
          failure(Mapping.fromLabel(response(200, body))),
          { _tag: "BadResponse", says: ["not a PDF"] },
          JSON.stringify(body)
        )
      }
    })

    it.each(errorPairs.filter(([, answer]) => answer.status !== 200))("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromLabel(answer)), expected, name)
    })
  })
})
