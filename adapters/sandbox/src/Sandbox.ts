/**
 * The sandbox courier (`sandbox`): takes no credentials, creates nothing anywhere, and accepts every request the API
 * accepts — optional fields stay optional, every documented limit holds. It refuses and fails only on its documented
 * test values (`SandboxTestValues`): a recipient phone or a tracking number per courier outcome. Tracking numbers
 * (`SBX…`) encode their creation time and scenario; tracking walks a lifecycle derived from the parcel's age; rates
 * come from a fixed table per wilaya pair (README). The one thing a number cannot carry, a cancel asked after it was
 * issued, is kept in the host's memory for adapters (`AdapterMemory`: shared by the host's instances on Redis).
 */
import { AdapterMemory, CourierAdapter, CourierError, Shipment } from "@tawsil/courier"
import { Clock, Duration, Effect, Random } from "effect"
import * as Desks from "./SandboxDesks.ts"
import * as Label from "./SandboxLabel.ts"
import * as Lifecycle from "./SandboxLifecycle.ts"
import * as Rates from "./SandboxRates.ts"
import * as TestValues from "./SandboxTestValues.ts"
import * as TrackingNumber from "./SandboxTrackingNumber.ts"

/** Where parcels leave from when the caller does not say (`options.fromWilaya`). */
export const DEFAULT_FROM_WILAYA = 16

const refuse = (message: string) => Effect.fail(new CourierError.Refused({ message }))

/** `order.reference` ending in `#returned` makes the parcel fail delivery and come back; README. */
const scenarioOf = (order: Shipment.ParcelOrder): TrackingNumber.Scenario =>
  `${order.deliveryType}_${order.reference?.endsWith("#returned") ? "returned" : "delivered"}` as TrackingNumber.Scenario

/** Minutes after creation at which a sandbox parcel is picked up: until then it can be cancelled. */
export const CANCELLABLE_MINUTES = 5

/** How long a cancel is remembered: past it, the parcel walks its life again as if never cancelled. */
export const CANCEL_REMEMBERED = Duration.days(30)

/** The raw status of a cancelled sandbox parcel, the last of its events. */
export const CANCELLED = "cancelled"

const cancelKey = (trackingNumber: string) => `cancelled:${trackingNumber.trim().toUpperCase()}`

/** When the parcel was cancelled (seconds), if it was. */
const cancelledAt = (trackingNumber: string) =>
  Effect.gen(function* () {
    const memory = yield* AdapterMemory.AdapterMemory
    const at = yield* memory.get(cancelKey(trackingNumber))
    return at === undefined ? undefined : Number(at)
  })

/** The parcel's events now: its life up to now, or up to its cancel and then the cancel. */
const eventsOf = (trackingNumber: string, parcel: TrackingNumber.Decoded, nowSeconds: number) =>
  Effect.map(cancelledAt(trackingNumber), (cancelled) =>
    cancelled === undefined
      ? Lifecycle.eventsAt(parcel.scenario, parcel.createdAtSeconds, nowSeconds)
      : [
          ...Lifecycle.eventsAt(parcel.scenario, parcel.createdAtSeconds, cancelled),
          { rawStatus: CANCELLED, timestamp: Lifecycle.timestampOf(cancelled) }
        ]
  )

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

/**
 * Runs `f` on the parcel a tracking number names. A test tracking number answers its outcome (the slow one, as a
 * home delivery created at the moment of the call); a number the sandbox did not issue is refused, as a courier
 * refuses a parcel it does not know.
 */
const withParcel = <A>(
  trackingNumber: string,
  f: (parcel: TrackingNumber.Decoded) => Effect.Effect<A, CourierError.CourierErrorReason>
): Effect.Effect<A, CourierError.CourierErrorReason> => {
  const testValue = TestValues.ofTrackingNumber(trackingNumber)
  if (testValue !== undefined) {
    const fresh = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      f({ createdAtSeconds: Math.floor(now / 1000), scenario: "home_delivered" })
    )
    return TestValues.respond(testValue, `test tracking number ${testValue.trackingNumber}`, fresh)
  }
  const decoded = TrackingNumber.decode(trackingNumber)
  return decoded === undefined ? refuse(`unknown tracking number ${trackingNumber}`) : f(decoded)
}

/** A parcel created, or the outcome of a test phone (`SandboxTestValues`). */
const create = (order: Shipment.ParcelOrder) => {
  const parcel = created(scenarioOf(order))
  const testValue = TestValues.ofPhone(order.recipient.phone)
  return testValue === undefined ? parcel : TestValues.respond(testValue, `test phone ${testValue.phone}`, parcel)
}

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
    create,
    // A bulk create as a courier's: each order as its own create, a test phone's outcome for that order alone.
    createBatch: (orders) => Effect.forEach(orders, (order) => Effect.result(create(order))),
    track: (trackingNumber) =>
      withParcel(trackingNumber, (parcel) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => eventsOf(trackingNumber, parcel, Math.floor(now / 1000)))
      ),
    trackBatch: (trackingNumbers) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(
          Effect.forEach(trackingNumbers, (trackingNumber) => {
            const parcel = TrackingNumber.decode(trackingNumber)
            // A number the sandbox did not issue is one it does not know: left out, as a courier's batch answer does.
            return parcel === undefined
              ? Effect.succeed(undefined)
              : Effect.map(
                  eventsOf(trackingNumber, parcel, Math.floor(now / 1000)),
                  (events) => [trackingNumber, events] as const
                )
          }),
          (found) =>
            new Map<string, ReadonlyArray<CourierAdapter.RawEvent>>(found.filter((entry) => entry !== undefined))
        )
      ),
    cancel: (trackingNumber) =>
      withParcel(trackingNumber, (parcel) =>
        Effect.gen(function* () {
          const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          // Cancelled already: cancelled it stays (a cancel asked again answers as the first did).
          if ((yield* cancelledAt(trackingNumber)) !== undefined) return
          if (nowSeconds >= parcel.createdAtSeconds + CANCELLABLE_MINUTES * 60) {
            return yield* new CourierError.NotCancellable({
              message: `the parcel ${trackingNumber.trim().toUpperCase()} was picked up ${CANCELLABLE_MINUTES} minutes after it was created: it can no longer be cancelled`
            })
          }
          const memory = yield* AdapterMemory.AdapterMemory
          yield* memory.set(cancelKey(trackingNumber), String(nowSeconds), CANCEL_REMEMBERED)
        })
      ),
    stopDesks: Desks.stopDesks,
    communes: Desks.communes,
    checkCredentials: () => Effect.void,
    label: (trackingNumber) =>
      withParcel(trackingNumber, (parcel) =>
        Effect.succeed({
          contentType: "application/pdf",
          bytes: Label.render([
            "TAWSIL SANDBOX - NOT A REAL PARCEL",
            `Tracking: ${trackingNumber.trim().toUpperCase()}`,
            `Delivery: ${parcel.scenario.startsWith("stopdesk") ? "stop desk" : "home"}`
          ])
        })
      ),
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
