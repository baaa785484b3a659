/**
 * Issue 34: what NOEST's own specification says it answers, replayed through the mapping and the adapter, where the
 * adapter used to disagree with it. The documentation is NOEST's public API specification v2.3 (May 2026) and its
 * 2024 PDF (`API SPECIFICATION – ECOTRACK`, liberta's `API_DOCS/doc_api_noest.pdf`; research §1.6), as issue 34's
 * fake written from them replays them. None of it was checked against the live platform.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Effect, Layer, Result, Schema } from "effect"
import { adapter, Credentials } from "../src/Noest.ts"
import * as Mapping from "../src/NoestMapping.ts"
import * as Status from "../src/NoestStatus.ts"
import { GUID, NoestFake, type Options, TOKEN } from "./fake/NoestFake.ts"
import { response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const context = { credentials: Schema.decodeUnknownSync(Credentials)({ apiToken: TOKEN, guid: GUID }) }
const { create, track, trackBatch } = adapter.operations as Required<typeof adapter.operations>

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-34",
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const withFake = <A, E>(effect: Effect.Effect<A, E, NoestFake | CourierHttp.CourierHttp>, options: Options = {}) =>
  Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(NoestFake.layer(options))))

describe("NOEST, as its specification answers", () => {
  describe("tracking rows that carry only their label (`event`), as both official examples print them", () => {
    it("reads each by the PDF's list of events, the admin edits left out as always", () => {
      const answer = response(200, {
        NOE000000001FK: {
          OrderInfo: { tracking: "NOE000000001FK" },
          activity: [
            { event: "Uploadé sur le système", causer: "Boutique", date: "2026-04-18 19:45:06" },
            { event: "Validé", causer: "Boutique", date: "2026-04-18 19:45:07" },
            { event: "Informations modifiées", causer: "NOEST", date: "2026-04-19 08:00:00" },
            { event: "Colis Ramassé", causer: "NOEST", date: "2026-04-19 09:12:40" },
            { event: "En livraison", causer: "NOEST", date: "2026-04-20 08:05:12" },
            { event: "Livré", causer: "NOEST", date: "2026-04-20 14:02:33" }
          ]
        }
      })
      const events = Result.getOrThrow(Mapping.fromTracking("NOE000000001FK", answer))
      assert.deepStrictEqual(
        events.map((event) => event.rawStatus),
        ["upload", "customer_validation", "validation_collect_colis", "fdr_activated", "livre"]
      )
      const { result } = Tracking.timeline("NOE000000001FK", Status.statuses, events, Status.codStatuses)
      assert.strictEqual(result.status, "delivered")
      assert.strictEqual(Status.keyOf({ event: "Un libellé inconnu" }), "Un libellé inconnu", "kept as sent: unknown")
      assert.strictEqual(Status.keyOf({ event_key: "livred", event: "Livré" }), "livred", "the key wins when given")
    })

    it.live("tracks a parcel whose rows are printed so, and a batch with such parcels keeps every one", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const first = (yield* create(order(), context)).trackingNumber
          const second = (yield* create(order({ reference: "CMD-35" }), context)).trackingNumber
          fake.addEvent(first, "validation_collect_colis")
          assert.deepStrictEqual(
            (yield* track(first, context)).map((event) => event.rawStatus),
            ["upload", "customer_validation", "validation_collect_colis"]
          )
          const batch = yield* trackBatch([first, second, "NOE999999999FK"], context)
          assert.deepStrictEqual([...batch.keys()].sort(), [first, second].sort(), "the known parcels, none lost")
        }),
        { eventOnly: true }
      )
    )
  })

  describe('"Trackings not found" on HTTP 404 (the v2.3 specification)', () => {
    const notFound = response(404, { message: "Trackings not found" })

    it("is an unknown tracking number, refused (422), not a courier error (502)", () => {
      const reason = Result.getOrThrow(Result.flip(Mapping.fromTracking("NOE1", notFound)))
      assert.strictEqual(reason._tag, "Refused")
      assert.include(reason.message, "trackingNumber")
      const route = Result.getOrThrow(
        Result.flip(Mapping.fromTracking("NOE1", response(404, { message: "The route api/x could not be found." })))
      )
      assert.strictEqual(route._tag, "BadResponse", "a route NOEST does not have is still a bad response")
    })

    it("in a batch, none of them known: an empty answer", () => {
      assert.strictEqual(Result.getOrThrow(Mapping.fromTrackingBatch(["NOE1", "NOE2"], notFound)).size, 0)
    })

    it.live("against the fake: an unknown number is refused", () =>
      withFake(
        Effect.gen(function* () {
          const reason = yield* Effect.flip(track("NOE999999999FK", context))
          assert.strictEqual(reason._tag, "Refused")
        })
      )
    )
  })

  describe("create: `reference` of at least 5 characters, `adresse` required", () => {
    it.live("a shorter reference is refused before anything is sent", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const reason = yield* Effect.flip(create(order({ reference: "A-1" }), context))
          assert.strictEqual(reason._tag, "Refused")
          assert.include(reason.message, "order.reference")
          assert.lengthOf(fake.requests, 0)
        })
      )
    )

    it.live("an order without an address line sends its commune as the address, and NOEST takes it", () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* NoestFake
          const created = yield* create(order(), context)
          assert.strictEqual(fake.parcels.get(created.trackingNumber)!.fields.adresse, "Bab Ezzouar")
        })
      )
    )
  })
})
