/**
 * The E-COM Delivery suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of E-COM's documented
 * API, through the app all six platforms share (`Platforms.ts`, in this process, trace logs). The app reaches the
 * fake only through TAWSIL_COURIER_ORIGINS; the public dzship client, unchanged, is one of the callers. A canary
 * token, used in successful and failing calls alike, reaches the courier and nothing else — no log line, response or
 * database row.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import {
  ACCOUNT,
  EcomDeliveryFake,
  type Fake,
  type Misbehaviour
} from "../../../../../adapters/ecomdelivery/test/fake/EcomDeliveryFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** A token no code path may ever print, store or return, and the key that goes with it. */
const CANARY = "canary-ecom-token-6d1f8b3a0e95"
const CANARY_KEY = "canary-account-key-40c2"

const credentials = { apiKey: ACCOUNT.key, apiToken: ACCOUNT.token }
const call = { courier: "ecomdelivery", credentials }

const order = {
  reference: "cmd-ecom-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "+213 555 12 34 56",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet"
  },
  deliveryType: "home" as const,
  productList: "1x robe",
  codAmount: 4500
}

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/** The fake, and the shared app (trace logs) whose E-COM origin points at it. */
class Setup extends Context.Service<
  Setup,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string }
>()("test/EcomDeliverySetup") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = EcomDeliveryFake.layer({ accounts: [ACCOUNT, { key: CANARY_KEY, token: CANARY }] })

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(EcomDeliveryFake, (fake) => originsOf({ ecom: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* EcomDeliveryFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | EcomDeliveryFake>) =>
  it.layer(SetupLive)("the shipping API with the E-COM Delivery adapter", (it) => {
    it.effect("lists E-COM Delivery with its key and token, create, track and rates, and no label", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=ecomdelivery`)
        assert.strictEqual(listed.status, 200)
        // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
        const entries = listed.body as ReadonlyArray<any>
        assert.deepStrictEqual(
          entries.map(({ key, name, requiredCredentials, endpoint }) => ({ key, name, requiredCredentials, endpoint })),
          [
            {
              key: "ecomdelivery",
              name: "E-COM Delivery",
              requiredCredentials: ["apiKey", "apiToken"],
              endpoint: "https://ecom-dz.net"
            }
          ]
        )
        assert.deepInclude(entries[0].capabilities, { create: true, track: true, rates: true, label: false })
        const byAlias = yield* getJson(`${app.shippingUrl}/v1/couriers?q=ecom_delivery`)
        assert.deepStrictEqual(
          (byAlias.body as ReadonlyArray<{ key: string }>).map((entry) => entry.key),
          ["ecomdelivery"]
        )
      })
    )

    it.effect("creates and ships, tracks, prices, and answers unsupported for a label without calling E-COM", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(created.status, 200, created.text)
        assert.deepStrictEqual(created.json, {
          trackingNumber: created.json.trackingNumber,
          status: "pending_pickup",
          rawStatus: "En Traitement",
          reference: "cmd-ecom-1",
          // Checked against the reference communes (E-COM lists none of its own): sent as written.
          commune: { requested: "Bab Ezzouar", sent: "Bab Ezzouar", corrected: false }
        })
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^EC\d{6}$/)
        assert.strictEqual(fake.parcels.get(trackingNumber)?.avancement, "En Traitement", "aExpédier reached E-COM")

        fake.setClock("19/04/2026 09:12:40")
        fake.setState(trackingNumber, { avancement: "Au Bureau", situation: "Ne Réponde pas #1" })
        const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "failed_attempt")
        assert.strictEqual(tracked.json.cod, "not_collected")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "at_stopdesk", rawStatus: "Au Bureau", timestamp: "2026-04-19T09:12:40+01:00" },
          { status: "failed_attempt", rawStatus: "Ne Réponde pas #1", timestamp: "2026-04-19T09:12:40+01:00" }
        ])

        fake.setClock("21/04/2026 16:02:33")
        fake.setState(trackingNumber, { avancement: "Récupérer", situation: "Recouvert" })
        const paid = yield* post(app, "/v1/track", { ...call, trackingNumber })
        assert.strictEqual(paid.status, 200, paid.text)
        assert.strictEqual(paid.json.status, "delivered")
        assert.strictEqual(paid.json.cod, "remitted", "Recouvert: the cash reached the merchant, apart from movement")

        const rates = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "stopdesk" } })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.deepStrictEqual(
          [rates.json.deliveryType, rates.json.tier, rates.json.deliveryFee, rates.json.returnFee, rates.json.total],
          ["stopdesk", "economic", 500, 200, 500]
        )
        assert.lengthOf(rates.json.options, 2)

        const beforeLabel = fake.requests.length
        const label = yield* post(app, "/v1/labels", { ...call, trackingNumber })
        assert.strictEqual(label.status, 400, label.text)
        assert.strictEqual(label.json.error.code, "unsupported")
        assert.strictEqual(fake.requests.length, beforeLabel, "no label request reached the courier")

        const requests = fake.requests.slice(before)
        assert.deepStrictEqual(
          requests.map(({ method, path }) => `${method} ${decodeURIComponent(path)}`),
          [
            "POST /Api_v1/Colis",
            "PUT /Api_v1/aExpédier",
            `GET /Api_v1/Colis/Tracking/${trackingNumber}`,
            `GET /Api_v1/Colis/Tracking/${trackingNumber}`,
            "GET /Api_v1/Tarification"
          ]
        )
        assert.deepStrictEqual(requests[0]?.body, {
          Colis: [
            {
              Echange: 0,
              Stopdesk: 0,
              NomComplet: "Amina Benali",
              Mobile_1: "0555123456",
              Adresse: "Cité 5 juillet",
              Wilaya: "16",
              Commune: "Bab Ezzouar",
              Article: "1x robe",
              Total: "4500",
              ID_Externe: "cmd-ecom-1",
              Source: "Tawsil"
            }
          ]
        })
        assert.deepStrictEqual(requests[1]?.body, { Colis: [{ Tracking: trackingNumber }] })
        for (const request of requests) {
          assert.strictEqual(request.headers.key, ACCOUNT.key)
          assert.strictEqual(request.headers.token, ACCOUNT.token)
          assert.isUndefined(request.headers.authorization)
        }
      })
    )

    it.effect("passes E-COM's refusals on in its words: an unknown commune, a desk where there is none", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const atlantis = { ...order, recipient: { ...order.recipient, communeName: "Atlantis" } }
        // No commune of the wilaya is called Atlantis: the API answers 422 unknown_commune and E-COM hears nothing.
        const sentBefore = fake.requests.length
        const stopped = yield* post(app, "/v1/orders", { ...call, order: atlantis })
        assert.strictEqual(stopped.status, 422, stopped.text)
        assert.strictEqual(stopped.json.error.code, "unknown_commune")
        assert.strictEqual(fake.requests.length, sentBefore, "nothing reached E-COM")
        // E-COM's own refusal of a commune it does not know: the name sent as written (resolveCommune: false).
        const commune = yield* post(app, "/v1/orders", { ...call, options: { resolveCommune: false }, order: atlantis })
        assert.strictEqual(commune.status, 422, commune.text)
        assert.strictEqual(commune.json.error.code, "courier_refused")
        assert.include(commune.json.error.message, "Commune non reconnue")
        const desk = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 11, deliveryType: "stopdesk" } })
        assert.strictEqual(desk.status, 422, desk.text)
        assert.include(desk.json.error.message, "no stop-desk delivery to wilaya 11")
        const unknown = yield* post(app, "/v1/track", { ...call, trackingNumber: "EC999999" })
        assert.strictEqual(unknown.status, 422, unknown.text)
        assert.include(unknown.json.error.message, "does not know this tracking number")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices through ecomdelivery", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const client = dzship({ courier: "ecomdelivery", credentials, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder({ ...order, reference: "cmd-ecom-dz" }))
        assert.match(created.trackingNumber, /^EC\d{6}$/)
        assert.strictEqual(created.status, "pending_pickup")
        fake.setState(created.trackingNumber, { avancement: "Sortir en livraison" })
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "out_for_delivery")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["Sortir en livraison"]
        )
        const priced = yield* Effect.promise(() =>
          client.rates({ toWilaya: 16, deliveryType: "home", codAmount: 4500 })
        )
        assert.strictEqual(priced.deliveryFee, 450)

        const refused = yield* rejected(
          dzship({
            courier: "ecom_delivery",
            credentials: { ...credentials, apiToken: `${ACCOUNT.token}-revoked` },
            gateway: app.shippingUrl
          }).track(created.trackingNumber)
        )
        assert.strictEqual(refused.name, "DzshipError")
        assert.strictEqual(refused.code, "credentials_rejected")
      })
    )

    // Last: it stops the app to read its database.
    it.effect("the canary token appears in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const canary = { courier: "ecomdelivery", credentials: { apiKey: CANARY_KEY, apiToken: CANARY } }
        const bodies: Array<string> = []
        const record = (response: { readonly text: string }) => bodies.push(response.text)

        const created = yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-ecom-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-ecom-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...canary, trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...canary, query: { toWilaya: 16, deliveryType: "home" } }))
        record(yield* post(app, "/v1/labels", { ...canary, trackingNumber }))

        const failing: ReadonlyArray<readonly [string, Misbehaviour, number]> = [
          ["/v1/orders", { kind: "status", status: 503 }, 502],
          ["/v1/orders", { kind: "refuse", message: "Wilaya non desservie" }, 422],
          ["/v1/track", { kind: "echoToken" }, 422],
          ["/v1/track", { kind: "html" }, 502],
          ["/v1/rates", { kind: "rateLimited", retryAfter: "7" }, 429],
          ["/v1/rates", { kind: "reset" }, 502]
        ]
        const replies: Array<string> = []
        for (const [path, misbehaviour, status] of failing) {
          fake.misbehaveNext(misbehaviour)
          const body =
            path === "/v1/orders"
              ? { ...canary, order }
              : path === "/v1/rates"
                ? { ...canary, query: { toWilaya: 16, deliveryType: "home" } }
                : { ...canary, trackingNumber }
          const answered = yield* post(app, path, body)
          assert.strictEqual(answered.status, status, `${misbehaviour.kind}: ${answered.text}`)
          replies.push(answered.text)
          record(answered)
        }
        // The parcel is made, then aExpédier fails: a refusal naming the parcel, never a retry.
        fake.misbehaveNext({ kind: "status", status: 500 }, /^\/Api_v1\/aExp/)
        const unfinished = yield* post(app, "/v1/orders", { ...canary, order })
        assert.strictEqual(unfinished.status, 422, unfinished.text)
        assert.include(unfinished.json.error.message, "do not create it again")
        record(unfinished)
        // The courier does not know it (a 401), and the host refuses malformed ones before any request.
        for (const apiToken of [`${CANARY}-revoked`, `${CANARY} x`, `${CANARY}\n`, `${CANARY}${"x".repeat(600)}`]) {
          record(yield* post(app, "/v1/orders", { ...canary, credentials: { apiKey: CANARY_KEY, apiToken }, order }))
        }
        record(
          yield* post(app, "/v1/orders", {
            ...canary,
            credentials: { apiKey: CANARY_KEY, apiToken: CANARY, extra: CANARY },
            order
          })
        )

        assert.include(replies[2] ?? "", "<redacted>", "the refusal quoting the token reached the caller redacted")
        assert.isAbove(
          fake.requests.filter((request) => request.headers.token === CANARY).length,
          8,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 15)
          assert.include(everything, "canary-ecom-1", "the idempotency record was stored")
          const stdout = app.stdout()
          assert.isAbove(stdout.split("\n").length, 40, "the app logged")
          assert.match(stdout, /"level":"(TRACE|DEBUG)"/i, "at trace level")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", stdout],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
            assert.notInclude(text.toLowerCase(), CANARY.toLowerCase(), `the canary leaked into ${where}`)
          }
        })
      })
    )
  })
