/**
 * The Elogistia suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of Elogistia's documented
 * API, through the app all six platforms share (`Platforms.ts`, in this process, trace logs). Elogistia takes the
 * merchant's API key in the query string: these tests prove that a canary key, used in successful and failing calls
 * alike (a 5xx, a 401 quoting it, a refusal quoting the request URL, a redirect whose Location carries it), reaches
 * the courier and nothing else — no log line, no response, no database row.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import {
  ElogistiaFake,
  type Fake,
  KEY,
  type Misbehaviour
} from "../../../../../adapters/elogistia/test/fake/ElogistiaFake.ts"
import { getJson, postJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** A key no code path may ever print, store or return. */
const CANARY = "canary-elogistia-key-7f3e9a1c5d2b"

const order = {
  reference: "cmd-elo-1",
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

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/** The fake, and the shared app (trace logs) whose Elogistia origin points at it. */
class Setup extends Context.Service<
  Setup,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string }
>()("test/ElogistiaSetup") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = ElogistiaFake.layer({ keys: [KEY, CANARY] })

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(ElogistiaFake, (fake) => originsOf({ elogistia: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* ElogistiaFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

const call = { courier: "elogistia", credentials: { apiKey: KEY } }

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | ElogistiaFake>) =>
  it.layer(SetupLive)("the shipping API with the Elogistia adapter", (it) => {
    it.effect("lists Elogistia with its one credential, creating, tracking, pricing and labelling", () =>
      Effect.gen(function* () {
        const { app } = yield* Setup
        const listed = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=elogistia`)
        assert.strictEqual(listed.status, 200)
        assert.deepStrictEqual(
          (listed.body as ReadonlyArray<Record<string, unknown>>).map(
            ({ key, name, requiredCredentials, capabilities, endpoint }) => {
              const { create, track, rates, label } = capabilities as Record<string, boolean>
              return { key, name, requiredCredentials, capabilities: { create, track, rates, label }, endpoint }
            }
          ),
          [
            {
              key: "elogistia",
              name: "Elogistia",
              requiredCredentials: ["apiKey"],
              capabilities: { create: true, track: true, rates: true, label: true },
              endpoint: "https://api.elogistia.com"
            }
          ]
        )
      })
    )

    it.effect("creates, tracks, prices and labels, the key in the query parameter each endpoint names", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const before = fake.requests.length
        const created = yield* post(app, "/v1/orders", { ...call, order })
        assert.strictEqual(created.status, 200, created.text)
        assert.deepStrictEqual(created.json, {
          trackingNumber: created.json.trackingNumber,
          status: "pending_pickup",
          rawStatus: "À expédiée",
          reference: "cmd-elo-1",
          // Elogistia lists the commune in the reference spelling: sent as written.
          commune: { requested: "Bab Ezzouar", sent: "Bab Ezzouar", corrected: false }
        })
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^L-[0-9A-Z]{6}$/)

        fake.setClock("2026-04-19 09:12:40")
        fake.addStatus(trackingNumber, "Ramassée")
        fake.addStatus(trackingNumber, "en transit")
        // Another spelling of "Livrée & réglée": read through the same rule as the table, reported as it spells it.
        fake.addStatus(trackingNumber, "LIVREE ET REGLEE")
        const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "delivered")
        assert.strictEqual(tracked.json.cod, "collected")
        assert.deepStrictEqual(
          tracked.json.events.map(({ status, rawStatus }: { status: string; rawStatus: string }) => [
            status,
            rawStatus
          ]),
          [
            ["pending_pickup", "À expédiée"],
            ["picked_up", "Ramassée"],
            ["in_transit", "En transit"],
            ["delivered", "Livrée & réglée"]
          ]
        )
        assert.strictEqual(tracked.json.events[1].timestamp, "2026-04-19T09:12:40+01:00")

        const rates = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "stopdesk" } })
        assert.strictEqual(rates.status, 200, rates.text)
        assert.deepStrictEqual(
          [rates.json.deliveryType, rates.json.deliveryFee, rates.json.codFee, rates.json.total],
          ["stopdesk", 300, 0, 300]
        )
        assert.lengthOf(rates.json.options, 2)

        const label = yield* post(app, "/v1/labels", { ...call, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.strictEqual(label.headers.get("content-type"), "application/pdf")
        assert.include(label.bytes.toString("latin1"), trackingNumber)

        const requests = fake.requests.slice(before)
        assert.deepStrictEqual(
          requests.map(({ method, path }) => `${method} ${path}`),
          [
            // The create reads Elogistia's communes of the wilaya first, with the desk agencies for their desk flags.
            "GET /getMunicipalities/",
            "GET /getAgences/",
            "POST /insertCommande/",
            "GET /getTracking/",
            "GET /getShippingCost/",
            "GET /printBordereau_10x15/"
          ]
        )
        assert.deepStrictEqual(requests[0]?.query, { wilaya: "16", key: KEY })
        assert.deepStrictEqual(requests[1]?.query, { type: "2", key: KEY })
        const [, , insert, tracking, cost, print] = requests
        assert.deepStrictEqual(insert?.query, {
          name: "Amina Benali",
          firstname: "",
          phone: "0555123456",
          address: "Cité 5 juillet",
          commune: "Bab Ezzouar",
          wilaya: "16",
          modeDeLivraison: "1",
          price: "4500",
          stop_desk: "1",
          product: "1x robe",
          IdCommande: "cmd-elo-1",
          apiKey: KEY
        })
        assert.strictEqual(insert?.text, "", "no body: every field is in the query string")
        assert.deepStrictEqual(tracking?.query, { tracking: trackingNumber, apiKey: KEY })
        assert.deepStrictEqual(cost?.query, { key: KEY })
        assert.deepStrictEqual(print?.query, { tracking: trackingNumber, apiKey: KEY })
        for (const request of requests) assert.isUndefined(request.headers.authorization)
      })
    )

    it.effect("passes Elogistia's refusals on in its words: an unknown commune, a stop desk where there is none", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const atlantis = { ...order, recipient: { ...order.recipient, communeName: "Atlantis" } }
        // No commune of the wilaya is called Atlantis: the API answers 422 unknown_commune and Elogistia hears nothing.
        const sentBefore = fake.requests.length
        const stopped = yield* post(app, "/v1/orders", { ...call, order: atlantis })
        assert.strictEqual(stopped.status, 422, stopped.text)
        assert.strictEqual(stopped.json.error.code, "unknown_commune")
        assert.strictEqual(fake.requests.length, sentBefore, "nothing reached Elogistia")
        // Elogistia's own refusal of a commune it does not know: the name sent as written (resolveCommune: false).
        const commune = yield* post(app, "/v1/orders", { ...call, options: { resolveCommune: false }, order: atlantis })
        assert.strictEqual(commune.status, 422, commune.text)
        assert.strictEqual(commune.json.error.code, "courier_refused")
        assert.include(commune.json.error.message, "Cette commune n'existe pas")
        const desk = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 38, deliveryType: "stopdesk" } })
        assert.strictEqual(desk.status, 422, desk.text)
        assert.include(desk.json.error.message, "no stop-desk delivery to wilaya 38")
        const unknown = yield* post(app, "/v1/track", { ...call, trackingNumber: "L-NOPE00" })
        assert.strictEqual(unknown.status, 422, unknown.text)
        assert.include(unknown.json.error.message, "does not know this tracking number")
      })
    )

    it.effect("the unchanged dzship client creates, tracks and prices through elogistia", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const client = dzship({ courier: "elogistia", credentials: { apiKey: KEY }, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder({ ...order, reference: "cmd-elo-dz" }))
        assert.match(created.trackingNumber, /^L-/)
        assert.strictEqual(created.status, "pending_pickup")
        fake.addStatus(created.trackingNumber, "En cours livraison")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "out_for_delivery")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["À expédiée", "En cours livraison"]
        )
        const priced = yield* Effect.promise(() =>
          client.rates({ toWilaya: 16, deliveryType: "home", codAmount: 4500 })
        )
        assert.strictEqual(priced.deliveryFee, 400)

        const refused = yield* rejected(
          dzship({ courier: "elogistia", credentials: { apiKey: `${KEY}-revoked` }, gateway: app.shippingUrl }).track(
            created.trackingNumber
          )
        )
        assert.strictEqual(refused.name, "DzshipError")
        assert.strictEqual(refused.code, "credentials_rejected")
      })
    )

    // Last: it stops the app to read its database.
    it.effect("the canary key appears in no log line, response, error body or database row", () =>
      Effect.gen(function* () {
        const { app, fake } = yield* Setup
        const canary = { courier: "elogistia", credentials: { apiKey: CANARY } }
        const bodies: Array<string> = []
        const record = (response: { readonly text: string }) => bodies.push(response.text)

        const created = yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-elo-1" })
        assert.strictEqual(created.status, 200, created.text)
        record(created)
        record(yield* post(app, "/v1/orders", { ...canary, order }, { "idempotency-key": "canary-elo-1" }))
        const trackingNumber: string = created.json.trackingNumber
        record(yield* post(app, "/v1/track", { ...canary, trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...canary, query: { toWilaya: 16, deliveryType: "home" } }))
        record(yield* post(app, "/v1/labels", { ...canary, trackingNumber }))

        const failing: ReadonlyArray<readonly [string, Misbehaviour, number]> = [
          ["/v1/orders", { kind: "crashQuotingUrl" }, 502],
          ["/v1/orders", { kind: "status", status: 503 }, 502],
          ["/v1/orders", { kind: "quoteUrl" }, 422],
          ["/v1/orders", { kind: "refuse", message: "Cette wilaya n'est pas desservie" }, 422],
          ["/v1/track", { kind: "rejectQuotingKey" }, 422],
          ["/v1/track", { kind: "keyRefusedIn200" }, 422],
          ["/v1/labels", { kind: "redirectWithKey" }, 502],
          ["/v1/rates", { kind: "redirectWithKey" }, 502],
          ["/v1/rates", { kind: "html" }, 502],
          ["/v1/rates", { kind: "rateLimited", retryAfter: "7" }, 429],
          ["/v1/labels", { kind: "reset" }, 502]
        ]
        const replies: Array<string> = []
        for (const [path, misbehaviour, status] of failing) {
          // A create reads the communes first: its misbehaviour is aimed at the create itself, as before that read.
          fake.misbehaveNext(misbehaviour, path === "/v1/orders" ? "/insertCommande/" : undefined)
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
        // The courier does not know it (a 401), and the host refuses malformed ones before any request.
        for (const apiKey of [`${CANARY}-revoked`, `${CANARY} x`, `${CANARY}\n`, `${CANARY}${"x".repeat(600)}`]) {
          record(yield* post(app, "/v1/orders", { ...canary, credentials: { apiKey }, order }))
        }
        record(yield* post(app, "/v1/orders", { ...canary, credentials: { apiKey: CANARY, extra: CANARY }, order }))

        const quoted = replies[2] ?? ""
        assert.include(quoted, "Requête invalide", "the refusal quoting the URL reached the caller in its words")
        assert.include(quoted, "<redacted>", "with the key blanked out")
        assert.isAbove(
          fake.requests.filter((request) => Object.values(request.query).includes(CANARY)).length,
          10,
          "the canary did reach the courier, in the query string"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 20)
          assert.include(everything, "canary-elo-1", "the idempotency record was stored")
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
