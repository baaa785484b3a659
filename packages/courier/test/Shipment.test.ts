import { assert, describe, it } from "@effect/vitest"
import type { Dzd, WilayaCode } from "@tawsil/domain"
import { Result } from "effect"
import * as Shipment from "../src/Shipment.ts"

const dzd = (amount: number) => amount as Dzd.Dzd
const query = (deliveryType: Shipment.DeliveryType) =>
  Shipment.RatesQuery.make({ toWilaya: 16 as WilayaCode.WilayaCode, deliveryType })
const home = Shipment.RateOption.make({
  deliveryType: "home",
  tier: "economic",
  deliveryFee: dzd(600),
  returnFee: dzd(200)
})
const desk = Shipment.RateOption.make({
  deliveryType: "stopdesk",
  tier: "economic",
  deliveryFee: dzd(400),
  returnFee: dzd(150)
})

describe("Shipment", () => {
  describe("economicRates", () => {
    it("answers the asked option, its delivery fee the total, no fee on the cash, with every option offered", () => {
      const rates = Shipment.economicRates(query("stopdesk"), [home, desk])
      assert.deepStrictEqual(
        rates,
        Result.succeed(
          Shipment.RatesResult.make({
            deliveryType: "stopdesk",
            tier: "economic",
            deliveryFee: dzd(400),
            returnFee: dzd(150),
            codFee: dzd(0),
            total: dzd(400),
            currency: "DZD",
            options: [home, desk]
          })
        )
      )
    })

    it("refuses a delivery type the list does not offer, in the courier's name, naming the wilaya", () => {
      const noDesk = Shipment.economicRates(query("stopdesk"), [home])
      assert.isTrue(Result.isFailure(noDesk))
      if (Result.isFailure(noDesk)) {
        assert.strictEqual(noDesk.failure._tag, "Refused")
        assert.strictEqual(noDesk.failure.message, "the courier has no stop-desk delivery to wilaya 16")
      }
      const noHome = Shipment.economicRates(query("home"), [desk], "NOEST")
      assert.isTrue(Result.isFailure(noHome))
      if (Result.isFailure(noHome))
        assert.strictEqual(noHome.failure.message, "NOEST has no home delivery to wilaya 16")
    })
  })
})
