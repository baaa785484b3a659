/**
 * `npm run couriers:check` (apps/http/src/CourierCheck.ts, scripts/checkCouriers.ts) against each platform's loopback
 * fake, as an operator runs it against the live courier: only reads, through the host's transport; what it read, every
 * answer the adapter could not read and every raw status its table does not know; and the recordings, which carry no
 * credential and no customer datum. Each platform's fake first holds a parcel created through the core for a canary
 * customer (name, mobile, address, products), which the check then tracks.
 */
import { assert, layer } from "@effect/vitest"
import { CourierHttp, Recorded } from "@tawsil/courier"
import { Tracking } from "@tawsil/shipping"
import { Effect, Schema } from "effect"
import * as CourierCheck from "../../src/CourierCheck.ts"
import { assertNoCanary, check, createdFor, Harness, HarnessLive, platforms } from "./CouriersCheckHarness.ts"

layer(HarnessLive, { timeout: "120 seconds", excludeTestServices: true })("npm run couriers:check", (it) => {
  for (const platform of platforms) {
    it.effect(`${platform.courier}: every read answered and read; the recordings hold no canary`, () =>
      Effect.gen(function* () {
        const trackingNumber = yield* createdFor(platform)
        const report = yield* check({
          courier: platform.courier,
          credentials: platform.credentials,
          fromWilaya: platform.fromWilaya,
          wilayas: [16],
          trackingNumbers: [trackingNumber]
        })
        const { entry } = (yield* Harness).catalogue.resolve(platform.courier)!
        const text = CourierCheck.render(report, entry.name)
        assert.isTrue(CourierCheck.isClean(report), text)
        const ran = report.steps.filter((step) => step.outcome === "ok").map((step) => step.name.split(" ")[0])
        for (const capability of ["checkCredentials", "communes", "stopDesks", "rates", "track"] as const) {
          if (entry.capabilities[capability]) assert.include(ran, capability, text)
        }
        assert.include(text, `track ${trackingNumber}`)
        assert.isNotEmpty(report.exchanges)
        for (const exchange of report.exchanges) {
          // A fixture as a file holds it, and as a test replays it.
          const file = JSON.stringify(exchange, null, 2)
          assertNoCanary(file, `${platform.courier} ${exchange.step}`)
          const replayed = Recorded.responseOf(Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(file)))
          assert.strictEqual(replayed.status, exchange.response.status)
        }
        assertNoCanary(text, `${platform.courier}'s report`)
        // The recorded tracking answers, replayed through the adapter's own track, read as the live answers did.
        const tracked = report.exchanges.filter((exchange) => exchange.step === `track ${trackingNumber}`)
        assert.isNotEmpty(tracked, "the tracking answers are recorded")
        const { adapter } = (yield* Harness).catalogue.resolve(platform.courier)!
        const replayed = yield* adapter.operations.track!(trackingNumber, {
          credentials: Schema.decodeUnknownSync(adapter.credentials!)(platform.credentials),
          fromWilaya: undefined
        }).pipe(Effect.provideService(CourierHttp.CourierHttp, Recorded.replay(tracked)))
        const live = yield* (yield* Harness).shipping.track({
          courier: platform.courier,
          credentials: platform.credentials,
          trackingNumber
        })
        assert.deepStrictEqual(
          // As the core reads a timeline: cash only for a courier whose tracking reports it (`codTracked`).
          Tracking.timeline(
            trackingNumber,
            adapter.statuses,
            replayed,
            adapter.codTracked ? adapter.codStatuses : undefined
          ).result,
          live
        )
      })
    )
  }

  it.effect("the sandbox: reads with no credentials, and nothing leaves the process", () =>
    Effect.gen(function* () {
      const report = yield* check({ courier: "sandbox", credentials: {}, wilayas: [16, 31], trackingNumbers: [] })
      assert.isTrue(CourierCheck.isClean(report), CourierCheck.render(report, "Sandbox"))
      assert.deepStrictEqual(report.exchanges, [])
    })
  )

  it.effect("reports an answer the adapter cannot read, and a raw status its table does not know", () =>
    Effect.gen(function* () {
      const { fakes } = yield* Harness
      const yalidine = platforms[0]!
      const trackingNumber = yield* createdFor(yalidine)
      fakes.yalidine.addHistory(trackingNumber, "Statut jamais documenté")
      // The fees answer in a shape no documentation shows.
      fakes.yalidine.misbehaveNext({ kind: "json", status: 200, body: { fees: "soon" } }, "/v1/fees/")
      const report = yield* check({
        courier: "yalidine",
        credentials: yalidine.credentials,
        fromWilaya: 16,
        wilayas: [16],
        trackingNumbers: [trackingNumber]
      })
      const text = CourierCheck.render(report, "Yalidine")
      assert.isFalse(CourierCheck.isClean(report))
      assert.deepStrictEqual(
        report.steps.filter((step) => step.outcome === "unreadable").map((step) => step.name),
        ["rates 16→16 home"],
        text
      )
      assert.deepStrictEqual(report.unknownStatuses, [{ rawStatus: "Statut jamais documenté", trackingNumber }])
      assert.include(text, 'raw status not in the adapter\'s table: "Statut jamais documenté"')
      assert.include(text, "READ rates 16→16 home")
      const unreadable = report.exchanges.find((exchange) => exchange.step === "rates 16→16 home")!
      assert.deepStrictEqual(
        unreadable.response.body,
        { json: { fees: "soon" } },
        "the answer to look into is recorded"
      )
    })
  )
})
