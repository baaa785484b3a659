/**
 * Issue 34 through the whole app in this process, one for the file (`AppInProcess`, paced at the declared limits):
 * where a courier's documented answer shows at the shipping API — Ecotrack's batch track with a number it does not
 * know (its documented 422 for the whole call), Ecotrack's fee rows with `tarif_stopdesk: "0"` in a rate comparison,
 * and Yalidine's per-second quota under twelve concurrent tracks on one account. The fakes answer as each courier's
 * documentation says (adapters/ecotrack/test/fake, adapters/yalidine/test/fake: their headers cite the sources).
 */
import { assert, layer } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import * as Ecotrack from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import * as Yalidine from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import { postJson } from "../AppProcess.ts"
import { type AppInProcess, startApp } from "./AppInProcess.ts"

class Harness extends Context.Service<
  Harness,
  { readonly ecotrack: Ecotrack.Fake; readonly yalidine: Yalidine.Fake; readonly app: AppInProcess }
>()("test/couriers/Documented/Harness") {}

/** A second Yalidine account, with quotas of its own, for the rate comparison. */
const QUOTE_ACCOUNT = { apiId: "31415926535897932384", apiToken: "fake-token-quotes-0a1b2c3d4e5f6a7b" }

const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const ecotrack = yield* Ecotrack.make({ tokens: [Ecotrack.TOKEN] })
    // The documented quotas (5 a second, 50 a minute…), counted in Yalidine's own windows on the real clock.
    const yalidine = yield* Yalidine.make({
      accounts: [{ apiId: Yalidine.API_ID, apiToken: Yalidine.API_TOKEN }, QUOTE_ACCOUNT]
    })
    const app = yield* startApp(
      {
        DATA_DIR: yield* TestDatabase.migratedDataDir,
        TAWSIL_COURIER_ORIGINS: [
          `https://platform.dhd-dz.com=${ecotrack.origin}`,
          `https://api.yalidine.app=${yalidine.origin}`
        ].join(","),
        SHIPPING_RATE_LIMIT_PER_MINUTE: "100000"
      },
      // The declared windows: the Yalidine check below is of the pace itself, against the fake's real-clock quotas.
      { within: 90_000, pace: 1 }
    )
    return { ecotrack, yalidine, app }
  })
)

// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
type Json = any

const post = (path: string, body: unknown) =>
  Effect.flatMap(Harness, ({ app }) => postJson(`${app.shippingUrl}${path}`, body))

const dhd = { courier: "dhd", credentials: { token: Ecotrack.TOKEN } }

const order = (reference: string) => ({
  reference,
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

layer(HarnessLive, { timeout: "120 seconds", excludeTestServices: true })(
  "issue 34: couriers' documented answers through the shipping API",
  (it) => {
    it.effect("Ecotrack: a batch track with one unknown number answers every known parcel", () =>
      // Ecotrack's `get/trackings/info` answers 422 for the whole call when one number is unknown ("The selected
      // trackings.1 is invalid.", its documented validation error): the known parcels used to get nothing.
      Effect.gen(function* () {
        const first = yield* post("/v1/orders", { ...dhd, order: order("doc-34-a") })
        const second = yield* post("/v1/orders", { ...dhd, order: order("doc-34-b") })
        assert.strictEqual(first.status, 200, first.text)
        assert.strictEqual(second.status, 200, second.text)
        const numbers = [first.json.trackingNumber, "ECTNONE000000034", second.json.trackingNumber]
        const batch = yield* post("/v1/track", { ...dhd, trackingNumbers: numbers })
        assert.strictEqual(batch.status, 200, batch.text)
        assert.deepStrictEqual(
          batch.json.results.map((result: Json) => [
            result.trackingNumber,
            "error" in result ? result.error.code : result.status
          ]),
          [
            [numbers[0], "pending_pickup"],
            [numbers[1], "courier_refused"],
            [numbers[2], "pending_pickup"]
          ]
        )
      })
    )

    it.effect("Ecotrack: a wilaya whose fee row has tarif_stopdesk '0' has no desk, and tops no comparison", () =>
      // The documented `get/fees` data: 23 wilayas with `"tarif_stopdesk": "0"`, none with a desk. Adrar (1) is one
      // in the fake; a 0 DA desk quote used to come first in the comparison.
      Effect.gen(function* () {
        const answer = yield* post("/v1/rates/compare", {
          couriers: [dhd, { courier: "yalidine", credentials: QUOTE_ACCOUNT, options: { fromWilaya: 16 } }],
          query: { fromWilaya: 16, toWilaya: 1, deliveryType: "stopdesk", codAmount: 4500 }
        })
        assert.strictEqual(answer.status, 200, answer.text)
        const quotes: ReadonlyArray<Json> = answer.json.quotes
        const byCourier = new Map(quotes.map((quote) => [quote.courier, quote]))
        assert.strictEqual(byCourier.get("dhd")?.error?.code, "courier_refused", answer.text)
        assert.isAbove(byCourier.get("yalidine")?.rates?.deliveryFee, 0, answer.text)
        assert.strictEqual(quotes[0].courier, "yalidine", "the priced quote first, the refusal after it")
        const single = yield* post("/v1/rates", { ...dhd, query: { toWilaya: 1, deliveryType: "stopdesk" } })
        assert.strictEqual(single.status, 422, single.text)
        assert.strictEqual(single.json.error.code, "courier_refused")
      })
    )

    it.effect(
      "Yalidine: twelve tracks at once on one account reach it at most 4 a second, each answered; none gets its 429",
      () =>
        // The docs: "per second 5 requests … per minute 50", reset "every new second"; "when you run over your quota
        // many times, your access to the API will be disabled for a period of time". The app keeps each account at
        // 80 % of every quota, evenly spaced.
        Effect.gen(function* () {
          const { yalidine } = yield* Harness
          const numbers = Array.from({ length: 12 }, (_, i) => `yal-DOC${String(i).padStart(3, "0")}`)
          for (const tracking of numbers) {
            yalidine.addParcel(tracking)
            yalidine.addHistory(tracking, "Centre")
          }
          const call = { courier: "yalidine", credentials: { apiId: Yalidine.API_ID, apiToken: Yalidine.API_TOKEN } }
          const before = yalidine.arrivals.length
          const answers = yield* Effect.forEach(
            numbers,
            (trackingNumber) => post("/v1/track", { ...call, trackingNumber }),
            {
              concurrency: "unbounded"
            }
          )
          for (const answer of answers) assert.strictEqual(answer.status, 200, answer.text)
          assert.deepStrictEqual(new Set(answers.map((answer) => answer.json.status)), new Set(["in_transit"]))
          const arrivals = yalidine.arrivals.slice(before)
          assert.lengthOf(arrivals, 12)
          // Yalidine counts in its own windows, "every new second": at most 4 in each. Measured by arrival on real
          // sockets, a second that starts anywhere may see one more when one request is delayed more than the next
          // (the slots themselves are 250 ms apart): never more than the documented 5.
          const perSecond = new Map<number, number>()
          for (const at of arrivals)
            perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1)
          assert.isAtMost(Math.max(...perSecond.values()), 4, "at most 4 of the 5 in each of Yalidine's seconds")
          const busiest = Math.max(
            ...arrivals.map((start) => arrivals.filter((at) => at >= start && at < start + 1000).length)
          )
          assert.isAtMost(busiest, 5, "never over the 5 a second, wherever the second starts")

          // The account's next slot is now well over a second away (50 a minute is paced at one every 1.5 s once
          // the first five have gone): a caller whose deadline comes before it is told so at once, as our own 429
          // with Retry-After, and nothing reaches the courier.
          const impatient = yield* post("/v1/track", {
            ...call,
            trackingNumber: numbers[0],
            options: { timeoutMs: 1000 }
          })
          assert.strictEqual(impatient.status, 429, impatient.text)
          assert.isAtLeast(Number(impatient.headers.get("retry-after")), 1)
          assert.lengthOf(yalidine.arrivals.slice(before), 12, "the refused track sent nothing")
        })
    )
  }
)
