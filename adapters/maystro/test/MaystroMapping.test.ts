import { assert, describe, it } from "@effect/vitest"
import { type CourierError, Shipment } from "@tawsil/courier"
import type { Dzd } from "@tawsil/domain"
import { Result, Schema } from "effect"
import * as Mapping from "../src/MaystroMapping.ts"
import { createPairs } from "./fixtures/orders.ts"
import { algiers, communePairs, type ExpectedReason, errorPairs, historyPairs, response } from "./fixtures/responses.ts"

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

const UUID = "5e1c0a7d-3b2f-4c8e-9a61-000000000001"

describe("MaystroMapping", () => {
  describe("toCreateOrder", () => {
    it.each(createPairs)("%s", (_name, order, communeId, body) => {
      assert.deepStrictEqual(Mapping.toCreateOrder(order, communeId), body)
    })
  })

  describe("checkOrder", () => {
    it("refuses an exchange, which Maystro does not offer, and lets anything else through", () => {
      const [, order] = createPairs[0]!
      assert.isTrue(Result.isSuccess(Mapping.checkOrder(order)))
      const exchange = Shipment.ParcelOrder.make({ ...order, isExchange: true })
      assertReason(failure(Mapping.checkOrder(exchange)), { _tag: "Refused", says: ["order.isExchange"] }, "exchange")
    })
  })

  describe("communes", () => {
    it.each(communePairs)("%j → %s", (name, id) => {
      const found = Mapping.communeIdOf(algiers, name, 16)
      if (id === undefined) {
        assertReason(failure(found), { _tag: "Refused", says: ["order.recipient.communeName", "wilaya 16"] }, name)
      } else {
        assert.deepStrictEqual(found, Result.succeed(id))
      }
    })

    it("refuses a name two different communes share, rather than pick one", () => {
      const twins = [...algiers, { id: 1699, name: "Hydra", wilaya: 16 }]
      assertReason(failure(Mapping.communeIdOf(twins, "hydra", 16)), { _tag: "Refused", says: ["2 communes"] }, "")
    })

    it("reads the list plain or paginated, and refuses a list without ids", () => {
      assert.deepStrictEqual(
        Result.map(Mapping.fromCommunes(response(200, algiers)), (list) => list.map(({ id }) => id)),
        Result.succeed(algiers.map(({ id }) => id))
      )
      assert.deepStrictEqual(
        Result.map(Mapping.fromCommunes(response(200, { count: 1, results: [algiers[0]] })), (list) => list.length),
        Result.succeed(1)
      )
      for (const body of [[{ name: "Hydra" }], [{ id: "1642", name: "Hydra" }], [["1642", "Hydra"]], { data: [] }]) {
        assert.strictEqual(failure(Mapping.fromCommunes(response(200, body)))._tag, "BadResponse", JSON.stringify(body))
      }
    })

    it("prices a wilaya by its first commune, and refuses a wilaya without any", () => {
      assert.deepStrictEqual(Mapping.firstCommuneOf(algiers, 16), Result.succeed(1601))
      assertReason(failure(Mapping.firstCommuneOf([], 33)), { _tag: "Refused", says: ["wilaya 33"] }, "")
    })
  })

  describe("orderId", () => {
    it("takes the order id create answered (a UUID), lower-cased, and refuses anything else before a call", () => {
      assert.deepStrictEqual(Mapping.orderId(UUID.toUpperCase()), Result.succeed(UUID))
      for (const bad of ["880001", "../orders/", `${UUID}/`, `${UUID}?x=1`, "", ` ${UUID}`]) {
        assertReason(failure(Mapping.orderId(bad)), { _tag: "Refused", says: ["trackingNumber"] }, JSON.stringify(bad))
      }
    })
  })

  describe("fromCreated", () => {
    it("reads the id as the tracking number, the display number as the courier's reference, and the status", () => {
      const created = Mapping.fromCreated(
        response(201, { id: UUID.toUpperCase(), display_id_order: 880001, status: 4, customer_name: "x" })
      )
      assert.deepStrictEqual(
        created,
        Result.succeed({ trackingNumber: UUID, courierReference: "880001", rawStatus: "4" })
      )
      assert.deepStrictEqual(
        Mapping.fromCreated(response(201, { id: UUID })),
        Result.succeed({ trackingNumber: UUID, rawStatus: "4" }),
        "a missing status is Maystro's first one"
      )
    })

    it.each([
      ["no id", { display_id_order: 1, status: 4 }],
      ["an id that is not a UUID", { id: "880001", status: 4 }],
      ["a numeric id", { id: 880001 }],
      ["success-looking envelope", { success: true }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromCreated(response(201, body)))._tag, "BadResponse")
    })

    it.each(errorPairs)("%s", (name, answer, expected) => {
      assertReason(failure(Mapping.fromCreated(answer)), expected, name)
    })
  })

  describe("fromHistory", () => {
    it.each(historyPairs)("%s", (_name, answer, events) => {
      assert.deepStrictEqual(Mapping.fromHistory(answer), Result.succeed(events))
    })

    it("refuses an unknown order under Tawsil's field name", () => {
      assertReason(
        failure(Mapping.fromHistory(response(404, { detail: "Not found." }))),
        { _tag: "Refused", says: ["trackingNumber", "Not found."] },
        ""
      )
    })

    it.each([
      ["a time in another format", [{ status: 4, created_at: "18/04/2026 19:45" }]],
      ["an impossible day", [{ status: 4, created_at: "2026-02-30T10:00:00+01:00" }]],
      ["an impossible hour", [{ status: 4, created_at: "2026-02-03T24:00:00" }]],
      ["no time", [{ status: 4 }]],
      ["no status", [{ created_at: "2026-02-03T10:00:00+01:00" }]],
      ["not a list", { status: 4 }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromHistory(response(200, body)))._tag, "BadResponse")
    })
  })

  describe("timestampOf", () => {
    it.each([
      ["2026-04-18T19:45:06+01:00", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T18:45:06Z", "2026-04-18T19:45:06+01:00"],
      ["2026-12-31T23:59:59.999999Z", "2027-01-01T00:59:59+01:00"],
      ["2026-04-18 19:45", "2026-04-18T19:45:00+01:00"],
      ["2024-02-29 12:00:00", "2024-02-29T12:00:00+01:00"]
    ])("%s → %s", (text, iso) => {
      assert.strictEqual(Mapping.timestampOf(text), iso)
    })

    it.each(["2025-02-29 12:00:00", "2026-13-01T00:00:00Z", "yesterday", "2026-04-18", "2026-04-18T19:45:06+25:00"])(
      "refuses %s",
      (text) => {
        assert.isUndefined(Mapping.timestampOf(text))
      }
    )
  })

  describe("rates", () => {
    it("asks one option per call: the commune, 1 home or 2 desk, express only when asked", () => {
      assert.deepStrictEqual(Mapping.priceQuery(1628, "home", "economic"), { commune: "1628", delivery_type: "1" })
      assert.deepStrictEqual(Mapping.priceQuery(1628, "stopdesk", "express"), {
        commune: "1628",
        delivery_type: "2",
        express: "true"
      })
    })

    it("reads a price, a null price, and the 404 Maystro answers for an option it does not price", () => {
      assert.deepStrictEqual(Mapping.fromPrice(response(200, { delivery_price: 400 })), Result.succeed(400 as Dzd.Dzd))
      assert.deepStrictEqual(
        Mapping.fromPrice(response(200, { delivery_price: "650.00" })),
        Result.succeed(650 as Dzd.Dzd)
      )
      assert.deepStrictEqual(Mapping.fromPrice(response(200, { delivery_price: null })), Result.succeed(undefined))
      assert.deepStrictEqual(
        Mapping.fromPrice(response(404, { detail: "No pricing for the provided information." })),
        Result.succeed(undefined)
      )
      for (const [answer, reason] of [
        [response(200, { delivery_price: 12.5 }), "BadResponse"],
        [response(200, { delivery_price: -1 }), "BadResponse"],
        [response(200, { price: 400 }), "BadResponse"],
        [response(404, "<h1>Not Found</h1>", { "content-type": "text/html" }), "BadResponse"],
        [response(401, { detail: "Invalid token." }), "CredentialsRejected"]
      ] as const) {
        assert.strictEqual(failure(Mapping.fromPrice(answer))._tag, reason, answer.text)
      }
    })

    const prices = [
      ["home", "economic", 400],
      ["home", "express", 700],
      ["stopdesk", "economic", 250],
      ["stopdesk", "express", undefined]
    ] as ReadonlyArray<readonly [Shipment.DeliveryType, Shipment.Tier, Dzd.Dzd | undefined]>

    it.each([
      ["home", undefined, 400],
      ["home", "express", 700],
      ["stopdesk", "economic", 250]
    ] as const)("answers %s %s from the priced options", (deliveryType, tier, fee) => {
      const rates = Result.getOrThrow(
        Mapping.toRates(query({ toWilaya: 16, deliveryType, ...(tier === undefined ? {} : { tier }) }), prices)
      )
      assert.strictEqual(rates.deliveryType, deliveryType)
      assert.strictEqual(rates.tier, tier ?? "economic")
      assert.strictEqual<number>(rates.deliveryFee, fee)
      assert.strictEqual<number>(rates.total, fee)
      assert.strictEqual(rates.codFee, 0)
      assert.strictEqual(rates.returnFee, 0)
      assert.deepStrictEqual<ReadonlyArray<unknown>>(
        rates.options.map((option) => [option.deliveryType, option.tier, option.deliveryFee]),
        [
          ["home", "economic", 400],
          ["home", "express", 700],
          ["stopdesk", "economic", 250]
        ]
      )
    })

    it("refuses an option Maystro has no price for", () => {
      assertReason(
        failure(Mapping.toRates(query({ toWilaya: 16, deliveryType: "stopdesk", tier: "express" }), prices)),
        { _tag: "Refused", says: ["no express stop-desk delivery"] },
        ""
      )
    })
  })

  describe("fromLabel", () => {
    it("takes a PDF answer as the label and refuses anything else", () => {
      const label = Mapping.fromLabel(response(200, "%PDF-1.4\n%%EOF\n", { "content-type": "application/pdf" }))
      assert.isTrue(Result.isSuccess(label) && label.success.contentType === "application/pdf")
      for (const [answer, reason] of [
        [response(200, { ok: true }), "BadResponse"],
        [response(200, { detail: "Commande introuvable." }), "Refused"],
        [response(200, "%PDF", { "content-type": "application/pdf" }), "BadResponse"],
        [response(400, { orders_ids: ['Invalid pk "x" - object does not exist.'] }), "Refused"],
        [response(500, "oops", { "content-type": "text/plain" }), "Unreachable"]
      ] as const) {
        assert.strictEqual(failure(Mapping.fromLabel(answer))._tag, reason, answer.text)
      }
    })
  })
})
