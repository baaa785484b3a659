import { assert, describe, it } from "@effect/vitest"
import { CourierError, Shipment } from "@tawsil/courier"
import { Result, Schema } from "effect"
import * as Mapping from "../src/ProcolisMapping.ts"
import { createPairs, TRACKING } from "./fixtures/orders.ts"
import {
  type ExpectedReason,
  errorPairs,
  lirePairs,
  response,
  tarificationPairs,
  unknownTrackings
} from "./fixtures/responses.ts"

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

describe("ProcolisMapping", () => {
  describe("toColis", () => {
    it.each(createPairs)("%s", (_name, order, confirmed, colis) => {
      assert.deepStrictEqual(Mapping.toColis(order, TRACKING, { confirmed }), colis)
    })

    it("wraps the parcel in a Colis list, as every Procolis body is", () => {
      const [, order, confirmed, colis] = createPairs[0]!
      assert.deepStrictEqual(Mapping.toAddColis(Mapping.toColis(order, TRACKING, { confirmed })), { Colis: [colis] })
      assert.deepStrictEqual(Mapping.trackingList("TWL1"), { Colis: [{ Tracking: "TWL1" }] })
    })
  })

  it("makes tracking numbers of TWL and twelve symbols 0-9A-Z", () => {
    assert.strictEqual(Mapping.trackingFrom([0, 1, 9, 10, 35, 36, 2, 3, 4, 5, 6, 7]), "TWL019AZ0234567")
    assert.match(Mapping.trackingFrom(Array.from({ length: Mapping.TRACKING_SYMBOLS }, () => 35)), /^TWL[Z]{12}$/)
  })

  describe("fromColisResults", () => {
    it("accepts Good for our parcel, with or without the tracking echoed", () => {
      for (const body of [
        { Colis: [{ Tracking: "TWL1", MessageRetour: "Good", Client: "x" }] },
        { Colis: [{ MessageRetour: "Good" }] },
        { Colis: [{ Tracking: null, MessageRetour: " Good " }] }
      ]) {
        assert.isTrue(Result.isSuccess(Mapping.fromColisResults("TWL1", response(200, body))), JSON.stringify(body))
      }
    })

    it.each([
      ["Double Tracking", "Double Tracking"],
      ["Wilaya non reconnue", "Wilaya non reconnue"],
      ["an empty MessageRetour", ""]
    ])("reads %s on HTTP 200 as a refusal, never as a success", (_name, message) => {
      const reason = failure(
        Mapping.fromColisResults("TWL1", response(200, { Colis: [{ Tracking: "TWL1", MessageRetour: message }] }))
      )
      assert.strictEqual(reason._tag, "Refused")
      if (message !== "" && reason._tag === "Refused") {
        assert.include(reason.message, message)
        assert.strictEqual(reason.courierCode, message)
      }
    })

    it.each([
      ["Good for another parcel", { Colis: [{ Tracking: "TWL2", MessageRetour: "Good" }] }],
      ["an empty list", { Colis: [] }],
      ["no MessageRetour", { Colis: [{ Tracking: "TWL1" }] }],
      ["a bare array", [{ Tracking: "TWL1", MessageRetour: "Good" }]],
      ["null", null]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromColisResults("TWL1", response(200, body)))._tag, "BadResponse")
    })
  })

  describe("algiersTimestamp", () => {
    it.each([
      ["2026-04-18T19:45:06.123", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T19:45:06", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18 19:45", "2026-04-18T19:45:00+01:00"],
      ["2026-04-18T18:45:06Z", "2026-04-18T19:45:06+01:00"],
      ["2026-04-18T20:45:06.5+02:00", "2026-04-18T19:45:06+01:00"],
      ["2026-12-31T23:30:00.0000000Z", "2027-01-01T00:30:00+01:00"]
    ])("%s → %s", (raw, expected) => {
      assert.strictEqual(Mapping.algiersTimestamp(raw), expected)
    })

    it.each(["", "18/04/2026 19:45", "2026-04-18", "2026-13-01T10:00:00", "2026-04-18T24:00:00", "20260418"])(
      "refuses %j",
      (raw) => {
        assert.isUndefined(Mapping.algiersTimestamp(raw))
      }
    )
  })

  describe("fromLire", () => {
    it.each(lirePairs)("%s", (_name, wire, events) => {
      assert.deepStrictEqual(Mapping.fromLire("TWL1", wire), Result.succeed(events))
    })

    it.each(unknownTrackings)("refuses an unknown tracking number: %s", (_name, wire) => {
      const reason = failure(Mapping.fromLire("TWL1", wire))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "trackingNumber")
    })

    it.each([
      ["no situation", { Colis: [{ Tracking: "TWL1", DateH_Action: "2026-04-18T19:45:06" }] }],
      ["an empty situation", { Colis: [{ Tracking: "TWL1", Situation: "", DateH_Action: "2026-04-18T19:45:06" }] }],
      ["a time in another format", { Colis: [{ Tracking: "TWL1", Situation: "Livrée", DateH_Action: "18/04/2026" }] }],
      ["no time", { Colis: [{ Tracking: "TWL1", Situation: "Livrée" }] }],
      ["a bare row", { Tracking: "TWL1", Situation: "Livrée", DateH_Action: "2026-04-18T19:45:06" }]
    ])("answers BadResponse for %s", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromLire("TWL1", response(200, body)))._tag, "BadResponse")
    })
  })

  describe("fromTarification", () => {
    it.each(tarificationPairs)("%s", (_name, asked, wire, expected) => {
      const rates = Result.getOrThrow(Mapping.fromTarification(query(asked), wire))
      assert.strictEqual(rates.deliveryType, asked.deliveryType)
      assert.strictEqual(rates.tier, "economic")
      assert.strictEqual(rates.deliveryFee, expected.deliveryFee)
      assert.strictEqual(rates.returnFee, expected.returnFee)
      assert.strictEqual(rates.codFee, 0)
      assert.strictEqual(rates.total, expected.deliveryFee)
      assert.strictEqual(rates.currency, "DZD")
      assert.deepStrictEqual(
        rates.options.map((option) => [option.deliveryType, option.deliveryFee, option.returnFee]),
        expected.options.map((option) => [...option])
      )
    })

    it("refuses a wilaya missing from the tariff, and a stop desk where there is none", () => {
      const wire = response(200, [{ IDWilaya: "01", Domicile: "1100", Stopdesk: null }])
      assert.include(
        failure(Mapping.fromTarification(query({ toWilaya: 33, deliveryType: "home" }), wire)).message,
        "33"
      )
      const desk = failure(Mapping.fromTarification(query({ toWilaya: 1, deliveryType: "stopdesk" }), wire))
      assert.strictEqual(desk._tag, "Refused")
      assert.include(desk.message, "stop-desk")
    })

    it.each([
      ["an object instead of the list", { livraison: [] }],
      ["a negative amount", [{ IDWilaya: "16", Domicile: "-400" }]],
      ["a fractional amount", [{ IDWilaya: "16", Domicile: "400.5" }]],
      ["an amount that is not a number", [{ IDWilaya: "16", Domicile: "gratuit" }]],
      ["a row without a wilaya", [{ Domicile: "400" }]]
    ])("answers BadResponse for %s", (_name, body) => {
      const result = Mapping.fromTarification(query({ toWilaya: 16, deliveryType: "home" }), response(200, body))
      assert.strictEqual(failure(result)._tag, "BadResponse")
    })

    it("refuses express before any call: Procolis has one tier", () => {
      assert.strictEqual(
        failure(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "express" })))._tag,
        "Refused"
      )
      assert.isTrue(
        Result.isSuccess(Mapping.checkTier(query({ toWilaya: 16, deliveryType: "home", tier: "economic" })))
      )
    })
  })

  describe("errorOf", () => {
    it.each(errorPairs)("%s", (name, wire, expected) => {
      assertReason(Mapping.errorOf(wire), expected, name)
      // Every operation reads errors the same way.
      assertReason(failure(Mapping.fromLire("TWL1", wire)), expected, name)
      assertReason(failure(Mapping.fromColisResults("TWL1", wire)), expected, name)
    })

    it("answers BadResponse for HTML or garbage on HTTP 200", () => {
      for (const text of ["<html>Maintenance</html>", "", "{"]) {
        const wire = response(200, text, { "content-type": "text/html" })
        assert.strictEqual(failure(Mapping.fromLire("TWL1", wire))._tag, "BadResponse", text)
      }
    })
  })

  describe("notConfirmed", () => {
    it("names the tracking number and says not to create again, whatever went wrong", () => {
      for (const reason of [
        new CourierError.Unreachable({ message: "the courier answered HTTP 500" }),
        new CourierError.CourierRateLimited({ retryAfterSeconds: 30 }),
        new CourierError.Refused({
          message: "the courier said: Tracking introuvable",
          courierCode: "Tracking introuvable"
        })
      ]) {
        const refusal = Mapping.notConfirmed("TWL1", reason)
        assert.strictEqual(refusal._tag, "Refused")
        assert.include(refusal.message, "TWL1")
        assert.include(refusal.message, "do not create it again")
      }
      assert.strictEqual(
        Mapping.notConfirmed("TWL1", new CourierError.Refused({ message: "x", courierCode: "C1" })).courierCode,
        "C1"
      )
    })
  })

  describe("batch tracking", () => {
    const row = (tracking: string, situation = "En livraison", at = "2026-04-20T14:02:33.120") => ({
      Tracking: tracking,
      Situation: situation,
      DateH_Action: at,
      Client: "Amina Benali"
    })

    it("asks each number once in one Colis list, and refuses more than 100 or a blank one before any call", () => {
      assert.deepStrictEqual(
        Result.map(Mapping.checkBatch(["A1", "B2", "A1"]), Mapping.batchList),
        Result.succeed({ Colis: [{ Tracking: "A1" }, { Tracking: "B2" }] })
      )
      assert.isTrue(Result.isSuccess(Mapping.checkBatch(Array.from({ length: 100 }, (_, i) => `T${i}`))))
      assert.include(failure(Mapping.checkBatch(Array.from({ length: 101 }, (_, i) => `T${i}`))).message, "at most 100")
      assert.include(failure(Mapping.checkBatch(["A1", ""])).message, "blank")
    })

    it.each([
      [
        "the asked rows, another parcel's and a prefix left out",
        { Colis: [row("B2", "Livrée"), row("A1"), row("ZZ"), row("A")] },
        [
          ["A1", [{ rawStatus: "En livraison", timestamp: "2026-04-20T14:02:33+01:00" }]],
          ["B2", [{ rawStatus: "Livrée", timestamp: "2026-04-20T14:02:33+01:00" }]]
        ]
      ],
      ["the literal null: none known", null, []],
      ["an empty list", { Colis: [] }, []],
      ["another case is another number", { Colis: [row("a1")] }, []]
    ])("%s", (_name, body, expected) => {
      const result = Mapping.fromLireBatch(["A1", "B2"], response(200, body))
      assert.deepStrictEqual(
        Result.map(result, (found): ReadonlyArray<unknown> => [...found.entries()]),
        Result.succeed(expected as ReadonlyArray<unknown>)
      )
    })

    it.each([
      ["an asked row without a situation", { Colis: [{ Tracking: "A1", DateH_Action: "2026-04-20T14:02:33" }] }],
      ["an asked row at a time of another format", { Colis: [row("A1", "Livrée", "20/04/2026 14:02")] }],
      ["no Colis list", { Colis: "A1" }]
    ])("%s is a BadResponse", (_name, body) => {
      assert.strictEqual(failure(Mapping.fromLireBatch(["A1"], response(200, body)))._tag, "BadResponse")
    })

    it("the gateway's refusal of the credentials is CredentialsRejected", () => {
      const answer = response(401, { fault: { faultstring: "Invalid ApiKey for given resource" } })
      assert.strictEqual(failure(Mapping.fromLireBatch(["A1"], answer))._tag, "CredentialsRejected")
    })
  })

  describe("fromTokenStatus", () => {
    it.each([["Accès activé"], ["ACCES ACTIVE"], ["  accès  activé "]])("%s: the credentials work", (statut) => {
      assert.deepStrictEqual(Mapping.fromTokenStatus(response(200, { Statut: statut })), Result.void)
    })

    it.each([
      ["another Statut", response(200, { Statut: "Accès désactivé" }), "CredentialsRejected", "Accès désactivé"],
      [
        "the gateway's 401",
        response(401, { fault: { faultstring: "Invalid ApiKey for given resource" } }),
        "CredentialsRejected",
        "HTTP 401"
      ],
      ["JSON without a Statut", response(200, { ok: true }), "BadResponse", "does not document"],
      ["not JSON", response(200, "Accès activé", { "content-type": "text/plain" }), "BadResponse", "not JSON"],
      ["HTTP 503", response(503, "Service Unavailable"), "Unreachable", "503"]
    ])("%s → %s", (_name, answer, tag, words) => {
      const reason = failure(Mapping.fromTokenStatus(answer))
      assert.strictEqual(reason._tag, tag)
      assert.include(reason.message, words)
    })
  })
})
