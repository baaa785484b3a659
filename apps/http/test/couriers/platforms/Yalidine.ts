/**
 * The Yalidine-engine suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of the engine's
 * documented API, through the app the platforms' suites share (`Platforms.ts`, in this process, real sockets). The app
 * reaches the fake only through TAWSIL_COURIER_ORIGINS; the public dzship client, unchanged, is one of the callers.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Fake, type Misbehaviour, YalidineFake } from "../../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** Credentials no code path may ever print, store or return: an API id and a token. */
const CANARY_ID = "canary-id-51e0c7a94d2b"
const CANARY_TOKEN = "canary-token-3b8f06d1e7c5a2"
const ACCOUNT = { apiId: "94986571734304520846", apiToken: "fake-token-5MKfvcyQtO3eouL6tDv0VDFh" }
/** An account whose courier quota is 3 requests a minute: the fourth gets the courier's own 429. */
const SMALL = { apiId: "small-account-0001", apiToken: "small-token-6tDv0VDFh5MKf" }

const order = {
  reference: "cmd-yal-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 31,
    communeName: "Bir El Djir",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home" as const,
  productList: "1x robe",
  codAmount: 4500
}

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/**
 * The fake network and the shared app whose Yalidine and Guepex origins point at it. The fake counts quotas on a
 * clock the tests may move on (`skipToNextMinute`); the accounts other than the small one have quotas to spare, as
 * the app here paces them on windows a thousandth as long (`AppInProcess`; `couriers/Documented` checks the pace
 * against the documented quotas).
 */
class Setup extends Context.Service<
  Setup,
  {
    readonly fake: Fake
    readonly app: AppInProcess
    readonly dataDir: string
    /** Moves the fake's clock on to the start of its next minute, where its minute quotas turn over. */
    readonly skipToNextMinute: () => void
  }
>()("test/Yalidine/Setup") {}

const generous = { second: 1000, minute: 10_000, hour: 100_000, day: 1_000_000 }

/** The fake's clock runs this far ahead of real time (`skipToNextMinute`). */
let skew = 0

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = YalidineFake.layer({
  // Label links in the 2026 transcription's form, on the API's own host (the docs' bordereau links are on
  // yalidine.app, Yalidine's own domain, which Guepex does not declare: adapters/yalidine/test covers them).
  accounts: [
    { ...ACCOUNT, quotas: generous },
    { apiId: CANARY_ID, apiToken: CANARY_TOKEN, quotas: generous },
    { ...SMALL, quotas: { minute: 3 } }
  ],
  labelLinks: "api",
  now: () => Date.now() + skew
})

/** The origins this fake stands for: Yalidine's and Guepex's. */
export const origins = Effect.map(YalidineFake, (fake) => originsOf({ yalidine: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* YalidineFake
    const { app, dataDir } = yield* Platforms
    const skipToNextMinute = () => {
      skew += 60_000 - ((Date.now() + skew) % 60_000)
    }
    return { fake, app, dataDir, skipToNextMinute }
  })
)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fakes. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | YalidineFake>) =>
  it.layer(SetupLive)("the shipping API with the Yalidine-engine adapter", (it) => {
    it.effect("lists the six networks with their credentials and capabilities, and finds one by alias", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=yalidine`)
        assert.strictEqual(listed.status, 200)
        const entries = listed.body as ReadonlyArray<{
          key: string
          requiredCredentials: ReadonlyArray<string>
          capabilities: Record<string, boolean>
          endpoint: string
        }>
        assert.deepStrictEqual(
          entries.map((entry) => entry.key),
          ["easyandspeed", "economiqua", "guepex", "wecan", "yalidine", "yalitec"]
        )
        for (const entry of entries) {
          assert.deepStrictEqual(entry.requiredCredentials, ["apiId", "apiToken"])
          // Every network of the engine has all nine operations (adapters/yalidine/README.md, capabilities).
          assert.deepStrictEqual(entry.capabilities, {
            create: true,
            track: true,
            rates: true,
            label: true,
            cancel: true,
            dispatch: false,
            trackBatch: true,
            createBatch: true,
            stopDesks: true,
            communes: true,
            checkCredentials: true,
            push: true
          })
          assert.match(entry.endpoint, /^https:\/\/api\.[a-z]+\.(app|me)$/)
        }
        const found = yield* getJson(`${app.shippingUrl}/v1/couriers?q=easy_and_speed`)
        assert.deepStrictEqual(
          (found.body as ReadonlyArray<{ key: string }>).map((entry) => entry.key),
          ["easyandspeed"]
        )
      })
    )

    it.effect("creates, tracks, prices and labels through Guepex's pinned origin, each call reaching the fake", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const before = fake.requests.length
        const call = { courier: "guepex", credentials: ACCOUNT, options: { fromWilaya: 16 } }
        const created = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "created")
        assert.strictEqual(created.json.reference, "cmd-yal-1")
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^yal-/)
        assert.strictEqual(created.json.labelUrl, `https://api.yalidine.app/labels/${trackingNumber}`)

        fake.setClock("2026-04-19 09:12:40")
        fake.addHistory(trackingNumber, "Ramassé")
        fake.setClock("2026-04-20 08:05:12")
        fake.addHistory(trackingNumber, "Sorti en livraison")
        const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "out_for_delivery")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "picked_up", rawStatus: "Ramassé", timestamp: "2026-04-19T09:12:40+01:00" },
          { status: "out_for_delivery", rawStatus: "Sorti en livraison", timestamp: "2026-04-20T08:05:12+01:00" }
        ])

        const rates = yield* post(app, "/v1/rates", {
          ...call,
          query: { toWilaya: 31, toCommune: "Bir El Djir", deliveryType: "stopdesk", tier: "economic", codAmount: 4500 }
        })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.strictEqual(rates.json.currency, "DZD")
        assert.strictEqual(rates.json.tier, "economic")
        assert.strictEqual(rates.json.deliveryType, "stopdesk")
        assert.strictEqual(rates.json.codFee, 34)
        assert.strictEqual(rates.json.total, rates.json.deliveryFee + 34)
        assert.lengthOf(rates.json.options, 4)

        const label = yield* post(app, "/v1/labels", { ...call, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.strictEqual(label.headers.get("content-type"), "application/pdf")
        assert.isTrue(label.bytes.toString("latin1").startsWith("%PDF-"))
        assert.include(label.bytes.toString("latin1"), trackingNumber)

        const requests = fake.requests.slice(before)
        assert.deepStrictEqual(
          requests.map(({ method, path }) => `${method} ${path}`),
          [
            // The create reads the wilaya's communes first, to send the commune in Yalidine's spelling.
            "GET /v1/communes/",
            "POST /v1/parcels/",
            `GET /v1/histories/${trackingNumber}`,
            "GET /v1/fees/",
            // The label is the parcel's own documented link: read first, then fetched (issue 34).
            `GET /v1/parcels/${trackingNumber}`,
            `GET /labels/${trackingNumber}`
          ]
        )
        assert.strictEqual(requests[0]?.query.wilaya_id, "31", "the recipient's wilaya (Oran)")
        assert.deepStrictEqual(requests[3]?.query, { from_wilaya_id: "16", to_wilaya_id: "31" })
        for (const request of requests) {
          assert.strictEqual(request.headers["x-api-id"], ACCOUNT.apiId)
          assert.strictEqual(request.headers["x-api-token"], ACCOUNT.apiToken)
        }

        const noOrigin = yield* post(app, "/v1/orders", { courier: "yalidine", credentials: ACCOUNT, order })
        assert.strictEqual(noOrigin.status, 422)
        assert.strictEqual(noOrigin.json.error.code, "courier_refused")
        assert.include(noOrigin.json.error.message, "options.fromWilaya")
        const baseUrl = yield* post(app, "/v1/track", {
          ...call,
          options: { baseUrl: "https://api.guepex.app" },
          trackingNumber
        })
        assert.strictEqual(baseUrl.status, 400, "a pinned network takes no baseUrl")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices through yalidine, and sees a courier 429", () =>
      Effect.gen(function* () {
        const { fake, app, skipToNextMinute } = yield* Setup
        const client = dzship({
          courier: "yalidine",
          credentials: ACCOUNT,
          options: { fromWilaya: 16 },
          gateway: app.shippingUrl
        })
        const created = yield* Effect.promise(() => client.createOrder(order))
        assert.match(created.trackingNumber, /^yal-/)
        assert.strictEqual(created.status, "created")
        fake.setClock("2026-04-19 09:12:40")
        fake.addHistory(created.trackingNumber, "Ramassé")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "picked_up")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["Ramassé"]
        )
        const priced = yield* Effect.promise(() =>
          client.rates({ toWilaya: 31, deliveryType: "home", codAmount: 4500 })
        )
        // Without a tier, the economic one: what a create without one is made in (issue 34).
        assert.strictEqual(priced.tier, "economic")
        assert.isAbove(priced.deliveryFee, 0)

        // The courier says it is limiting the account: DzshipError with the courier's Retry-After.
        fake.misbehaveNext({ kind: "rateLimited", retryAfter: "42" })
        const limited = yield* rejected(client.rates({ toWilaya: 31, deliveryType: "home" }))
        assert.strictEqual(limited.name, "DzshipError")
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.code, "rate_limited")
        assert.strictEqual(limited.retryAfter, 42)

        // An account past its real quota (3 a minute here): the courier's own 429, its wait read from its headers —
        // until Yalidine's next minute, which turns over "every new minute" (issue 34), whenever the account began.
        const small = dzship({
          courier: "yalidine",
          credentials: SMALL,
          options: { fromWilaya: 16 },
          gateway: app.shippingUrl
        })
        // Four calls in one of Yalidine's minutes: begun at its start, not in its last seconds.
        skipToNextMinute()
        for (let i = 0; i < 3; i++) {
          yield* Effect.promise(() => small.rates({ toWilaya: 31, deliveryType: "home" }))
        }
        const spent = yield* rejected(small.rates({ toWilaya: 31, deliveryType: "home" }))
        assert.strictEqual(spent.status, 429)
        assert.strictEqual(spent.code, "rate_limited")
        assert.isAtLeast(spent.retryAfter ?? 0, 1)
        assert.isAtMost(spent.retryAfter ?? 0, 60)
        assert.strictEqual(
          fake.requests.filter((request) => request.headers["x-api-id"] === SMALL.apiId).length,
          4,
          "the fourth reached the courier, which refused it"
        )
      })
    )

    // Last: it stops the app, to read its database.
    it.effect("the canary credentials appear in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const call = {
          courier: "yalidine",
          credentials: { apiId: CANARY_ID, apiToken: CANARY_TOKEN },
          options: { fromWilaya: 16 }
        }
        const bodies: Array<string> = []
        const record = (response: { readonly text: string }) => bodies.push(response.text)
        const created = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-yal-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-yal-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "stopdesk" } }))
        record(yield* post(app, "/v1/labels", { ...call, trackingNumber }))
        for (const misbehaviour of [
          { kind: "status", status: 500 } as const,
          { kind: "html" },
          { kind: "refuseParcel", message: "Refus" },
          { kind: "echoToken" },
          { kind: "rateLimited", retryAfter: "7" },
          { kind: "reset" }
        ] satisfies ReadonlyArray<Misbehaviour>) {
          // A create reads Yalidine's communes first: each misbehaviour once on that read, once on the parcel's POST.
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/orders", { ...call, order }))
          fake.misbehaveNext(misbehaviour, "/v1/parcels/")
          record(yield* post(app, "/v1/orders", { ...call, order }))
        }
        fake.misbehaveNext({ kind: "echoToken" })
        record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        record(yield* post(app, "/v1/orders", { ...call, order: { ...order, codAmount: -1 } }))
        record(
          yield* post(app, "/v1/orders", {
            ...call,
            credentials: { apiId: CANARY_ID, apiToken: CANARY_TOKEN, extra: CANARY_TOKEN },
            order
          })
        )
        record(
          yield* post(app, "/v1/orders", {
            ...call,
            credentials: { apiId: CANARY_ID, apiToken: `${CANARY_TOKEN} x` },
            order
          })
        )
        record(
          yield* post(app, "/v1/orders", {
            ...call,
            credentials: { apiId: CANARY_ID, apiToken: `${CANARY_TOKEN}-revoked` },
            order
          })
        )
        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "the courier's refusal quoting the token reached the caller redacted"
        )
        assert.isAbove(
          fake.requests.filter((request) => request.headers["x-api-token"] === CANARY_TOKEN).length,
          5,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 12)
          assert.include(everything, "canary-yal-1", "the idempotency record was stored")
          assert.isAbove(app.stdout().split("\n").length, 20, "the app logged")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            for (const canary of [CANARY_ID, CANARY_TOKEN]) {
              assert.notInclude(text, canary, `the canary leaked into ${where}`)
              assert.notInclude(text, encodeURIComponent(canary), `the canary leaked into ${where}`)
            }
          }
        })
      })
    )
  })
