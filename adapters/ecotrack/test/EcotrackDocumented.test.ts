/**
 * Issue 34: what Ecotrack's own documentation says it answers, replayed through the mapping and through the
 * adapter, where the adapter used to disagree with it. Each test names the documentation its answer comes from:
 * the platform's Postman collection (`documenter.getpostman.com/view/14517169/Tz5je15g`) as integrators quote it
 * (research §1.2), its official order-status documentation, and the documented answers issue 34 replayed against a
 * fake written from them. None of it was checked against a live tenant.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue, CourierPacer, HttpTransport, Shipping, Tracking } from "@tawsil/shipping"
import { Clock, Context, Effect, Fiber, Layer, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { adapter, Credentials, rateLimits } from "../src/Ecotrack.ts"
import * as Mapping from "../src/EcotrackMapping.ts"
import * as Status from "../src/EcotrackStatus.ts"
import { EcotrackFake, make as makeFake, TOKEN } from "./fake/EcotrackFake.ts"
import { response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ token: TOKEN }) }
const { create, trackBatch, rates } = adapter.operations as Required<typeof adapter.operations>

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-34",
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const withFake = <A, E>(effect: Effect.Effect<A, E, EcotrackFake | CourierHttp.CourierHttp>) =>
  Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(EcotrackFake.layer())))

const step = (date: string, time: string, status: string) => ({ date, time, status, station: "Alger" })

/** The events a tracking answer gives, through the core's timeline as the API answers them. */
const timelineOf = (events: ReadonlyArray<{ rawStatus: string; timestamp: string }>) =>
  Tracking.timeline("ECT1", Status.statuses, events, Status.codStatuses).result

describe("Ecotrack, as its documentation answers", () => {
  describe("batch tracking (`get/trackings/info`)", () => {
    it("one unknown number: the documented 422 names it, and the known parcels still get their events", () =>
      // The documented error of a batch holding a number the tenant does not know: Laravel's validation, naming
      // the number's index (issue 34's fake, written from the Postman collection, refuses the whole call so).
      {
        const refused = response(422, {
          message: "The given data was invalid.",
          errors: { "trackings.1": ["Le champ trackings.1 sélectionné est invalide."] }
        })
        assert.deepStrictEqual(Result.getOrThrow(Mapping.fromTrackings(["ECT1", "ECT404", "ECT2"], refused)), {
          _tag: "Unknown",
          trackings: ["ECT404"]
        })
        const vague = response(422, { message: "Trackings invalides" })
        assert.deepStrictEqual(Result.getOrThrow(Mapping.fromTrackings(["ECT1", "ECT404"], vague)), {
          _tag: "SomeUnknown"
        })
      })

    it.live("asks again without the number the courier named: two calls, the known parcels read", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const first = (yield* create(order(), context)).trackingNumber
          const second = (yield* create(order({ reference: "CMD-35" }), context)).trackingNumber
          const before = fake.requests.length
          const found = yield* trackBatch([first, "ECTNOPE000000001", second], context)
          assert.deepStrictEqual([...found.keys()], [first, second])
          assert.strictEqual(fake.requests.length - before, 2, "the refused call, then the known numbers")
        })
      )
    )

    it.live("a 422 that names no number: the batch is asked in halves, down to the number refused alone", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const known = (yield* create(order(), context)).trackingNumber
          const before = fake.requests.length
          fake.misbehaveNext({ kind: "json", status: 422, body: { message: "Trackings invalides" } })
          const found = yield* trackBatch([known, "ECTNOPE000000001"], context)
          assert.deepStrictEqual([...found.keys()], [known])
          assert.strictEqual(fake.requests.length - before, 3, "the whole batch, then each half")
        })
      )
    )

    it("reads the answer's documented `status`: a parcel suspended after its last move is on hold", () => {
      // The batch answer's entry carries the order status in words (the tenant's label) beside the activity; a DHD
      // integration's fake of the same endpoint answers `{ "<tracking>": { "status": "Livre non encaissé" } }`.
      const answer = Result.getOrThrow(
        Mapping.fromTrackings(
          ["ECT1"],
          response(200, {
            ECT1: {
              status: "Suspendus",
              activity: [
                step("2026-04-19", "09:12:40", "picked"),
                step("2026-04-19", "18:30:00", "accepted_by_carrier")
              ]
            }
          })
        )
      )
      assert.strictEqual(answer._tag, "Found")
      if (answer._tag !== "Found") return
      const timeline = timelineOf(answer.events.get("ECT1")!)
      assert.strictEqual(timeline.status, "on_hold", "not in_transit, the last activity's reading")
      assert.deepStrictEqual(timeline.events.at(-1), {
        status: "on_hold",
        rawStatus: "suspendu",
        timestamp: "2026-04-19T18:30:00+01:00"
      })
    })

    it("a parcel ready to ship with no activity yet reads pending_pickup, at its record's time, not unknown", () => {
      const answer = Result.getOrThrow(
        Mapping.fromTrackings(
          ["ECT1"],
          response(200, {
            ECT1: {
              OrderInfo: { tracking: "ECT1", created_at: "2026-04-18 19:45:06" },
              status: "Prêt à expédier",
              activity: []
            }
          })
        )
      )
      assert.strictEqual(answer._tag, "Found")
      if (answer._tag !== "Found") return
      const timeline = timelineOf(answer.events.get("ECT1")!)
      assert.strictEqual(timeline.status, "pending_pickup")
      assert.deepStrictEqual(
        timeline.events.map(({ rawStatus, timestamp }) => [rawStatus, timestamp]),
        [["prete_a_expedier", "2026-04-18T19:45:06+01:00"]]
      )
    })

    it("reads the platform's default labels back to their keys; a tenant's own label stays as sent (unknown)", () => {
      for (const [label, key] of [
        ["Prêt à expédier", "prete_a_expedier"],
        ["Suspendus", "suspendu"],
        ["Livre non encaissé", "livre_non_encaisse"],
        ["En livraison", "en_livraison"],
        ["Payés et archivés", "paye_et_archive"],
        ["retour_recu", "retour_recu"],
        ["payé_et_archivé", "payé_et_archivé"]
      ] as const) {
        assert.strictEqual(Status.keyOfLabel(label), key, label)
      }
      assert.strictEqual(Status.keyOfLabel("Colis en orbite"), "Colis en orbite")
    })
  })

  describe("order statuses (the official order-status documentation)", () => {
    it("en_preparation after failed attempts at the destination is the agency preparing it again, not a new parcel", () => {
      const timeline = timelineOf([
        { rawStatus: "vers_wilaya", timestamp: "2026-04-19T08:00:00+01:00" },
        { rawStatus: "attempt_delivery", timestamp: "2026-04-20T11:20:00+01:00" },
        { rawStatus: "attempt_delivery", timestamp: "2026-04-21T11:20:00+01:00" },
        { rawStatus: "en_preparation", timestamp: "2026-04-21T17:00:00+01:00" }
      ])
      assert.strictEqual(timeline.status, "in_transit")
    })

    it("reads the payment keys the documentation spells with accents, as their plain spellings", () => {
      const paid = timelineOf([
        { rawStatus: "livré_non_encaissé", timestamp: "2026-04-21T14:00:00+01:00" },
        { rawStatus: "encaissé_non_payé", timestamp: "2026-04-22T09:00:00+01:00" },
        { rawStatus: "payé_et_archivé", timestamp: "2026-04-28T16:45:00+01:00" }
      ])
      assert.deepStrictEqual([paid.status, paid.cod], ["delivered", "remitted"])
      assert.strictEqual(
        timelineOf([{ rawStatus: "retour_reçu", timestamp: "2026-04-28T16:45:00+01:00" }]).status,
        "returned"
      )
    })
  })

  describe("fees (`get/fees`)", () => {
    it('a wilaya whose fee row has tarif_stopdesk "0" has no desk: none is quoted, a desk quote is refused', () => {
      // The documented fee list: `{ livraison: [{ wilaya_id, tarif, tarif_stopdesk }] }`, amounts as strings; the
      // wilayas a tenant has no desk in (23 in the documentation's data) carry "0".
      const fees = response(200, {
        livraison: [{ wilaya_id: 11, tarif: "1200", tarif_stopdesk: "0" }],
        retours: [{ wilaya_id: 11, tarif: "250", tarif_stopdesk: "0" }]
      })
      const home = Result.getOrThrow(
        Mapping.fromFees(Schema.decodeUnknownSync(Shipment.RatesQuery)({ toWilaya: 11, deliveryType: "home" }), fees)
      )
      assert.deepStrictEqual(
        home.options.map((option) => option.deliveryType),
        ["home"]
      )
      const desk = Mapping.fromFees(
        Schema.decodeUnknownSync(Shipment.RatesQuery)({ toWilaya: 11, deliveryType: "stopdesk" }),
        fees
      )
      assert.isTrue(Result.isFailure(desk))
      if (Result.isFailure(desk)) assert.strictEqual(desk.failure._tag, "Refused")
    })

    it.live("against the fake's documented fee list: no 0 DA desk in a wilaya without one", () =>
      withFake(
        Effect.gen(function* () {
          const quote = yield* rates(
            Schema.decodeUnknownSync(Shipment.RatesQuery)({ toWilaya: 11, deliveryType: "home" }),
            context
          )
          assert.deepStrictEqual(
            quote.options.map((option) => [option.deliveryType, option.deliveryFee]),
            [["home", 1200]]
          )
        })
      )
    )
  })

  describe("create (`create/order`: `adresse` required, every text at most 255 characters)", () => {
    it.live("a product list over 255 characters is cut to 255, ending with …, and the courier takes the order", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const created = yield* create(order({ productList: `${"2x robe kabyle brodée, ".repeat(20)}fin` }), context)
          const sent = fake.parcels.get(created.trackingNumber)!.fields.produit as string
          assert.strictEqual(Array.from(sent).length, 255)
          assert.isTrue(sent.startsWith("2x robe kabyle brodée, 2x robe"))
          assert.isTrue(sent.endsWith("…"))
          assert.strictEqual(Mapping.capped("1x sac"), "1x sac")
          assert.strictEqual(Array.from(Mapping.capped("🎁".repeat(300))).length, 255, "counted in characters")
        })
      )
    )

    it.live("an order without an address line sends its commune as the address, and the courier takes it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* EcotrackFake
          const created = yield* create(order(), context)
          assert.strictEqual(fake.parcels.get(created.trackingNumber)!.fields.adresse, "Bab Ezzouar")
        })
      )
    )
  })

  describe("the documented limit: 50 requests a minute per token", () => {
    it("is declared, for the host to pace every token under", () => {
      assert.deepStrictEqual(rateLimits, [{ limit: 50, window: "1 minute" }])
      assert.strictEqual(adapter.rateLimits.length, 1)
    })

    it.effect(
      "60 tracks at once on one token reach the courier at most 44 a minute, none refused by it, every one answered within its deadline",
      () =>
        Effect.gen(function* () {
          const clock = yield* Clock.Clock
          // Sixty parcels on the account, moved once each; the fake counts by the test clock, which the host's pacer
          // sleeps on.
          const numbers = Array.from({ length: 60 }, (_, i) => `ECTPND${String(i).padStart(10, "0")}`)
          const fake = yield* makeFake({ pending: numbers, now: () => clock.currentTimeMillisUnsafe() })
          for (const tracking of numbers) fake.addActivity(tracking, "picked")
          const overrides = Result.getOrThrow(Egress.parseOverrides(`https://golivri.ecotrack.dz=${fake.origin}`))
          const shipping = Context.get(
            yield* Layer.build(
              Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
                Layer.provide(HttpTransport.layer({ overrides })),
                Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])
              )
            ),
            Shipping.Shipping
          )
          // A poller's budget: two minutes each (the pace lets the last one through after 82.5 s).
          const tracks = yield* Effect.forEach(numbers, (trackingNumber) =>
            Effect.forkChild(
              shipping.track({
                courier: "golivri",
                credentials: { token: TOKEN },
                trackingNumber,
                options: { timeoutMs: 120_000 }
              })
            )
          )
          for (let elapsed = 0; elapsed < 90_000; elapsed += 500) {
            yield* TestClock.withLive(Effect.sleep("5 millis"))
            yield* TestClock.adjust("500 millis")
          }
          // A courier 429 would have failed its track: every one of the sixty is a parcel's answer.
          const answers = yield* Effect.forEach(tracks, Fiber.join)
          assert.deepStrictEqual(new Set(answers.map((answer) => answer.status)), new Set(["picked_up"]))
          assert.lengthOf(fake.arrivals, 60)
          const busiest = Math.max(
            ...fake.arrivals.map((start) => fake.arrivals.filter((at) => at >= start && at < start + 60_000).length)
          )
          assert.isAtMost(busiest, 44, "at most 44 of the 50 a minute, wherever the minute starts")
        }).pipe(Effect.scoped)
    )
  })
})
