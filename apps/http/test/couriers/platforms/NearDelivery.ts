/**
 * The Near Delivery suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of its documented API,
 * through the app all six platforms share (`Platforms.ts`, in this process, real sockets). The app reaches the fake
 * only through TAWSIL_COURIER_ORIGINS; the adapter is found by discovery; the public dzship client, unchanged, is one
 * of the callers. Every parcel goes to a relay point: a home delivery is refused with that reason and reaches no one.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import {
  API_KEY,
  API_SECRET,
  type Fake,
  fee,
  type Misbehaviour,
  NearDeliveryFake
} from "../../../../../adapters/neardelivery/test/fake/NearDeliveryFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** Credentials no code path may ever print, store or return: an API key and its secret. */
const CANARY_KEY = "canary-near-key-5d1b7e3a9c20"
const CANARY_SECRET = "canary-near-secret-8f4c2a6e0b71"
const CANARIES = [CANARY_KEY, CANARY_SECRET]

const near = { courier: "neardelivery", credentials: { apiKey: API_KEY, apiSecret: API_SECRET } }

const order = {
  reference: "cmd-near-1",
  recipient: { fullName: "Amina Benali", phone: "0555123456", wilayaCode: 16, communeName: "Bab Ezzouar" },
  deliveryType: "stopdesk" as const,
  stopDeskId: "101",
  productList: "1x robe",
  codAmount: 4500
}
const { stopDeskId: _, ...withoutDesk } = order
/** The same order to the door: what Near Delivery does not do. */
const homeOrder = { ...withoutDesk, deliveryType: "home" as const }

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

/** The fake, and the shared app whose Near Delivery origin points at it. */
class Near extends Context.Service<
  Near,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string }
>()("test/couriers/NearDelivery") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = NearDeliveryFake.layer({
  accounts: [
    [API_KEY, API_SECRET],
    [CANARY_KEY, CANARY_SECRET]
  ]
})

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(NearDeliveryFake, (fake) => originsOf({ near: fake }))

const NearLive = Layer.effect(
  Near,
  Effect.gen(function* () {
    const fake = yield* NearDeliveryFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | NearDeliveryFake>) =>
  it.layer(NearLive)("the shipping API with the Near Delivery adapter", (it) => {
    it.effect("lists Near Delivery with dzship's credential names, three capabilities and its pinned origin", () =>
      Effect.gen(function* () {
        const { app } = yield* Near
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=neardelivery`)
        assert.strictEqual(listed.status, 200)
        assert.lengthOf(listed.body, 1)
        const [entry] = listed.body
        assert.deepInclude(entry, {
          key: "neardelivery",
          name: "Near Delivery",
          platform: "neardelivery",
          requiredCredentials: ["apiKey", "apiSecret"],
          endpoint: "https://api.neardelivery.app"
        })
        assert.deepInclude(entry.capabilities, { create: true, track: true, rates: true, label: false })
        const found = yield* getJson(`${app.shippingUrl}/v1/couriers?q=near_delivery`)
        assert.deepStrictEqual(
          (found.body as ReadonlyArray<{ key: string }>).map(({ key }) => key),
          ["neardelivery"]
        )
      })
    )

    it.effect("creates to a buralist, tracks, prices; the label is unsupported; each call reaches the fake", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Near
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", { ...near, order })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "pending_pickup")
        assert.strictEqual(created.json.reference, "cmd-near-1")
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^NRD\d{8}$/)
        assert.match(created.json.courierReference, /^\d+$/)
        assert.strictEqual(fake.parcels.get(trackingNumber)?.fields.buralist_id, 101)

        fake.setClock("2026-04-19T08:12:40Z")
        fake.addStatus(trackingNumber, "2")
        fake.setClock("2026-04-20T09:00:00Z")
        fake.addStatus(trackingNumber, "6")
        const tracked = yield* post(app, "/v1/track", { ...near, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "at_stopdesk")
        assert.deepStrictEqual(tracked.json.events.slice(1), [
          { status: "picked_up", rawStatus: "2", timestamp: "2026-04-19T09:12:40+01:00" },
          { status: "at_stopdesk", rawStatus: "6", timestamp: "2026-04-20T10:00:00+01:00" }
        ])
        assert.deepInclude(tracked.json.events[0], { status: "pending_pickup", rawStatus: "0" })

        const rates = yield* post(app, "/v1/rates", {
          ...near,
          options: { fromWilaya: 16 },
          query: { toWilaya: 31, deliveryType: "stopdesk", codAmount: 4500 }
        })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.deepInclude(rates.json, {
          deliveryType: "stopdesk",
          tier: "economic",
          deliveryFee: fee(16, 31)[0],
          returnFee: fee(16, 31)[1],
          codFee: 0,
          total: fee(16, 31)[0],
          currency: "DZD"
        })

        const sent = fake.requests.length
        const label = yield* post(app, "/v1/labels", { ...near, trackingNumber })
        assert.strictEqual(label.status, 400, label.text)
        assert.strictEqual(label.json.error.code, "unsupported")
        assert.strictEqual(fake.requests.length, sent, "no label request reached the courier")

        assert.deepStrictEqual(paths(fake.requests.slice(before)), [
          // The create reads Near Delivery's communes first (sender/wilayas), to check it serves the commune.
          "GET /api/v1/sender/wilayas",
          "POST /api/v1/sender/parcels",
          `GET /api/v1/sender/parcels/${trackingNumber}`,
          "GET /api/v1/sender/delivery-fees"
        ])
        for (const request of fake.requests.slice(before)) {
          assert.strictEqual(request.headers.apikey, API_KEY)
          assert.strictEqual(request.headers.apisecret, API_SECRET)
        }
      })
    )

    it.effect("refuses a home delivery and a home quote with the relay-point rule; nothing reaches the courier", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Near
        const parcels = fake.parcels.size
        // Near Delivery lists every commune as relay point only (home false): the commune check answers 422
        // commune_not_served from that list (read once and kept by the host, decision 0035), and no parcel is sent.
        const sentBefore = fake.requests.length
        const notServed = yield* post(app, "/v1/orders", { ...near, order: homeOrder })
        assert.strictEqual(notServed.status, 422, notServed.text)
        assert.strictEqual(notServed.json.error.code, "commune_not_served")
        assert.include(notServed.json.error.message, "does not deliver to the door in Bab Ezzouar")
        const sent = paths(fake.requests.slice(sentBefore))
        assert.isAtMost(sent.length, 1)
        assert.includeMembers(["GET /api/v1/sender/wilayas"], sent, "at most the list was read")
        assert.strictEqual(fake.parcels.size, parcels, "no parcel created")
        // The adapter's own relay-point rule, the commune unchecked (resolveCommune: false): nothing is sent at all.
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", {
          ...near,
          options: { resolveCommune: false },
          order: homeOrder
        })
        assert.strictEqual(created.status, 422, created.text)
        assert.strictEqual(created.json.error.code, "courier_refused")
        assert.include(created.json.error.message, "relay point")
        assert.include(created.json.error.message, 'send deliveryType "stopdesk" with stopDeskId')
        const quoted = yield* post(app, "/v1/rates", {
          ...near,
          options: { fromWilaya: 16 },
          query: { toWilaya: 31, deliveryType: "home" }
        })
        assert.strictEqual(quoted.status, 422, quoted.text)
        assert.include(quoted.json.error.message, "relay point")
        assert.strictEqual(fake.requests.length, before, "no request for a home delivery")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices, and sees the relay-point refusal", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Near
        const client = dzship({ ...near, options: { fromWilaya: 16 }, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder(order))
        assert.match(created.trackingNumber, /^NRD/)
        assert.strictEqual(created.status, "pending_pickup")
        fake.addStatus(created.trackingNumber, "7")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "delivered")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["0", "7"]
        )
        const priced = yield* Effect.promise(() => client.rates({ toWilaya: 25, deliveryType: "stopdesk" }))
        assert.strictEqual(priced.deliveryFee, fee(16, 25)[0])
        // A home delivery: Near Delivery serves no commune at the door (its commune list), 422 commune_not_served.
        const notServed = yield* rejected(client.createOrder(homeOrder))
        assert.strictEqual(notServed.name, "DzshipError")
        assert.strictEqual(notServed.status, 422)
        assert.strictEqual(notServed.code, "commune_not_served")
        assert.include(notServed.message, "does not deliver to the door")
        // The adapter's relay-point rule itself, the commune sent unchecked (resolveCommune: false).
        // (dzship passes `options` on as given; its types predate resolveCommune.)
        const uncheckedOptions = { fromWilaya: 16, resolveCommune: false }
        const unchecked = dzship({ ...near, options: uncheckedOptions, gateway: app.shippingUrl })
        const refused = yield* rejected(unchecked.createOrder(homeOrder))
        assert.strictEqual(refused.name, "DzshipError")
        assert.strictEqual(refused.status, 422)
        assert.strictEqual(refused.code, "courier_refused")
        assert.include(refused.message, "relay point")
      })
    )

    // Last: it stops the app to read its database.
    it.effect("the canary key and secret appear in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Near
        const call = { courier: "near_delivery", credentials: { apiKey: CANARY_KEY, apiSecret: CANARY_SECRET } }
        const bodies: Array<string> = []
        const record = (response: { readonly text: string }) => bodies.push(response.text)
        const created = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-near-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-near-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        record(
          yield* post(app, "/v1/rates", { ...call, query: { fromWilaya: 16, toWilaya: 31, deliveryType: "stopdesk" } })
        )
        record(yield* post(app, "/v1/labels", { ...call, trackingNumber }))
        record(yield* post(app, "/v1/orders", { ...call, order: homeOrder }))
        for (const misbehaviour of [
          { kind: "status", status: 500 },
          { kind: "html" },
          { kind: "refuse", message: "Compte suspendu" },
          { kind: "echoKey" },
          { kind: "rateLimited", retryAfter: "7" },
          { kind: "reset" }
        ] satisfies ReadonlyArray<Misbehaviour>) {
          // A create reads the communes first: each misbehaviour once on that read, once on the parcel's POST.
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/orders", { ...call, order }))
          fake.misbehaveNext(misbehaviour, "/api/v1/sender/parcels")
          record(yield* post(app, "/v1/orders", { ...call, order }))
        }
        fake.misbehaveNext({ kind: "echoKey" })
        record(yield* post(app, "/v1/track", { ...call, trackingNumber }))
        record(yield* post(app, "/v1/track", { ...call, trackingNumber: "NRD99999999" }))
        for (const credentials of [
          { apiKey: CANARY_KEY, apiSecret: CANARY_SECRET, extra: CANARY_SECRET },
          { apiKey: `${CANARY_KEY} x`, apiSecret: CANARY_SECRET },
          { apiKey: CANARY_KEY, apiSecret: `${CANARY_SECRET}\n` },
          { apiKey: `${CANARY_KEY}-revoked`, apiSecret: CANARY_SECRET },
          { apiKey: CANARY_KEY }
        ]) {
          record(yield* post(app, "/v1/orders", { ...call, credentials, order }))
        }
        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "the courier's refusal quoting the key reached the caller redacted"
        )
        assert.isAbove(
          fake.requests.filter((request) => request.headers.apikey === CANARY_KEY).length,
          5,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 15)
          assert.include(everything, "canary-near-1", "the idempotency record was stored")
          assert.isAbove(app.stdout().split("\n").length, 20, "the app logged")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            for (const canary of CANARIES) {
              assert.notInclude(text, canary, `the canary leaked into ${where}`)
              assert.notInclude(text, encodeURIComponent(canary), `the canary leaked into ${where}`)
            }
          }
        })
      })
    )
  })
