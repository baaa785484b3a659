import { assert, describe, it } from "@effect/vitest"
import { CourierHttp, Shipment } from "@tawsil/courier"
import { AdapterMemories, Catalogue, Shipping } from "@tawsil/shipping"
import { Clock, Duration, Effect, Fiber, Layer, Random, Schema } from "effect"
import { Persistence } from "effect/persistence"
import { TestClock } from "effect/testing"
import { adapter } from "../src/Sandbox.ts"
import * as Lifecycle from "../src/SandboxLifecycle.ts"
import * as Rates from "../src/SandboxRates.ts"
import * as TestValues from "../src/SandboxTestValues.ts"
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

/** The kind of failure a call ended with: the courier's reason (and its wait), or the core's own error. */
const outcomeOf = <A>(call: Effect.Effect<A, Shipping.ShippingError>) =>
  Effect.map(Effect.flip(call), (error) =>
    error._tag !== "CourierError"
      ? { tag: error._tag }
      : error.reason._tag === "CourierRateLimited"
        ? { tag: error.reason._tag, retryAfterSeconds: error.reason.retryAfterSeconds }
        : { tag: error.reason._tag, message: error.message }
  )

const recipient = { fullName: "Amina B", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" }

// [what, the order]: each is a request the API accepts, so the sandbox creates it.
const accepted: ReadonlyArray<readonly [name: string, order: Record<string, unknown>]> = [
  ["a home delivery without an address line", { recipient }],
  ["a home delivery with an empty address line", { recipient: { ...recipient, addressLine: "" } }],
  ["a stopdesk delivery without a desk id", { deliveryType: "stopdesk", recipient }],
  ["a stopdesk delivery with a desk id", { deliveryType: "stopdesk", stopDeskId: "1601", recipient }],
  ["an order without a reference", { recipient }],
  ["an empty reference", { reference: "", recipient }],
  [
    "every field at its largest",
    {
      reference: "r".repeat(64),
      recipient: {
        fullName: "F".repeat(120),
        phone: "0799999999",
        phoneAlt: "0699999999",
        wilayaCode: 58,
        communeName: "C".repeat(100),
        addressLine: "A".repeat(255)
      },
      stopDeskId: "d".repeat(64),
      productList: "p".repeat(500),
      codAmount: Number.MAX_SAFE_INTEGER,
      weightKg: 1000,
      declaredValue: Number.MAX_SAFE_INTEGER,
      freeShipping: true,
      isExchange: true,
      hasOpenPackage: true,
      notes: "n".repeat(255)
    }
  ],
  [
    "every field at its smallest",
    {
      recipient: { fullName: "AB", phone: "0500000000", wilayaCode: 1, communeName: "C", addressLine: "" },
      productList: "p",
      codAmount: 0,
      weightKg: 0,
      declaredValue: 0,
      freeShipping: false,
      isExchange: false,
      hasOpenPackage: false,
      notes: ""
    }
  ],
  ["a weight and a cash amount above any courier's", { recipient, weightKg: 999.5, codAmount: 10_000_000 }],
  ["a phone written the international way", { recipient: { ...recipient, phone: "+213 555 12 34 56" } }],
  ["a test phone as the second phone only", { recipient: { ...recipient, phoneAlt: "0500000422" } }],
  ["a test value as the reference", { reference: "0500000422", recipient }]
]

describe("Sandbox accepts every request the API accepts", () => {
  it.effect.each(accepted)("creates %s", ([, fields]) =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const sent = order(fields)
      const created = yield* shipping.create({ courier: "sandbox", order: sent })
      assert.match(created.trackingNumber, /^SBX[0-9A-Z]{12}$/)
      assert.strictEqual(created.status, "created")
      // As the hosted service does, a reference is made up when none (or an empty one) is sent.
      if (sent.reference) assert.strictEqual(created.reference, sent.reference)
      else assert.match(created.reference, /^TW-[0-9A-Z]{10}$/)
      const tracked = yield* shipping.track({ courier: "sandbox", trackingNumber: created.trackingNumber })
      assert.strictEqual(tracked.status, "created")
    }).pipe(Effect.provide(layer))
  )

  it.effect("creates a parcel for every wilaya", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      for (let wilayaCode = 1; wilayaCode <= 58; wilayaCode++) {
        const sent = order({ recipient: { ...recipient, wilayaCode } })
        assert.strictEqual((yield* shipping.create({ courier: "sandbox", order: sent })).status, "created")
      }
    }).pipe(Effect.provide(layer))
  )

  it.effect.prop(
    "creates any order the create schema decodes, unless its phone is a test value",
    { sent: Shipment.ParcelOrder },
    ({ sent }) =>
      Effect.gen(function* () {
        const create = adapter.operations.create!(sent, { credentials: undefined })
        if (TestValues.ofPhone(sent.recipient.phone) !== undefined) return true
        const created = yield* create
        return TrackingNumber.decode(created.trackingNumber) !== undefined && created.rawStatus === "order_created"
      }).pipe(Effect.provide(CourierHttpNever)),
    { timeout: 30_000, arbitrary: { runs: 300 } }
  )
})

// [test value, the reason the courier call fails with]
const failures: ReadonlyArray<
  readonly [outcome: TestValues.Outcome, reason: string, retryAfterSeconds: number | undefined]
> = [
  ["refused", "Refused", undefined],
  ["credentials_rejected", "CredentialsRejected", undefined],
  ["unreachable", "Unreachable", undefined],
  ["timeout", "Unreachable", undefined],
  ["rate_limited", "CourierRateLimited", 30]
]

const testValue = (outcome: TestValues.Outcome) => TestValues.testValues.find((value) => value.outcome === outcome)!

describe("SandboxTestValues", () => {
  it("documents one phone and one tracking number per courier outcome, none a real parcel's", () => {
    assert.deepStrictEqual(
      TestValues.testValues.map((value) => [value.outcome, value.phone, value.trackingNumber]),
      [
        ["refused", "0500000422", "SBXTEST422"],
        ["credentials_rejected", "0500000401", "SBXTEST401"],
        ["unreachable", "0500000502", "SBXTEST502"],
        ["timeout", "0500000504", "SBXTEST504"],
        ["rate_limited", "0500000429", "SBXTEST429"],
        ["slow", "0500000200", "SBXTEST200"]
      ]
    )
    for (const value of TestValues.testValues) assert.isUndefined(TrackingNumber.decode(value.trackingNumber))
  })

  it.effect.each(failures)("create with the %s test phone fails with %s", ([outcome, reason, retryAfterSeconds]) =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const { phone } = testValue(outcome)
      // National, international and spaced forms are one number.
      for (const written of [
        phone,
        `+213 ${phone.slice(1, 4)} ${phone.slice(4, 6)} ${phone.slice(6)}`,
        `00213${phone.slice(1)}`
      ]) {
        const failure = yield* outcomeOf(
          shipping.create({ courier: "sandbox", order: order({ recipient: { ...recipient, phone: written } }) })
        )
        assert.strictEqual(failure.tag, reason, written)
        if (retryAfterSeconds !== undefined) assert.strictEqual(failure.retryAfterSeconds, retryAfterSeconds)
        else assert.include(failure.message, `(sandbox test phone ${phone})`)
      }
    }).pipe(Effect.provide(layer))
  )

  it.effect.each(failures)(
    "track and label of the %s test tracking number fail with %s",
    ([outcome, reason, retryAfterSeconds]) =>
      Effect.gen(function* () {
        const shipping = yield* Shipping.Shipping
        const { trackingNumber } = testValue(outcome)
        for (const call of [
          shipping.track({ courier: "sandbox", trackingNumber }),
          shipping.label({ courier: "sandbox", trackingNumber: ` ${trackingNumber.toLowerCase()} ` })
        ]) {
          const failure = yield* outcomeOf<unknown>(call)
          assert.strictEqual(failure.tag, reason)
          if (retryAfterSeconds !== undefined) assert.strictEqual(failure.retryAfterSeconds, retryAfterSeconds)
          else assert.include(failure.message, `(sandbox test tracking number ${trackingNumber})`)
        }
      }).pipe(Effect.provide(layer))
  )

  it.effect("says which outcome it plays, in the courier's words", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const message = (outcome: TestValues.Outcome) =>
        Effect.map(
          outcomeOf(
            shipping.create({
              courier: "sandbox",
              order: order({ recipient: { ...recipient, phone: testValue(outcome).phone } })
            })
          ),
          (failure) => failure.message
        )
      assert.strictEqual(
        yield* message("refused"),
        "sandbox create: the courier refused the request (sandbox test phone 0500000422)"
      )
      assert.strictEqual(
        yield* message("credentials_rejected"),
        "sandbox create: the courier rejected the account's credentials (sandbox test phone 0500000401)"
      )
      assert.strictEqual(
        yield* message("unreachable"),
        "sandbox create: the courier could not be reached (sandbox test phone 0500000502)"
      )
      assert.strictEqual(
        yield* message("timeout"),
        "sandbox create: the courier did not answer within the caller's timeout (sandbox test phone 0500000504)"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("answers the slow test phone after 800 ms, within the shortest timeout a caller may ask", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const fiber = yield* Effect.forkChild(
        shipping.create({
          courier: "sandbox",
          options: { timeoutMs: 1000 },
          order: order({ recipient: { ...recipient, phone: "+213 500 00 02 00" } })
        })
      )
      yield* TestClock.adjust("799 millis")
      assert.isUndefined(fiber.pollUnsafe(), "not answered before 800 ms")
      yield* TestClock.adjust("1 millis")
      const created = yield* Fiber.join(fiber)
      assert.strictEqual(created.status, "created")
      // A real parcel: it tracks like any other, from the moment it was answered.
      const tracked = yield* shipping.track({ courier: "sandbox", trackingNumber: created.trackingNumber })
      assert.strictEqual(tracked.events[0]!.timestamp, "2026-11-21T10:00:00+01:00")
      assert.isBelow(Duration.toMillis(TestValues.SLOW_ANSWER), 1000)
    }).pipe(Effect.provide(layer))
  )

  it.effect("answers the slow test tracking number after 800 ms, as a parcel just created", () =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const track = yield* Effect.forkChild(shipping.track({ courier: "sandbox", trackingNumber: "sbxtest200" }))
      const label = yield* Effect.forkChild(shipping.label({ courier: "sandbox", trackingNumber: "SBXTEST200" }))
      yield* TestClock.adjust("799 millis")
      assert.isUndefined(track.pollUnsafe())
      assert.isUndefined(label.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const tracked = yield* Fiber.join(track)
      assert.deepStrictEqual(
        tracked.events.map((event) => [event.status, event.timestamp]),
        [["created", "2026-11-21T10:00:00+01:00"]]
      )
      assert.strictEqual((yield* Fiber.join(label)).contentType, "application/pdf")
    }).pipe(Effect.provide(layer))
  )
})

/** Two memory stores of the host's kind, for `AdapterMemories.make`. */
const twoStores = Effect.all([
  Persistence.BackingPersistence.use((backing) => backing.make("a")),
  Persistence.BackingPersistence.use((backing) => backing.make("b"))
]).pipe(Effect.provide(Persistence.layerBackingMemory))

/** A core over the sandbox with `memories` as the host's memory for adapters. */
const coreOver = (memories: AdapterMemories.AdapterMemories["Service"]) =>
  Shipping.Shipping.pipe(
    Effect.provide(
      Shipping.Shipping.layer(Catalogue.make([adapter]), { adapterMemories: memories }).pipe(Layer.provide(noNetwork))
    )
  )

describe("Sandbox: desks, communes, cancel, batch tracking, credentials", () => {
  const operations = adapter.operations
  const run = <A, E>(effect: Effect.Effect<A, E, CourierHttp.CourierHttp>) =>
    effect.pipe(Effect.provide(CourierHttpNever))
  const context = { credentials: undefined }
  const algiers = 16 as Shipment.RatesQuery["toWilaya"]

  it.effect("lists up to three desks per wilaya, which serve every commune of it, at home and at a desk", () =>
    Effect.gen(function* () {
      const desks = yield* run(operations.stopDesks!(algiers, context))
      assert.deepStrictEqual(
        desks.map((desk) => desk.id),
        ["SBXD-16-1", "SBXD-16-2", "SBXD-16-3"]
      )
      const communes = yield* run(operations.communes!(algiers, context))
      assert.lengthOf(communes, 57)
      assert.isTrue(communes.every((commune) => commune.home && commune.stopdesk))
      assert.includeMembers(
        communes.map((commune) => commune.name),
        desks.map((desk) => desk.communeName!)
      )
      const adrar = yield* run(operations.stopDesks!(1 as typeof algiers, context))
      assert.strictEqual(adrar[0]?.communeName, "Adrar", "the wilaya's seat has the first desk")
    })
  )

  it.effect("cancels a parcel until it is picked up, then refuses with NotCancellable", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const created = yield* run(operations.create!(order(), context))
      const late = yield* run(operations.create!(order(), context))
      yield* run(operations.cancel!(created.trackingNumber, context))
      yield* TestClock.adjust(Duration.minutes(6))
      const refused = yield* Effect.flip(run(operations.cancel!(late.trackingNumber, context)))
      assert.strictEqual(refused._tag, "NotCancellable")
      assert.include(refused.message, "picked up")
      const unknown = yield* Effect.flip(run(operations.cancel!("SBXNOTAPARCEL", context)))
      assert.strictEqual(unknown._tag, "Refused")
    })
  )

  it.effect("tracks a cancelled parcel as cancelled, alone and in a batch, past its pickup time too", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const created = yield* run(operations.create!(order(), context))
      const kept = yield* run(operations.create!(order(), context))
      yield* TestClock.adjust(Duration.minutes(3))
      yield* run(operations.cancel!(created.trackingNumber.toLowerCase(), context))
      yield* TestClock.adjust(Duration.minutes(60))
      const events = yield* run(operations.track!(created.trackingNumber, context))
      assert.deepStrictEqual(
        events.map((event) => [event.rawStatus, event.timestamp]),
        [
          ["order_created", "2026-11-21T10:00:00+01:00"],
          ["ready_for_pickup", "2026-11-21T10:02:00+01:00"],
          ["cancelled", "2026-11-21T10:03:00+01:00"]
        ]
      )
      assert.strictEqual(Lifecycle.statuses[events.at(-1)!.rawStatus], "cancelled")
      const batch = yield* run(operations.trackBatch!([created.trackingNumber, kept.trackingNumber], context))
      assert.strictEqual(batch.get(created.trackingNumber)!.at(-1)!.rawStatus, "cancelled")
      assert.strictEqual(
        batch.get(kept.trackingNumber)!.at(-1)!.rawStatus,
        "cash_collected",
        "the other walks its life"
      )
      // Asked again, past the pickup time: cancelled it stays, and the answer is the first's.
      yield* run(operations.cancel!(created.trackingNumber, context))
    })
  )

  it.effect(
    "keeps a cancel in the host's memory: every core over that memory sees it, a core over another does not",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.UTC(2026, 10, 22, 9, 0, 0))
        const shared = AdapterMemories.make(...(yield* twoStores))
        const [first, second, elsewhere] = yield* Effect.all([
          coreOver(shared),
          coreOver(shared),
          coreOver(AdapterMemories.make(...(yield* twoStores)))
        ])
        const created = yield* first.create({ courier: "sandbox", order: order() })
        yield* first.cancel({ courier: "sandbox", trackingNumber: created.trackingNumber })
        const statusThrough = (core: Shipping.Shipping["Service"]) =>
          Effect.map(
            core.track({ courier: "sandbox", trackingNumber: created.trackingNumber }),
            (result) => result.status
          )
        assert.strictEqual(yield* statusThrough(first), "cancelled")
        assert.strictEqual(yield* statusThrough(second), "cancelled", "another instance on the same store")
        assert.strictEqual(
          yield* statusThrough(elsewhere),
          "created",
          "an instance on another store knows nothing of it"
        )
      })
  )

  it.effect("tracks a batch, leaving out numbers it did not issue", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 21, 9, 0, 0))
      const first = yield* run(operations.create!(order(), context))
      const second = yield* run(operations.create!(order({ deliveryType: "stopdesk" }), context))
      yield* TestClock.adjust(Duration.minutes(16))
      const batch = yield* run(operations.trackBatch!([first.trackingNumber, "NOPE-1", second.trackingNumber], context))
      assert.deepStrictEqual([...batch.keys()], [first.trackingNumber, second.trackingNumber])
      assert.deepStrictEqual(
        batch.get(first.trackingNumber)!.map((event) => event.rawStatus),
        ["order_created", "ready_for_pickup", "picked", "in_transit"]
      )
      yield* run(operations.checkCredentials!(undefined, context))
    })
  )
})
