import { assert, describe, it } from "@effect/vitest"
import { CourierError, Shipment } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/EcotrackMapping.ts"
import { createPairs } from "./fixtures/orders.ts"
import {
  type ExpectedReason,
  errorPairs,
  feesByService,
  feesPairs,
  response,
  trackingPairs
} from "./fixtures/responses.ts"

const query = (input: { readonly toWilaya: number; readonly deliveryType: string; readonly tier?: string }) =>
  Schema.decodeUnknownSync(Shipment.RatesQuery)(input)

const assertReason = (reason: CourierError.CourierErrorReason, expected: ExpectedReason, label: string) => {
  assert.strictEqual(reason._tag, expected._tag, label)
  if (expected.courierCode !== undefined) {
    assert.strictEqual(reason._tag === "Refused" ? reason.courierCode : undefined, expected.courierCode, label)
  }
  if (expected.retryAfterSeconds !== undefined) {
    assert.strictEqual(
      reason._tag === "CourierRateLimited" ? reason.retryAfterSeconds : undefined,
      expected.retryAfterSeconds
    )
  }
  for (const part of expected.says ?? []) assert.include(reason.message, part, label)
}

const failure = <A>(result: Result.Result<A, CourierError.CourierErrorReason>) => {
  assert.isTrue(Result.isFailure(result), "expected a failure")
  return (result as Result.Failure<A, CourierError.CourierErrorReason>).failure
}

describe("EcotrackMapping", () => {
  describe("toCreateOrder", () => {
    it.each(createPairs)("%s", (_name, order, body) => {
      assert.deepStrictEqual(Mapping.toCreateOrder(order), body)
    })
  })

  it("asks for validation with collection", () => {
    assert.deepStrictEqual(Mapping.validationQuery("ECTNYH2407062554"), {
      tracking: "ECTNYH2407062554",
      ask_collection: "1"
    })
  })

  describe("fromCreated", () => {
    it("reads the tracking number", () => {
      const created = Mapping.fromCreated(response(200, { success: true, tracking: "ECTNYH2407062554" }))
      assert.deepStrictEqual(created, Result.succeed("ECTNYH2407062554"))
    })

    it.each([
      ["success without tracking", { success: true }],
      ["an empty tracking", { success: true, tracking: "" }],
      ["a numeric tracking", { success: true, tracking: 42 }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(200, body)))._tag, "BadResponse")
    })

    it("reads a refusal on HTTP 200 as a refusal, never as a success", () => {
      const reason = failure(
        Mapping.fromCreated(response(200, { success: false, error: 10002, message: "Pas de livraison" }))
      )
      assertReason(reason, { _tag: "Refused", courierCode: "10002" }, "10002")
    })
  })

  describe("fromValidated", () => {
    it("accepts the documented answer", () => {
      const validated = Mapping.fromValidated(
        response(200, { success: true, message: "Commande expedier avec succès" })
      )
      assert.isTrue(Result.isSuccess(validated))
    })

    it("refuses success:false", () => {
      assertReason(
        failure(Mapping.fromValidated(response(200, { success: false, message: "Non" }))),
        { _tag: "Refused" },
        ""
      )
    })
  })

  describe("fromLabel", () => {
    it("takes a PDF answer as the label and refuses anything else", () => {
      const pdf = response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" })
      const label = Mapping.fromLabel(pdf)
      assert.isTrue(Result.isSuccess(label) && label.success.contentType === "application/pdf")
      const cases: ReadonlyArray<readonly [ReturnType<typeof response>, string]> = [
        [response(200, { success: true }), "BadResponse"],
        [response(200, "<html>login</html>", { "content-type": "text/html" }), "BadResponse"],
        [response(422, { message: "The given data was invalid.", errors: { tracking: ["invalide"] } }), "Refused"],
        [response(500, "oops", { "content-type": "text/plain" }), "Unreachable"]
      ]
      for (const [answer, reason] of cases) {
        const result = Mapping.fromLabel(answer)
        assert.strictEqual(Result.isFailure(result) ? result.failure._tag : "success", reason, answer.text)
      }
    })
  })

  describe("fromTracking", () => {
    it.each(trackingPairs)("%s", (_name, wire, events) => {
      assert.deepStrictEqual(Mapping.fromTracking(wire), Result.succeed(events))
    })

    it.each([
      ["no activity list", { recipientName: "x" }],
      ["a date in another format", { activity: [{ date: "18/04/2026", time: "19:45:06", status: "picked" }] }],
      ["an impossible time", { activity: [{ date: "2026-04-18", time: "25:00:00", status: "picked" }] }],
      ["an empty status", { activity: [{ date: "2026-04-18", time: "10:00:00", status: "" }] }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromTracking(response(200, body)))._tag, "BadResponse")
    })
  })

  describe("fromFees", () => {
    it.each(feesPairs)("%s", (_name, asked, wire, expected) => {
      const result = Mapping.fromFees(query(asked), wire)
      assert.isTrue(Result.isSuccess(result))
      const rates = Result.getOrThrow(result)
      assert.strictEqual(rates.deliveryType, asked.deliveryType)
      assert.strictEqual(rates.tier, "economic")
      assert.strictEqual(rates.deliveryFee, expected.deliveryFee)
      assert.strictEqual(rates.returnFee, expected.returnFee)
      assert.strictEqual(rates.codFee, 0)
      assert.strictEqual(rates.total, expected.deliveryFee)
      assert.strictEqual(rates.currency, "DZD")
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        rates.options.map((option) => [option.deliveryType, option.deliveryFee, option.returnFee]),
        expected.options
      )
      assert.isTrue(rates.options.every((option) => option.tier === "economic"))
      assert.isTrue(Schema.is(Shipment.RatesResult)(rates))
    })

    it("refuses a wilaya missing from the fee list", () => {
      assertReason(
        failure(Mapping.fromFees(query({ toWilaya: 33, deliveryType: "home" }), feesByService)),
        { _tag: "Refused", says: ["wilaya 33"] },
        "33"
      )
    })

    it("refuses a stop desk where the wilaya has none", () => {
      assertReason(
        failure(Mapping.fromFees(query({ toWilaya: 11, deliveryType: "stopdesk" }), feesByService)),
        { _tag: "Refused", says: ["no stop-desk delivery to wilaya 11"] },
        "11"
      )
    })

    it.each([
      ["a fractional fee", { livraison: [{ wilaya_id: 16, tarif: "400.50" }] }],
      ["a negative fee", { livraison: [{ wilaya_id: 16, tarif: -1 }] }],
      ["a fee that is not a number", { livraison: [{ wilaya_id: 16, tarif: "gratuit" }] }],
      ["no livraison list", { pickup: [] }]
    ])("answers BadResponse for %s", (_name, body) => {
      const reason = failure(Mapping.fromFees(query({ toWilaya: 16, deliveryType: "home" }), response(200, body)))
      assert.strictEqual(reason._tag, "BadResponse")
    })

    it("refuses the express tier", () => {
      assertReason(
        failure(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "express" }))),
        { _tag: "Refused", says: ["no express tier"] },
        "express"
      )
      assert.isTrue(
        Result.isSuccess(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "economic" })))
      )
      assert.isTrue(Result.isSuccess(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home" }))))
    })
  })

  describe("errorOf", () => {
    it.each(errorPairs)("%s", (name, wire, expected) => {
      assertReason(Mapping.errorOf(wire), expected, name)
    })

    it("never quotes a redirect's target, which may carry the token", () => {
      const reason = Mapping.errorOf(
        response(302, "", { location: "https://x.ecotrack.dz/?api_token=s3cr3t-token-value" })
      )
      assert.notInclude(reason.message, "s3cr3t")
    })

    it("caps a courier's long message", () => {
      const reason = Mapping.errorOf(response(422, { message: "x".repeat(5000) }))
      assert.isAtMost(reason.message.length, 300)
    })

    it.each([
      [{ "retry-after": "5" }, 5],
      [{ "Retry-After": " 120 " }, 120],
      [{ "retry-after": "0" }, 1],
      [{ "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }, 60],
      [{ "retry-after": "-3" }, 60],
      [{}, 60]
    ])("reads Retry-After %j as %d seconds", (headers, seconds) => {
      const reason = Mapping.errorOf({ status: 429, headers, text: "", bytes: new Uint8Array() })
      assert.strictEqual(reason._tag === "CourierRateLimited" ? reason.retryAfterSeconds : undefined, seconds)
    })
  })

  describe("notValidated", () => {
    it.each([
      [new CourierError.Refused({ message: "Solde insuffisant", courierCode: "10001" }), "Solde insuffisant", "10001"],
      [new CourierError.Unreachable({ message: "the courier answered HTTP 502" }), "HTTP 502", undefined],
      [new CourierError.CourierRateLimited({ retryAfterSeconds: 30 }), "retry after 30 s", undefined],
      [new CourierError.BadResponse({ message: "not JSON" }), "not JSON", undefined]
    ] as const)("turns %s into a refusal naming the tracking number", (reason, says, courierCode) => {
      const refused = Mapping.notValidated("ECTFAK0000000001", reason)
      assert.strictEqual(refused._tag, "Refused")
      assert.include(refused.message, "ECTFAK0000000001")
      assert.include(refused.message, says)
      assert.include(refused.message, "do not create it again")
      assert.strictEqual(refused.courierCode, courierCode)
    })
  })
})
