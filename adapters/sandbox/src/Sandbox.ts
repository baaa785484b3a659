/**
 * The sandbox courier (`sandbox`): takes no credentials, creates nothing anywhere, and validates what a real
 * courier validates, so an integration that works here fails for the same reasons against a real one. Tracking
 * numbers (`SBX…`) encode their creation time and scenario; tracking walks a lifecycle derived from the parcel's
 * age; rates come from a fixed table per wilaya pair (README).
 */
import { CourierAdapter, CourierError, Shipment } from "@tawsil/courier"
import { Clock, Effect, Random } from "effect"
import * as Label from "./SandboxLabel.ts"
import * as Lifecycle from "./SandboxLifecycle.ts"
import * as Rates from "./SandboxRates.ts"
import * as TrackingNumber from "./SandboxTrackingNumber.ts"

/** The largest cash amount the sandbox accepts, like Yalidine's limit. */
export const MAX_COD_AMOUNT = 150_000
export const MAX_WEIGHT_KG = 30
/** Where parcels leave from when the caller does not say (`options.fromWilaya`). */
export const DEFAULT_FROM_WILAYA = 16

const refuse = (message: string) => Effect.fail(new CourierError.Refused({ message }))

/** `order.reference` ending in `#returned` makes the parcel fail delivery and come back; README. */
const scenarioOf = (order: Shipment.ParcelOrder): TrackingNumber.Scenario =>
  `${order.deliveryType}_${order.reference?.endsWith("#returned") ? "returned" : "delivered"}` as TrackingNumber.Scenario

/** What a real courier would refuse in `order`, first rule first; `undefined` when it takes the order. */
const refusalOf = (order: Shipment.ParcelOrder): string | undefined => {
  if (order.codAmount > MAX_COD_AMOUNT) {
    return `codAmount ${order.codAmount} is above the courier's limit of ${MAX_COD_AMOUNT} DZD`
  }
  if (order.weightKg !== undefined && order.weightKg > MAX_WEIGHT_KG) {
    return `weightKg ${order.weightKg} is above the courier's limit of ${MAX_WEIGHT_KG} kg`
  }
  if (order.deliveryType === "stopdesk" && order.stopDeskId === undefined) {
    return "stopDeskId is required for a stopdesk delivery"
  }
  if (order.deliveryType === "home" && (order.recipient.addressLine ?? "").trim() === "") {
    return "recipient.addressLine is required for a home delivery"
  }
  return undefined
}

/**
 * A new parcel's tracking number from the fiber's `Clock` and `Random` (so `TestClock` and a seeded `Random` drive
 * it), read in one step rather than through a generator, which cost ~10 µs per create on the sandbox's hot path.
 * The three draws are `Random.nextIntBetween(0, 32)`'s (both ends included), in the same order.
 */
const created = (scenario: TrackingNumber.Scenario) =>
  Effect.withFiberSucceed((fiber) => {
    const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
    const random = fiber.getRef(Random.Random)
    const draw = () => Math.floor(random.nextDoubleUnsafe() * 33)
    const trackingNumber = TrackingNumber.encode(Math.floor(now / 1000), scenario, [draw(), draw(), draw()])
    return { trackingNumber, rawStatus: "order_created" }
  })

export const adapter = CourierAdapter.define<undefined>({
  platform: "sandbox",
  couriers: [
    {
      key: "sandbox",
      name: "Sandbox (test courier)",
      aliases: ["test"],
      endpoint: { origin: "https://sandbox.tawsil.invalid" }
    }
  ],
  statuses: Lifecycle.statuses,
  codStatuses: Lifecycle.codStatuses,
  operations: {
    create: (order) => {
      const refusal = refusalOf(order)
      return refusal === undefined ? created(scenarioOf(order)) : refuse(refusal)
    },
    track: (trackingNumber) =>
      Effect.gen(function* () {
        const decoded = TrackingNumber.decode(trackingNumber)
        if (decoded === undefined) return yield* refuse(`unknown tracking number ${trackingNumber}`)
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        return Lifecycle.eventsAt(decoded.scenario, decoded.createdAtSeconds, now)
      }),
    label: (trackingNumber) =>
      Effect.gen(function* () {
        const decoded = TrackingNumber.decode(trackingNumber)
        if (decoded === undefined) return yield* refuse(`unknown tracking number ${trackingNumber}`)
        return {
          contentType: "application/pdf",
          bytes: Label.render([
            "TAWSIL SANDBOX - NOT A REAL PARCEL",
            `Tracking: ${trackingNumber.trim().toUpperCase()}`,
            `Delivery: ${decoded.scenario.startsWith("stopdesk") ? "stop desk" : "home"}`
          ])
        }
      }),
    rates: (query, context) =>
      Effect.sync(() => {
        const from = query.fromWilaya ?? context.fromWilaya ?? (DEFAULT_FROM_WILAYA as typeof query.toWilaya)
        const [home, stopdesk] = Rates.fees[Rates.zoneOf(from, query.toWilaya)]
        const surcharge = query.tier === "express" ? Rates.EXPRESS_SURCHARGE : 0
        const option = (deliveryType: Shipment.DeliveryType, tier: Shipment.Tier) => {
          const deliveryFee =
            (deliveryType === "home" ? home : stopdesk) + (tier === "express" ? Rates.EXPRESS_SURCHARGE : 0)
          return Shipment.RateOption.make({
            deliveryType,
            tier,
            deliveryFee: deliveryFee as Shipment.RateOption["deliveryFee"],
            returnFee: Math.round(deliveryFee * Rates.RETURN_SHARE) as Shipment.RateOption["returnFee"]
          })
        }
        const deliveryFee = (query.deliveryType === "home" ? home : stopdesk) + surcharge
        const codFee = Rates.codFee(query.codAmount ?? 0)
        return Shipment.RatesResult.make({
          deliveryType: query.deliveryType,
          tier: query.tier ?? "economic",
          deliveryFee: deliveryFee as Shipment.RatesResult["deliveryFee"],
          returnFee: Math.round(deliveryFee * Rates.RETURN_SHARE) as Shipment.RatesResult["returnFee"],
          codFee: codFee as Shipment.RatesResult["codFee"],
          total: (deliveryFee + codFee) as Shipment.RatesResult["total"],
          currency: "DZD",
          options: [
            option("home", "economic"),
            option("home", "express"),
            option("stopdesk", "economic"),
            option("stopdesk", "express")
          ]
        })
      })
  }
})
