/**
 * What the core does around a parcel (issue 21): the recipient's commune resolved before any courier is asked (and
 * sent in the courier's own spelling when it lists its communes), batch tracking with and without a batch endpoint,
 * cancel, desks, the credential check, and the rate comparison under one deadline.
 */
import { assert, describe, it } from "@effect/vitest"
import { define } from "@tawsil/courier/CourierAdapter"
import { CredentialsRejected, NotCancellable, Refused } from "@tawsil/courier/CourierError"
import { CourierHttp } from "@tawsil/courier/CourierHttp"
import { ParcelOrder, RatesQuery, RatesResult } from "@tawsil/courier/Shipment"
import type { WilayaCode } from "@tawsil/domain"
import { Communes } from "@tawsil/reference"
import { Duration, Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as Catalogue from "../src/Catalogue.ts"
import * as RateComparison from "../src/RateComparison.ts"
import { Shipping, Transport } from "../src/Shipping.ts"

const order = (communeName: string, deliveryType: "home" | "stopdesk" = "home") =>
  Schema.decodeUnknownSync(ParcelOrder)({
    recipient: { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName },
    deliveryType,
    productList: "1x robe",
    codAmount: 4500
  })

const sent: Array<string> = []

const rates = (total: number) =>
  RatesResult.make({
    deliveryType: "home",
    deliveryFee: total as RatesResult["deliveryFee"],
    returnFee: 0 as RatesResult["returnFee"],
    codFee: 0 as RatesResult["codFee"],
    total: total as RatesResult["total"],
    currency: "DZD",
    options: []
  })

/** A courier that lists its communes in its own spelling, tracks in batches and refuses late cancels. */
const listing = define({
  platform: "listing",
  couriers: [{ key: "listing", name: "Listing", aliases: [], endpoint: { origin: "https://api.listing.dz" } }],
  statuses: { created: "created", moving: "in_transit" },
  operations: {
    create: (parcel) =>
      Effect.sync(() => {
        sent.push(parcel.recipient.communeName)
        return { trackingNumber: `L-${sent.length}`, rawStatus: "created" }
      }),
    communes: () =>
      Effect.succeed([
        { name: "BORDJ EL KIFFAN", home: true, stopdesk: false },
        { name: "El-Harrach", home: true, stopdesk: true }
      ]),
    trackBatch: (numbers) =>
      Effect.succeed(
        new Map(
          numbers
            .filter((number) => number.startsWith("L-"))
            .map((number) => [number, [{ rawStatus: "moving", timestamp: "2026-11-21T10:00:00+01:00" }]])
        )
      ),
    cancel: (number) =>
      number === "L-late" ? Effect.fail(new NotCancellable({ message: "already picked up" })) : Effect.void,
    stopDesks: (wilaya) => Effect.succeed([{ id: "D1", name: "Desk one", wilayaCode: wilaya }]),
    checkCredentials: () => Effect.fail(new CredentialsRejected({ message: "the courier refused the token" })),
    rates: () => Effect.succeed(rates(700))
  }
})

/** A courier with only `track` and `rates`: tracked one number at a time; `slow` never answers in time. */
const plain = define({
  platform: "plain",
  couriers: [
    { key: "plain", name: "Plain", aliases: [], endpoint: { origin: "https://api.plain.dz" } },
    { key: "slow", name: "Slow", aliases: [], endpoint: { origin: "https://api.slow.dz" } },
    { key: "cheap", name: "Cheap", aliases: [], endpoint: { origin: "https://api.cheap.dz" } }
  ],
  statuses: { moving: "in_transit" },
  operations: {
    create: () => Effect.succeed({ trackingNumber: "P-1", rawStatus: "moving" }),
    track: (number) =>
      number === "P-gone"
        ? Effect.fail(new Refused({ message: "unknown parcel" }))
        : Effect.succeed([{ rawStatus: "moving", timestamp: "2026-11-21T10:00:00+01:00" }]),
    rates: (_query) =>
      Effect.flatMap(CourierHttp, (http) => http.request({ method: "GET", path: "/price" })).pipe(
        Effect.map((response) => rates(Number(response.text)))
      )
  }
})

const transport = Layer.succeed(
  Transport,
  Transport.of({
    bind: ({ courier }) =>
      CourierHttp.of({
        request: () =>
          courier.key === "slow"
            ? Effect.never
            : Effect.succeed({
                status: 200,
                headers: {},
                text: courier.key === "cheap" ? "400" : "900",
                bytes: new Uint8Array()
              })
      })
  })
)

const layer = Layer.unwrap(
  Effect.map(Communes.loadBundled, (communes) =>
    Shipping.layer(Catalogue.make([listing, plain]), { communes: Communes.make(communes) })
  )
).pipe(Layer.provide(transport))

const algiers = 16 as WilayaCode.WilayaCode

describe("the core around a parcel", () => {
  it.effect("resolves the recipient's commune and sends the courier's own spelling, saying so", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      const created = yield* shipping.create({ courier: "listing", order: order("bordj el kifan") })
      assert.deepStrictEqual(created.commune, {
        requested: "bordj el kifan",
        sent: "BORDJ EL KIFFAN",
        corrected: true
      })
      assert.strictEqual(sent.at(-1), "BORDJ EL KIFFAN")
      const plainCreated = yield* shipping.create({ courier: "plain", order: order("harache") })
      assert.deepStrictEqual(plainCreated.commune, { requested: "harache", sent: "El Harrach", corrected: true })
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses an unknown or ambiguous commune with suggestions, and sends nothing", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      const before = sent.length
      const unknown = yield* Effect.flip(shipping.create({ courier: "listing", order: order("Nowhere-ville") }))
      assert.strictEqual(unknown._tag, "UnknownCommune")
      const ambiguous = yield* Effect.flip(shipping.create({ courier: "listing", order: order("Ouled") }))
      assert.isTrue(ambiguous._tag === "UnknownCommune" && ambiguous.ambiguous)
      assert.isTrue(ambiguous._tag === "UnknownCommune" && ambiguous.suggestions.length > 1)
      // The courier lists no Bab Ezzouar, and has no desk in Bordj El Kiffan.
      const notListed = yield* Effect.flip(shipping.create({ courier: "listing", order: order("Bab Ezzouar") }))
      assert.strictEqual(notListed._tag, "CommuneNotServed")
      const noDesk = yield* Effect.flip(
        shipping.create({ courier: "listing", order: order("Bordj El Kiffan", "stopdesk") })
      )
      assert.strictEqual(noDesk._tag, "CommuneNotServed")
      assert.include(noDesk.message, "no desk")
      assert.strictEqual(sent.length, before, "nothing reached the courier")
      // A desk order that names its desk goes where the desk is: the recipient's commune need only be listed.
      const named = yield* shipping.create({
        courier: "listing",
        order: { ...order("Bordj El Kiffan", "stopdesk"), stopDeskId: "D1" }
      })
      assert.strictEqual(named.commune?.sent, "BORDJ EL KIFFAN")
      // The caller may send it as written.
      const asWritten = yield* shipping.create({
        courier: "listing",
        order: order("Nowhere-ville"),
        options: { resolveCommune: false }
      })
      assert.isUndefined(asWritten.commune)
      assert.strictEqual(sent.at(-1), "Nowhere-ville")
    }).pipe(Effect.provide(layer))
  )

  it.effect("resolves a commune for a courier: the dataset's, and the courier's entry", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      const resolved = yield* shipping.resolveCommune({
        call: { courier: "listing" },
        wilayaCode: algiers,
        communeName: "el harach"
      })
      assert.strictEqual(resolved.commune.name, "El Harrach")
      assert.deepStrictEqual(resolved.courier, { name: "El-Harrach", home: true, stopdesk: true })
      const unsupported = yield* Effect.flip(
        shipping.resolveCommune({ call: { courier: "plain" }, wilayaCode: algiers, communeName: "El Harrach" })
      )
      assert.isTrue(unsupported._tag === "CourierError" && unsupported.reason._tag === "Unsupported")
    }).pipe(Effect.provide(layer))
  )

  it.effect("tracks a batch through the batch endpoint, or one by one; a number's failure is its own", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      const batched = yield* shipping.trackBatch({ courier: "listing", trackingNumbers: ["L-1", "X-9"] })
      assert.deepStrictEqual(
        batched.map((item) => ("result" in item ? item.result.status : item.error._tag)),
        ["in_transit", "CourierError"]
      )
      const one = yield* shipping.trackBatch({ courier: "plain", trackingNumbers: ["P-1", "P-gone", "P-2"] })
      assert.deepStrictEqual(
        one.map((item) => [item.trackingNumber, "result" in item ? item.result.status : item.error.message]),
        [
          ["P-1", "in_transit"],
          ["P-gone", "plain track: unknown parcel"],
          ["P-2", "in_transit"]
        ]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("cancels, refuses a late cancel, lists desks and checks credentials", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      yield* shipping.cancel({ courier: "listing", trackingNumber: "L-1" })
      const late = yield* Effect.flip(shipping.cancel({ courier: "listing", trackingNumber: "L-late" }))
      assert.isTrue(late._tag === "CourierError" && late.reason._tag === "NotCancellable")
      const desks = yield* shipping.stopDesks({ courier: "listing", wilayaCode: algiers })
      assert.deepStrictEqual(desks, [{ id: "D1", name: "Desk one", wilayaCode: algiers }])
      const check = yield* shipping.checkCredentials({ courier: "listing" })
      assert.deepStrictEqual(check, { _tag: "Rejected", message: "the courier refused the token" })
      const unsupported = yield* Effect.flip(shipping.cancel({ courier: "plain", trackingNumber: "P-1" }))
      assert.isTrue(unsupported._tag === "CourierError" && unsupported.reason._tag === "Unsupported")
    }).pipe(Effect.provide(layer))
  )

  it.effect("compares couriers at once, cheapest first; one that stalls is timed out at the deadline", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping
      const query = Schema.decodeUnknownSync(RatesQuery)({ toWilaya: 31, deliveryType: "home" })
      const fiber = yield* Effect.forkChild(
        RateComparison.compare(shipping, {
          couriers: [{ courier: "plain" }, { courier: "slow" }, { courier: "listing" }, { courier: "cheap" }],
          query,
          timeoutMs: 2000
        })
      )
      yield* TestClock.adjust(Duration.millis(2000))
      const quotes = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        quotes.map((quote) => [quote.courier, quote._tag === "Priced" ? quote.rates.total : quote.error._tag]),
        [
          ["cheap", 400],
          ["listing", 700],
          ["plain", 900],
          ["slow", "TimedOut"]
        ]
      )
    }).pipe(Effect.provide(layer))
  )
})
