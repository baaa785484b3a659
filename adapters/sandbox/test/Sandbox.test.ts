import { assert, describe, it } from "@effect/vitest"
import { Catalogue, CourierHttp, Shipment, Shipping } from "@tawsil/courier"
import { Clock, Effect, Layer, Random, Schema } from "effect"
import { TestClock } from "effect/testing"
import { adapter, MAX_COD_AMOUNT, MAX_WEIGHT_KG } from "../src/Sandbox.ts"
import * as Rates from "../src/SandboxRates.ts"
import * as TrackingNumber from "../src/SandboxTrackingNumber.ts"

const noNetwork = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({
    bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("the sandbox never calls out") })
  })
)
const layer = Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(Layer.provide(noNetwork))
const CourierHttpNever = Layer.succeed(
  CourierHttp.CourierHttp,
  CourierHttp.CourierHttp.of({ request: () => Effect.die("the sandbox never calls out") })
)

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    recipient: {
      fullName: "Amina B",
      phone: "0555123456",
      wilayaCode: 16,
      communeName: "Bab Ezzouar",
      addressLine: "Cité 5 juillet"
    },
    deliveryType: "home",
    productList: "1x robe",
    codAmount: 4500,
    ...overrides
  })

describe("SandboxTrackingNumber", () => {
  it("round-trips creation time and scenario, and refuses a number whose check character is wrong", () => {
    for (const scenario of TrackingNumber.Scenarios) {
      const number = TrackingNumber.encode(1_790_000_000, scenario, [1, 30, 7])
      assert.match(number, /^SBX[0-9A-Z]{12}$/)
      assert.deepStrictEqual(TrackingNumber.decode(number), { createdAtSeconds: 1_790_000_000, scenario })
      assert.deepStrictEqual(TrackingNumber.decode(number.toLowerCase()), { createdAtSeconds: 1_790_000_000, scenario })
      const tampered = `${number.slice(0, 10)}${number[10] === "0" ? "1" : "0"}${number.slice(11)}`
      assert.isUndefined(TrackingNumber.decode(tampered))
    }
    assert.isUndefined(TrackingNumber.decode("ECTNYH123"))
  })
})

describe("Sandbox", () => {
  it.effect("creates nothing anywhere and answers a recognisable tracking number", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const created = yield* shipping.create({ courier: "sandbox", order: order({ reference: "cmd-42" }) })
      assert.match(created.trackingNumber, /^SBX/)
      assert.strictEqual(created.status, "created")
      assert.strictEqual(created.reference, "cmd-42")
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses credentials", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const error = yield* Effect.flip(
        shipping.create({ courier: "sandbox", credentials: { token: "x" }, order: order() })
      )
      assert.strictEqual(error._tag, "InvalidCredentials")
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses what a real courier refuses", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const refusal = (o: Shipment.ParcelOrder) =>
        Effect.map(Effect.flip(shipping.create({ courier: "sandbox", order: o })), (error) =>
          error._tag === "CourierError" ? error.reason._tag : error._tag
        )
      assert.strictEqual(yield* refusal(order({ codAmount: MAX_COD_AMOUNT + 1 })), "Refused")
      assert.strictEqual(yield* refusal(order({ weightKg: 31 })), "Refused")
      assert.strictEqual(yield* refusal(order({ deliveryType: "stopdesk" })), "Refused")
      assert.strictEqual(
        yield* refusal(
          order({ recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" } })
        ),
        "Refused"
      )
      assert.strictEqual(
        yield* refusal(
          order({
            recipient: { fullName: "Amina B", phone: "021234567", wilayaCode: 16, communeName: "X", addressLine: "y" }
          })
        ),
        "NotAMobile"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("says why it refuses, in the courier's words", () =>
    Effect.gen(function* () {
      const create = adapter.operations.create!
      const message = (o: Shipment.ParcelOrder) =>
        Effect.map(Effect.flip(create(o, { credentials: undefined })), (reason) => reason.message)
      assert.strictEqual(
        yield* message(order({ codAmount: MAX_COD_AMOUNT + 1, weightKg: MAX_WEIGHT_KG + 1 })),
        `codAmount ${MAX_COD_AMOUNT + 1} is above the courier's limit of ${MAX_COD_AMOUNT} DZD`,
        "the first rule broken is the one named"
      )
      assert.strictEqual(
        yield* message(order({ weightKg: 31 })),
        `weightKg 31 is above the courier's limit of ${MAX_WEIGHT_KG} kg`
      )
      assert.strictEqual(
        yield* message(order({ deliveryType: "stopdesk" })),
        "stopDeskId is required for a stopdesk delivery"
      )
      assert.strictEqual(
        yield* message(
          order({
            recipient: { fullName: "A B", phone: "0555123456", wilayaCode: 16, communeName: "X", addressLine: " " }
          })
        ),
        "recipient.addressLine is required for a home delivery"
      )
    }).pipe(Effect.provide(CourierHttpNever))
  )

  it.effect("numbers a parcel from the clock and three draws of Random.nextIntBetween(0, 32), as it always did", () =>
    Effect.gen(function* () {
      const create = adapter.operations.create!
      const shapes = [
        ["cmd", "home"],
        ["cmd#returned", "home"],
        ["cmd", "stopdesk"],
        ["cmd#returned", "stopdesk"]
      ] as const
      for (let seed = 0; seed < 200; seed++) {
        const [reference, deliveryType] = shapes[seed % shapes.length]!
        yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0) + seed * 1_234_567)
        const made = yield* create(order({ reference, deliveryType, stopDeskId: "1601" }), {
          credentials: undefined
        }).pipe(Random.withSeed(seed))
        // What the generator version computed from the same clock and seed: a clock read, then three draws.
        const expected = yield* Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const draws = [
            yield* Random.nextIntBetween(0, 32),
            yield* Random.nextIntBetween(0, 32),
            yield* Random.nextIntBetween(0, 32)
          ]
          const scenario = `${deliveryType}_${reference.endsWith("#returned") ? "returned" : "delivered"}` as const
          return TrackingNumber.encode(Math.floor(now / 1000), scenario, draws)
        }).pipe(Random.withSeed(seed))
        assert.deepStrictEqual(made, { trackingNumber: expected, rawStatus: "order_created" }, `seed ${seed}`)
      }
    }).pipe(Effect.provide(CourierHttpNever))
  )

  it.effect("walks the lifecycle as the parcel ages", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const { trackingNumber } = yield* shipping.create({ courier: "sandbox", order: order() })
      const statusAfter = Effect.fnUntraced(function* (minutes: number) {
        yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, minutes, 0))
        return (yield* shipping.track({ courier: "sandbox", trackingNumber })).status
      })
      assert.strictEqual(yield* statusAfter(0), "created")
      assert.strictEqual(yield* statusAfter(3), "pending_pickup")
      assert.strictEqual(yield* statusAfter(20), "in_transit")
      assert.strictEqual(yield* statusAfter(31), "out_for_delivery")
      const done = yield* shipping.track({ courier: "sandbox", trackingNumber })
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 10, 0, 0))
      const delivered = yield* shipping.track({ courier: "sandbox", trackingNumber })
      assert.strictEqual(delivered.status, "delivered")
      assert.lengthOf(delivered.events, 7)
      assert.strictEqual(done.cod, "not_collected")
      assert.strictEqual(delivered.cod, "collected", "the cash moved; the parcel stays delivered")
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 11, 30, 0))
      const paid = yield* shipping.track({ courier: "sandbox", trackingNumber })
      assert.deepStrictEqual([paid.status, paid.cod], ["delivered", "remitted"])
      assert.isBelow(done.events.length, delivered.events.length)
      assert.strictEqual(delivered.events[0]!.timestamp, "2026-11-21T10:00:00+01:00")
    }).pipe(Effect.provide(layer))
  )

  it.effect("lets an integrator choose a returned parcel, home or stopdesk", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const home = yield* shipping.create({ courier: "sandbox", order: order({ reference: "r1#returned" }) })
      const desk = yield* shipping.create({
        courier: "sandbox",
        order: order({ reference: "r2#returned", deliveryType: "stopdesk", stopDeskId: "1601" })
      })
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 11, 0, 0))
      for (const { trackingNumber } of [home, desk]) {
        const tracked = yield* shipping.track({ courier: "sandbox", trackingNumber })
        assert.strictEqual(tracked.status, "returned")
        assert.include(
          tracked.events.map((event) => event.status),
          "returning"
        )
      }
      const deskEvents = (yield* shipping.track({ courier: "sandbox", trackingNumber: desk.trackingNumber })).events
      assert.include(
        deskEvents.map((event) => event.status),
        "at_stopdesk"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses an unknown tracking number", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const error = yield* Effect.flip(shipping.track({ courier: "sandbox", trackingNumber: "SBX0000000000ZZ" }))
      assert.isTrue(error._tag === "CourierError" && error.reason._tag === "Refused")
    }).pipe(Effect.provide(layer))
  )

  it.effect("prices from the documented table", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const rates = (query: Record<string, unknown>, fromWilaya?: number) =>
        shipping.rates({
          courier: "sandbox",
          ...(fromWilaya === undefined ? {} : { options: { fromWilaya: fromWilaya as never } }),
          query: Schema.decodeUnknownSync(Shipment.RatesQuery)(query)
        })
      const oran = yield* rates({ toWilaya: 31, deliveryType: "home", codAmount: 8000 })
      assert.strictEqual(oran.deliveryFee, Rates.fees.north[0])
      assert.strictEqual(oran.returnFee, Rates.fees.north[0] * Rates.RETURN_SHARE)
      assert.strictEqual(oran.codFee, 80)
      assert.strictEqual(oran.total, oran.deliveryFee + 80)
      assert.strictEqual(oran.currency, "DZD")
      assert.lengthOf(oran.options, 4)
      const local = yield* rates({ toWilaya: 31, deliveryType: "stopdesk", tier: "express" }, 31)
      assert.strictEqual(local.deliveryFee, Rates.fees.same_wilaya[1] + Rates.EXPRESS_SURCHARGE)
      assert.strictEqual(local.codFee, 0)
      const tamanrasset = yield* rates({ fromWilaya: 16, toWilaya: 11, deliveryType: "home" })
      assert.strictEqual(tamanrasset.deliveryFee, Rates.fees.deep_south[0])
    }).pipe(Effect.provide(layer))
  )
})
