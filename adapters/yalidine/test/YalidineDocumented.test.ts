/**
 * Issue 34: what the Yalidine engine's own documentation says it answers, replayed through the mapping and the
 * adapter, where the adapter used to disagree with it. The documentation is Yalidine's API docs
 * (`yalidine.app/app/dev/docs/api`, behind a login) as integrators committed them: an older copy (liberta's
 * `API_DOCS/Guepex.md`) and a 2026 transcription, and the feeef SDK's types "based on the official Yalidine and Guepex
 * API documentation" (research §1.1). None of it was checked against a live network.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CourierHttp, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Catalogue, CourierPacer, HttpTransport, Shipping, Tracking } from "@tawsil/shipping"
import { Clock, Context, Effect, Fiber, Layer, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { adapter, Credentials } from "../src/Yalidine.ts"
import * as Mapping from "../src/YalidineMapping.ts"
import * as Status from "../src/YalidineStatus.ts"
import { API_ID, API_TOKEN, BORDEREAU_TOKEN, feesOf, make as makeFake, YalidineFake } from "./fake/YalidineFake.ts"
import { response } from "./fixtures/responses.ts"
import * as Loopback from "./LoopbackHttp.ts"

const alger = WilayaCode.WilayaCode.make(16)
const context = {
  credentials: Schema.decodeUnknownSync(Credentials)({ apiId: API_ID, apiToken: API_TOKEN }),
  fromWilaya: alger
}
const { create, track, rates, label } = adapter.operations as Required<typeof adapter.operations>

const order = (overrides: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(Shipment.ParcelOrder)({
    reference: "CMD-34",
    recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 31, communeName: "Oran" },
    deliveryType: "home",
    productList: "2x robe",
    codAmount: 4500,
    ...overrides
  })

const withFake = <A, E>(
  effect: Effect.Effect<A, E, YalidineFake | CourierHttp.CourierHttp>,
  options: Parameters<typeof YalidineFake.layer>[0] = {}
) => Effect.provide(effect, Loopback.layer().pipe(Layer.provideMerge(YalidineFake.layer(options))))

describe("the Yalidine engine, as its documentation answers", () => {
  it("a history row 'Alerte résolue' (a documented history status) is kept and reads unknown, never left out", () => {
    // The docs' histories filter lists it among the statuses: "… En alerte • Alerte résolue • Tentative échouée …".
    const rows = Result.getOrThrow(
      Mapping.fromHistoryPage(
        response(200, {
          has_more: false,
          total_data: 2,
          data: [
            { date_status: "2022-12-18 08:00:00", tracking: "yal-337AAS", status: "Alerte résolue" },
            {
              date_status: "2022-12-17 18:30:00",
              tracking: "yal-337AAS",
              status: "En alerte",
              reason: "Document manquant"
            }
          ]
        })
      )
    ).rows
    const { result, unmapped } = Tracking.timeline(
      "yal-337AAS",
      Status.statuses,
      Mapping.fromHistories("yal-337AAS", rows)!
    )
    assert.deepStrictEqual(
      result.events.map(({ status, rawStatus }) => [status, rawStatus]),
      [
        ["on_hold", "En alerte"],
        ["unknown", "Alerte résolue"]
      ]
    )
    assert.strictEqual(result.status, "unknown")
    assert.deepStrictEqual(unmapped, ["Alerte résolue"])
  })

  it.live(
    "a parcel's history of 1 200 rows is read whole, page after page (the docs: 100 rows a page by default)",
    () =>
      withFake(
        Effect.gen(function* () {
          const fake = yield* YalidineFake
          const { trackingNumber } = yield* create(order(), context)
          for (let i = 0; i < 1200; i++) {
            fake.setClock(
              `2026-04-${String(19 + Math.floor(i / 600)).padStart(2, "0")} ${String(Math.floor((i % 600) / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}:00`
            )
            fake.addHistory(trackingNumber, i % 2 === 0 ? "Centre" : "Transfert")
          }
          const before = fake.requests.length
          const events = yield* track(trackingNumber, context)
          assert.lengthOf(events, 1200, "not the 100 of the first default page")
          assert.deepStrictEqual(
            fake.requests.slice(before).map(({ path, query }) => `${path} ${query.page_size} ${query.page}`),
            [`/v1/histories/${trackingNumber} 1000 1`, `/v1/histories/${trackingNumber} 1000 2`]
          )
        })
      )
  )

  it.live(
    "the label: each parcel's documented `label` link, on the network's own domain, is read as it is, never guessed at",
    () =>
      // The docs' parcel and create answers: `"label": "https://yalidine.app/app/bordereau.php?tracking=…&token=…"`,
      // "publicly accessible"; the API documents no label endpoint of its own. Through the host's transport: the
      // link's host is one the network declares, and it is sent neither the API id nor the token.
      Effect.gen(function* () {
        const fake = yield* makeFake()
        fake.addParcel("yal-LBL001")
        const overrides = Result.getOrThrow(
          Egress.parseOverrides(`https://api.yalidine.app=${fake.origin},https://yalidine.app=${fake.origin}`)
        )
        const shipping = Context.get(
          yield* Layer.build(
            Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
              Layer.provide(HttpTransport.layer({ overrides })),
              Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])
            )
          ),
          Shipping.Shipping
        )
        const call = { courier: "yalidine", credentials: { apiId: API_ID, apiToken: API_TOKEN } }
        const printed = yield* shipping.label({ ...call, trackingNumber: "yal-LBL001" })
        assert.strictEqual(printed.contentType, "application/pdf")
        assert.include(new TextDecoder().decode(printed.bytes), "bordereau yal-LBL001")
        const link = fake.requests.at(-1)!
        assert.deepStrictEqual(
          [link.path, link.query.tracking, link.query.token],
          ["/app/bordereau.php", "yal-LBL001", BORDEREAU_TOKEN]
        )
        assert.notProperty(link.headers, "x-api-id")
        assert.notProperty(link.headers, "x-api-token")
        assert.isFalse(
          fake.requests.some((request) => request.path.startsWith("/labels/")),
          "no call to an endpoint the docs do not show"
        )
        const unknown = yield* Effect.flip(shipping.label({ ...call, trackingNumber: "yal-NOPE00" }))
        assert.isTrue(unknown._tag === "CourierError" && unknown.reason._tag === "Refused", "no parcel: refused")
      }).pipe(Effect.scoped)
  )

  it.live("a label link that answers no PDF (the docs do not say it is one) is refused naming it: it is labelUrl", () =>
    withFake(
      Effect.gen(function* () {
        const created = yield* create(order(), context)
        assert.match(created.labelUrl ?? "", /^https:\/\/yalidine\.app\/app\/bordereau\.php\?tracking=yal-/)
        const refused = yield* Effect.flip(label(created.trackingNumber, context))
        assert.strictEqual(refused._tag, "Refused")
        assert.include(refused.message, "yalidine.app")
        assert.include(refused.message, "HTTP 200")
        assert.include(refused.message, "labelUrl")
      }),
      { bordereau: "html" }
    )
  )

  it.live("rates without a tier quote economic, the tier a create without one is made in", () =>
    // The fees answer (feeef's `DeliveryFees`; the 2026 transcription): `per_commune` with `express_home`,
    // `express_desk`, `economic_home`, `economic_desk`; create's optional `economic` flag (feeef's
    // `CreateParcelRequest`).
    withFake(
      Effect.gen(function* () {
        const fake = yield* YalidineFake
        const quote = yield* rates(
          Schema.decodeUnknownSync(Shipment.RatesQuery)({ toWilaya: 31, deliveryType: "home" }),
          context
        )
        const oran = feesOf(16, { id: 3101, name: "Oran", wilaya: 31, hasStopDesk: true })
        assert.strictEqual(quote.tier, "economic")
        assert.strictEqual(quote.deliveryFee, oran.economic_home)
        const created = yield* create(order(), context)
        assert.strictEqual(fake.parcels.get(created.trackingNumber)!.fields.economic, true)
        const express = yield* create(order({ reference: "CMD-35", tier: "express" }), context)
        assert.strictEqual(fake.parcels.get(express.trackingNumber)!.fields.economic, false)
      })
    )
  )

  it.effect("12 concurrent tracks on one account reach the courier at most 4 in any second, none refused by it", () =>
    // The docs: "per second 5 requests … per minute 50"; the quotas reset "every new second", "every new minute",
    // and "when you run over your quota many times, your access to the API will be disabled for a period of time".
    Effect.gen(function* () {
      const clock = yield* Clock.Clock
      const fake = yield* makeFake({ now: () => clock.currentTimeMillisUnsafe() })
      const numbers = Array.from({ length: 12 }, (_, i) => `yal-TRK${String(i).padStart(3, "0")}`)
      for (const tracking of numbers) {
        fake.addParcel(tracking)
        fake.addHistory(tracking, "Centre")
      }
      const overrides = Result.getOrThrow(Egress.parseOverrides(`https://api.yalidine.app=${fake.origin}`))
      const shipping = Context.get(
        yield* Layer.build(
          Shipping.Shipping.layer(Catalogue.make([adapter])).pipe(
            Layer.provide(HttpTransport.layer({ overrides })),
            Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])
          )
        ),
        Shipping.Shipping
      )
      const tracks = yield* Effect.forEach(numbers, (trackingNumber) =>
        Effect.forkChild(
          shipping.track({ courier: "yalidine", credentials: { apiId: API_ID, apiToken: API_TOKEN }, trackingNumber })
        )
      )
      for (let elapsed = 0; elapsed < 12_000; elapsed += 125) {
        yield* TestClock.withLive(Effect.sleep("5 millis"))
        yield* TestClock.adjust("125 millis")
      }
      // A 429 would have failed its track: every one is the parcel's answer, within the default 15 s.
      const answers = yield* Effect.forEach(tracks, Fiber.join)
      assert.deepStrictEqual(new Set(answers.map((answer) => answer.status)), new Set(["in_transit"]))
      assert.lengthOf(fake.arrivals, 12)
      const busiest = (window: number) =>
        Math.max(
          ...fake.arrivals.map((start) => fake.arrivals.filter((at) => at >= start && at < start + window).length)
        )
      assert.isAtMost(busiest(1000), 4, "at most 4 of the 5 a second, wherever the second starts")
      assert.isAtMost(busiest(60_000), 44)
    }).pipe(Effect.scoped)
  )
})
