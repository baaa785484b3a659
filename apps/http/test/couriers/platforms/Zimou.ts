/**
 * The Zimou Express suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of Zimou's documented
 * v3 API, through the app all six platforms share (`Platforms.ts`, in this process, real sockets). The app reaches
 * the fake only through TAWSIL_COURIER_ORIGINS; the adapter is found by discovery; the public dzship client,
 * unchanged, is one of the callers. The canary test leaves its log and database checks for after the app stops.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Fake, type Misbehaviour, TOKEN, ZimouFake } from "../../../../../adapters/zimou/test/fake/ZimouFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { type DzshipError, dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** A token no code path may ever print, store or return. */
const CANARY = "canary-zimou-token-5f2a8c1e9d"

const zimou = { courier: "zimou", credentials: { token: TOKEN } }

const order = {
  reference: "cmd-zim-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home" as const,
  productList: "1x robe",
  codAmount: 4500
}

/** A desk order to Zimou's office 311, in its commune. */
const deskOrder = {
  ...order,
  reference: "cmd-zim-desk",
  recipient: { ...order.recipient, wilayaCode: 31, communeName: "Bir El Djir" },
  deliveryType: "stopdesk" as const,
  stopDeskId: "311"
}

/** The fake, and the shared app whose Zimou origin points at it. */
class Setup extends Context.Service<
  Setup,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string }
>()("test/ZimouSetup") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = ZimouFake.layer({ tokens: [TOKEN, CANARY] })

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(ZimouFake, (fake) => originsOf({ zimou: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* ZimouFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | ZimouFake>) =>
  it.layer(SetupLive)("the shipping API with the Zimou adapter", (it) => {
    it.effect("lists Zimou with dzship's credential name and every capability, and finds it by alias", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=zimou`)
        assert.strictEqual(status, 200)
        assert.lengthOf(body, 1)
        assert.deepInclude(body[0], {
          key: "zimou",
          name: "Zimou Express",
          platform: "zimou",
          requiredCredentials: ["token"],
          endpoint: "https://zimou.express"
        })
        assert.deepStrictEqual(body[0].capabilities, {
          create: true,
          track: true,
          rates: true,
          label: true,
          cancel: true,
          dispatch: false,
          trackBatch: true,
          createBatch: false,
          stopDesks: true,
          communes: true,
          checkCredentials: true,
          push: false
        })
        const found = yield* getJson(`${app.shippingUrl}/v1/couriers?q=zimou_express`)
        assert.deepStrictEqual(
          (found.body as ReadonlyArray<{ key: string }>).map((entry) => entry.key),
          ["zimou"]
        )
      })
    )

    it.effect("creates (Zimou's code, the partner's as courierReference), tracks, prices and labels", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", { ...zimou, order: { ...order, tier: "economic" } })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "created")
        assert.strictEqual(created.json.reference, "cmd-zim-1")
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^ZM-\d{6}$/)
        const parcel = fake.parcels.get(trackingNumber)!
        assert.strictEqual(parcel.fields.delivery_type, "Flexible", "the economic tier is Zimou's Flexible")
        assert.strictEqual(created.json.courierReference, parcel.partnerCode)
        assert.match(created.json.courierReference, /^yal-/, "routed to Yalidine")

        fake.setClock("2026-04-20 13:02:33")
        fake.setStatus(trackingNumber, 7)
        const tracked = yield* post(app, "/v1/track", { ...zimou, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "out_for_delivery")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "out_for_delivery", rawStatus: "7", timestamp: "2026-04-20T14:02:33+01:00" }
        ])

        const rates = yield* post(app, "/v1/rates", {
          ...zimou,
          query: { toWilaya: 31, deliveryType: "home", tier: "economic" }
        })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.strictEqual(rates.json.tier, "economic")
        assert.strictEqual(rates.json.deliveryFee, 600)
        assert.strictEqual(rates.json.returnFee, 200)
        assert.strictEqual(rates.json.total, 600)
        assert.lengthOf(rates.json.options, 3)

        const label = yield* post(app, "/v1/labels", { ...zimou, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.include(label.headers.get("content-type") ?? "", "application/pdf")
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, trackingNumber)

        const reached = fake.requests.slice(before)
        assert.deepStrictEqual(paths(reached), [
          // Zimou lists its communes: the create reads them (and its offices, for the desk flags) first.
          "GET /api/v3/helpers/communes",
          "GET /api/v3/helpers/offices",
          "POST /api/v3/packages",
          "GET /api/v3/packages/status",
          "GET /api/v3/my/prices",
          "POST /api/v3/packages/labels"
        ])
        assert.deepStrictEqual(reached[3]?.query, { "packages[]": trackingNumber })
        for (const request of reached) assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`)
      })
    )

    it.effect("a desk order goes to its office as Point relais; without one it is refused before any call", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const created = yield* post(app, "/v1/orders", { ...zimou, order: deskOrder })
        assert.strictEqual(created.status, 200, created.text)
        const parcel = fake.parcels.get(created.json.trackingNumber)!
        assert.strictEqual(parcel.fields.delivery_type, "Point relais")
        assert.strictEqual(parcel.fields.office_id, 311)
        assert.strictEqual(created.json.courierReference, parcel.partnerCode)

        const before = fake.requests.length
        const { stopDeskId: _, ...withoutOffice } = deskOrder
        const refused = yield* post(app, "/v1/orders", { ...zimou, order: withoutOffice })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.strictEqual(refused.json.error.code, "courier_refused")
        assert.include(refused.json.error.message, "order.stopDeskId")
        // The commune list (Zimou reads it from its communes and offices) was read by the create above and is kept by
        // the host (decision 0035): the adapter refuses before any call.
        assert.deepStrictEqual(paths(fake.requests.slice(before)), [], "no parcel was sent")

        // Hydra has a desk of its own (the host's commune check lets it through): Zimou refuses office 311 there.
        const elsewhere = yield* post(app, "/v1/orders", {
          ...zimou,
          order: { ...deskOrder, recipient: { ...deskOrder.recipient, wilayaCode: 16, communeName: "Hydra" } }
        })
        assert.strictEqual(elsewhere.status, 422, elsewhere.text)
        assert.strictEqual(elsewhere.json.error.code, "courier_refused")
        assert.include(elsewhere.json.error.message, "La commune doit être celle du point relais (Bir El Djir)")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices through zimou, and sees a 429", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const client = dzship({ ...zimou, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder({ ...order, reference: "cmd-zim-dz" }))
        assert.match(created.trackingNumber, /^ZM-\d{6}$/)
        assert.strictEqual(created.status, "created")
        fake.setClock("2026-04-21 08:00:00")
        fake.setStatus(created.trackingNumber, 8)
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "delivered")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["8"]
        )
        const priced = yield* Effect.promise(() => client.rates({ toWilaya: 16, deliveryType: "stopdesk" }))
        assert.strictEqual(priced.deliveryFee, 250)

        fake.misbehaveNext({ kind: "rateLimited", retryAfter: "42" })
        const limited: DzshipError = yield* rejected(client.rates({ toWilaya: 16, deliveryType: "home" }))
        assert.strictEqual(limited.name, "DzshipError")
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.code, "rate_limited")
        assert.strictEqual(limited.retryAfter, 42)
      })
    )

    // Last: it stops the app to read its database.
    it.effect("the canary token appears in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const call = { courier: "zimou", credentials: { token: CANARY } }
        const bodies: Array<string> = []
        const record = (response: { readonly text: string }) => bodies.push(response.text)
        const created = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-zim-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-zim-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } }))
        const label = yield* post(app, "/v1/labels", { ...call, trackingNumber })
        assert.strictEqual(label.status, 200)
        bodies.push(label.latin1)
        for (const misbehaviour of [
          { kind: "status", status: 500 },
          { kind: "html" },
          { kind: "refuse", message: "Solde insuffisant" },
          { kind: "echoToken" },
          { kind: "rateLimited", retryAfter: "7" },
          { kind: "reset" }
        ] satisfies ReadonlyArray<Misbehaviour>) {
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/orders", { ...call, order }))
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        }
        record(yield* post(app, "/v1/orders", { ...call, order: { ...order, deliveryType: "stopdesk" } }))
        record(yield* post(app, "/v1/orders", { ...call, order: { ...order, codAmount: -1 } }))
        record(yield* post(app, "/v1/orders", { ...call, credentials: { token: CANARY, extra: CANARY }, order }))
        record(yield* post(app, "/v1/orders", { ...call, credentials: { token: `${CANARY} x` }, order }))
        const revoked = yield* post(app, "/v1/orders", { ...call, credentials: { token: `${CANARY}-revoked` }, order })
        assert.strictEqual(revoked.json?.error?.code, "credentials_rejected", revoked.text)
        record(revoked)

        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "the courier's refusal quoting the token reached the caller redacted"
        )
        assert.isAbove(
          fake.requests.filter((request) => request.headers.authorization === `Bearer ${CANARY}`).length,
          10,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 15)
          assert.include(everything, "canary-zim-1", "the idempotency record was stored")
          assert.isAbove(app.stdout().split("\n").length, 20, "the app logged")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
            assert.notInclude(text, encodeURIComponent(CANARY), `the canary leaked into ${where}`)
          }
        })
      })
    )
  })
