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

  describe("communes (the operation)", () => {
    const rows = (body: unknown) => Result.getOrThrow(Mapping.fromCommunes(response(200, body)))

    it("lists Maystro's spelling with its ids, every commune at home and with a desk unless the row says not", () => {
      assert.deepStrictEqual(
        Mapping.toCourierCommunes(
          rows([
            { id: 1628, name: "Bab Ezzouar", wilaya: 16 },
            { id: 1642, name: "Hydra", has_stop_desk: 0 },
            { id: 1644, name: "Kouba", has_stop_desk: "1" },
            { id: 1601, name: "Alger Centre", has_stop_desk: false },
            { id: 1631, name: "Bordj El Kiffan", has_stop_desk: null }
          ])
        ),
        [
          { name: "Bab Ezzouar", id: "1628", home: true, stopdesk: true },
          { name: "Hydra", id: "1642", home: true, stopdesk: false },
          { name: "Kouba", id: "1644", home: true, stopdesk: true },
          { name: "Alger Centre", id: "1601", home: true, stopdesk: false },
          { name: "Bordj El Kiffan", id: "1631", home: true, stopdesk: true }
        ]
      )
      assert.deepStrictEqual(Mapping.toCourierCommunes(rows({ results: [{ id: 901, name: "Blida" }] })), [
        { name: "Blida", id: "901", home: true, stopdesk: true }
      ])
      assert.deepStrictEqual(Mapping.toCourierCommunes(rows([])), [])
    })

    it("refuses a flag of another kind as an undocumented answer", () => {
      assert.strictEqual(
        failure(Mapping.fromCommunes(response(200, [{ id: 1628, name: "Bab Ezzouar", has_stop_desk: "yes" }])))._tag,
        "BadResponse"
      )
    })
  })

  describe("cancel", () => {
    it("aborts the order: status 50 with courier-dz's abort reason", () => {
      assert.deepStrictEqual(Mapping.abortRequest, { status: 50, abort_reason: 21 })
    })

    it.each([
      ["the order as DRF's update answers it", response(200, { id: UUID, status: 50, abort_reason: 21 })],
      ["the order without its status", response(200, { id: UUID })],
      ["HTTP 204 without a body", response(204, "")]
    ])("%s → done", (_name, answer) => {
      assert.deepStrictEqual(Mapping.fromAborted(answer), Result.void)
    })

    it.each([
      ["DRF's detail on 400", response(400, { detail: "Impossible d'annuler" }), "Refused", "Impossible d'annuler"],
      ["a detail inside a 200", response(200, { detail: "Commande verrouillée." }), "Refused", "verrouillée"],
      [
        "a field error on the status",
        response(400, { status: ['"51" is not a valid choice.'] }),
        "Refused",
        'status: "51" is not a valid choice.'
      ],
      ["an unknown order (404 detail)", response(404, { detail: "Not found." }), "Refused", "Not found."],
      ["Django's HTML 404 (the route missing)", response(404, "<html>Not Found</html>"), "BadResponse", "not JSON"],
      ["a list on 200", response(200, [1, 2]), "BadResponse", "does not document"],
      ["the key refused", response(401, { detail: "Invalid token." }), "CredentialsRejected", "Invalid token."]
    ])("%s → %s", (_name, answer, tag, words) => {
      const reason = failure(Mapping.fromAborted(answer))
      assert.strictEqual(reason._tag, tag)
      assert.include(reason.message, words)
    })

    const refused = { _tag: "Refused", message: "Impossible d'annuler une commande déjà ramassée." } as never
    const history = (...statuses: ReadonlyArray<readonly [string, string]>) =>
      Result.succeed(statuses.map(([rawStatus, timestamp]) => ({ rawStatus, timestamp })))

    it.each([
      ["8 (picked up)", history(["4", "2026-04-17T10:00:00+01:00"], ["8", "2026-04-17T16:30:00+01:00"])],
      [
        "9 in transit, listed out of order",
        history(["9", "2026-04-18T08:00:00+01:00"], ["4", "2026-04-17T10:00:00+01:00"])
      ],
      ["41 delivered", history(["41", "2026-04-19T12:00:00+01:00"])],
      [
        "8, listed after 4 at the same time",
        history(["4", "2026-04-17T10:00:00+01:00"], ["8", "2026-04-17T10:00:00+01:00"])
      ],
      ["52 returned", history(["52", "2026-04-25T12:00:00+01:00"])]
    ])("a refusal of an order at %s is NotCancellable, in Maystro's words", (_name, events) => {
      const reason = Mapping.whyNotCancelled(refused, events)
      assert.strictEqual(reason._tag, "NotCancellable")
      assert.include(reason.message, "Impossible d'annuler une commande déjà ramassée.")
      assert.include(reason.message, "past the point where it can be cancelled")
    })

    it.each([
      ["4 created", history(["4", "2026-04-17T10:00:00+01:00"])],
      ["5 pickup asked", history(["5", "2026-04-17T10:00:00+01:00"])],
      ["42 postponed (on hold)", history(["42", "2026-04-17T10:00:00+01:00"])],
      ["50 already aborted", history(["8", "2026-04-17T10:00:00+01:00"], ["50", "2026-04-17T11:00:00+01:00"])],
      ["77, which no table maps", history(["77", "2026-04-17T10:00:00+01:00"])],
      ["no history", history()],
      ["a history that could not be read", Result.fail(refused)]
    ])("a refusal of an order at %s stays Refused", (_name, events) => {
      assert.strictEqual(Mapping.whyNotCancelled(refused, events as never), refused)
    })

    it("a reason that is no refusal stays what it was", () => {
      const rejected = { _tag: "CredentialsRejected", message: "HTTP 401" } as never
      assert.strictEqual(Mapping.whyNotCancelled(rejected, history(["8", "2026-04-17T10:00:00+01:00"])), rejected)
    })
  })

  describe("fromWilayas", () => {
    it.each([
      [
        "courier-dz's [id, name] pairs",
        response(200, [
          [1, "Adrar"],
          [16, "Alger"]
        ])
      ],
      ["objects", response(200, [{ id: 1, name: "Adrar" }])],
      ["DRF's pagination", response(200, { results: [[1, "Adrar"]] })]
    ])("%s: the key works", (_name, answer) => {
      assert.deepStrictEqual(Mapping.fromWilayas(answer), Result.void)
    })

    it.each([
      ["Invalid token.", response(401, { detail: "Invalid token." }), "CredentialsRejected"],
      [
        "no permission",
        response(403, { detail: "You do not have permission to perform this action." }),
        "CredentialsRejected"
      ],
      ["JSON that is no list", response(200, { wilayas: 58 }), "BadResponse"],
      ["Django's HTML page", response(200, "<html></html>", { "content-type": "text/html" }), "BadResponse"],
      ["HTTP 502", response(502, "Bad Gateway"), "Unreachable"]
    ])("%s → %s", (_name, answer, tag) => {
      assert.strictEqual(failure(Mapping.fromWilayas(answer))._tag, tag)
    })
  })
})
