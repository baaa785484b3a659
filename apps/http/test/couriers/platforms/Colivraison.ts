/**
 * The Colivraison Express suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of the API its
 * one public integration calls, through the app all six platforms share (`Platforms.ts`, in this process). The app
 * reaches the fake only through TAWSIL_COURIER_ORIGINS; the adapter is found by discovery; the public dzship client,
 * unchanged, is one of the callers. The canary test leaves its log and database checks for after the app stops.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import {
  ColivraisonFake,
  type Fake,
  type Misbehaviour,
  PUBLIC_KEY,
  TOKEN,
  tariff
} from "../../../../../adapters/colivraison/test/fake/ColivraisonFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** Credentials no code path may ever print, store or return: a public key and an access token. */
const CANARY_KEY = "canary-coliv-key-7b1e4d90c2a6"
const CANARY_TOKEN = "canary-coliv-token-2f8a6c3e9d15"
const CANARIES = [CANARY_KEY, CANARY_TOKEN]

const ORIGIN = "https://api.colivraison.express"

const colivraison = { courier: "colivraison", credentials: { publicKey: PUBLIC_KEY, token: TOKEN } }
const canary = { courier: "colivraison", credentials: { publicKey: CANARY_KEY, token: CANARY_TOKEN } }

const order = {
  reference: "cmd-coliv-1",
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

/** The fake, and the shared app whose Colivraison origin points at it. */
class Setup extends Context.Service<
  Setup,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string }
>()("test/couriers/Colivraison/Setup") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = ColivraisonFake.layer({
  accounts: [
    [PUBLIC_KEY, TOKEN],
    [CANARY_KEY, CANARY_TOKEN]
  ]
})

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(ColivraisonFake, (fake) => originsOf({ colivraison: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* ColivraisonFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | ColivraisonFake>) =>
  it.layer(SetupLive)("the shipping API with the Colivraison adapter", (it) => {
    it.effect("lists Colivraison with the dzship credential names, its capabilities and its pinned origin", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=colivraison`)
        assert.strictEqual(listed.status, 200)
        assert.lengthOf(listed.body, 1)
        const [entry] = listed.body
        assert.deepInclude(entry, {
          key: "colivraison",
          platform: "colivraison",
          requiredCredentials: ["publicKey", "token"],
          endpoint: ORIGIN
        })
        assert.deepInclude(entry.capabilities, { create: true, track: true, rates: true, label: true })
        const byAlias = yield* getJson(`${app.shippingUrl}/v1/couriers?q=colivraison_express`)
        assert.deepStrictEqual(
          (byAlias.body as ReadonlyArray<{ key: string }>).map(({ key }) => key),
          ["colivraison"]
        )
      })
    )

    it.effect("creates, tracks, prices and labels, each call reaching the fake with both credentials in headers", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", { ...colivraison, order })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "created")
        assert.strictEqual(created.json.reference, "cmd-coliv-1")
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^CLX\d{8}$/)
        const stored = fake.parcels.get(trackingNumber)
        assert.strictEqual(stored?.fields.wilaya_name, "Oran")
        assert.strictEqual(stored?.fields.order_ref, "cmd-coliv-1")

        fake.setClock("2026-04-19", "09:12:40")
        fake.addStatus(trackingNumber, "AWAITING_TRANSIT")
        fake.setClock("2026-04-20", "08:05:12")
        fake.addStatus(trackingNumber, "OUT_FOR_DELIVERY")
        const tracked = yield* post(app, "/v1/track", { ...colivraison, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "out_for_delivery")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "created", rawStatus: "PLACED", timestamp: "2026-04-18T19:45:06+01:00" },
          { status: "picked_up", rawStatus: "AWAITING_TRANSIT", timestamp: "2026-04-19T09:12:40+01:00" },
          { status: "out_for_delivery", rawStatus: "OUT_FOR_DELIVERY", timestamp: "2026-04-20T08:05:12+01:00" }
        ])
        assert.notProperty(tracked.json, "cod", "Colivraison reports no cash status")

        const rates = yield* post(app, "/v1/rates", {
          ...colivraison,
          query: { fromWilaya: 16, toWilaya: 31, deliveryType: "home", codAmount: 4500 }
        })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.deepInclude(rates.json, {
          deliveryType: "home",
          deliveryFee: tariff(31),
          returnFee: 0,
          codFee: 0,
          total: tariff(31),
          currency: "DZD"
        })
        const desk = yield* post(app, "/v1/rates", {
          ...colivraison,
          query: { toWilaya: 31, deliveryType: "stopdesk" }
        })
        assert.strictEqual(desk.status, 422, desk.text)
        assert.strictEqual(desk.json.error.code, "courier_refused")

        const label = yield* post(app, "/v1/labels", { ...colivraison, trackingNumber })
        assert.strictEqual(label.status, 200, label.text)
        assert.strictEqual(label.headers.get("content-type"), "application/pdf")
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, trackingNumber)

        const calls = fake.requests.slice(before)
        assert.deepStrictEqual(paths(calls), [
          "POST /v2/orders/bulk",
          "POST /v2/trackinghistory/bulk",
          "GET /v2/getpricing",
          "POST /v2/generate-download-pdfx1"
        ])
        for (const request of calls) {
          assert.strictEqual(request.headers.authorization, `Bearer ${TOKEN}`)
          assert.strictEqual(request.headers["coliv-public-key"], PUBLIC_KEY)
          assert.deepStrictEqual(request.query, {})
        }

        const atlantis = { ...order, recipient: { ...order.recipient, communeName: "Atlantis" } }
        // No commune of the wilaya is called Atlantis: the API answers 422 unknown_commune and sends nothing.
        const sentBefore = fake.requests.length
        const stopped = yield* post(app, "/v1/orders", { ...colivraison, order: atlantis })
        assert.strictEqual(stopped.status, 422)
        assert.strictEqual(stopped.json.error.code, "unknown_commune")
        assert.strictEqual(fake.requests.length, sentBefore, "nothing reached Colivraison")
        // Colivraison's own refusal of a commune it does not know: the name sent as written (resolveCommune: false).
        const unknown = yield* post(app, "/v1/orders", {
          ...colivraison,
          options: { resolveCommune: false },
          order: atlantis
        })
        assert.strictEqual(unknown.status, 422)
        assert.strictEqual(unknown.json.error.code, "courier_refused")
        assert.include(unknown.json.error.message, "Commune introuvable : Atlantis")
        const pinned = yield* post(app, "/v1/track", {
          ...colivraison,
          options: { baseUrl: ORIGIN },
          trackingNumber
        })
        assert.strictEqual(pinned.status, 400, "a pinned courier takes no baseUrl")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices, and reads the courier's refusal", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const client = dzship({ ...colivraison, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() =>
          client.createOrder({ ...order, reference: "cmd-coliv-dzship", deliveryType: "stopdesk" })
        )
        assert.match(created.trackingNumber, /^CLX\d{8}$/)
        assert.strictEqual(created.status, "created")
        assert.strictEqual(fake.parcels.get(created.trackingNumber)?.fields.stopdesk_status, true)

        fake.setClock("2026-04-22", "16:30:00")
        fake.addStatus(created.trackingNumber, "RETURNED")
        fake.setClock("2026-04-24", "10:00:00")
        fake.addStatus(created.trackingNumber, "RETURN_COLLECTED")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "returned")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["PLACED", "RETURNED", "RETURN_COLLECTED"]
        )

        const priced = yield* Effect.promise(() => client.rates({ toWilaya: 16, deliveryType: "home" }))
        assert.strictEqual(priced.deliveryFee, tariff(16))

        const refused = yield* rejected(
          client.createOrder({ ...order, recipient: { ...order.recipient, wilayaCode: 50, communeName: "Timiaouine" } })
        )
        assert.strictEqual(refused.name, "DzshipError")
        assert.strictEqual(refused.status, 422)
        assert.strictEqual(refused.code, "courier_refused")
        const unknownParcel = yield* rejected(client.track("CLX99999999"))
        assert.strictEqual(unknownParcel.code, "courier_refused")
      })
    )

    it.effect("the canary credentials appear in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const bodies: Array<string> = []
        const record = (response: { readonly latin1: string }) => bodies.push(response.latin1)
        const created = yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-coliv-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-coliv-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...canary, trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...canary, query: { toWilaya: 16, deliveryType: "home" } }))
        record(yield* post(app, "/v1/labels", { ...canary, trackingNumber }))
        for (const misbehaviour of [
          { kind: "status", status: 500 } as const,
          { kind: "html" },
          { kind: "refuseOrder", message: "Refus" },
          { kind: "errorInside200", message: "Compte suspendu" },
          { kind: "echoToken" },
          { kind: "rateLimited", retryAfter: "7" },
          { kind: "reset" }
        ] satisfies ReadonlyArray<Misbehaviour>) {
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/orders", { ...canary, order }))
        }
        fake.misbehaveNext({ kind: "echoToken" })
        record(yield* post(app, "/v1/track", { ...canary, trackingNumber }))
        fake.misbehaveNext({ kind: "echoToken" })
        record(yield* post(app, "/v1/labels", { ...canary, trackingNumber }))
        record(yield* post(app, "/v1/orders", { ...canary, order: { ...order, codAmount: -1 } }))
        for (const credentials of [
          { publicKey: CANARY_KEY, token: CANARY_TOKEN, extra: CANARY_TOKEN },
          { publicKey: CANARY_KEY, token: `${CANARY_TOKEN} x` },
          { publicKey: `${CANARY_KEY}\n`, token: CANARY_TOKEN },
          { publicKey: CANARY_KEY, token: `${CANARY_TOKEN}-revoked` },
          { publicKey: `${CANARY_KEY}-revoked`, token: CANARY_TOKEN }
        ]) {
          record(yield* post(app, "/v1/orders", { courier: "colivraison", credentials, order }))
        }
        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "the courier's refusal quoting the token reached the caller redacted"
        )
        assert.isAbove(
          fake.requests.filter((request) => request.headers.authorization === `Bearer ${CANARY_TOKEN}`).length,
          10,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 15)
          assert.include(everything, "canary-coliv-1", "the idempotency record was stored")
          assert.include(app.stdout(), "courier adapters loaded", "the app's log was captured")
          assert.isAbove(app.stdout().split("\n").length, 20, "the app logged")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            for (const secret of CANARIES) {
              assert.notInclude(text, secret, `the canary leaked into ${where}`)
              assert.notInclude(text, encodeURIComponent(secret), `the canary leaked into ${where}`)
            }
          }
        })
      })
    )
  })
