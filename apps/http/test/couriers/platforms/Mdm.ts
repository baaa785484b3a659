/**
 * The MDM Express suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of MDM's documented API,
 * through the app all six platforms share (`Platforms.ts`, in this process, real sockets). The app reaches the fake
 * only through TAWSIL_COURIER_ORIGINS and finds the adapter by discovery; the public dzship client, unchanged, is one
 * of the callers. Every call uses a canary key, which must come back in no log line, response or row.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Fake, MdmFake, type Misbehaviour } from "../../../../../adapters/mdm/test/fake/MdmFake.ts"
import { getJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { besideCachedLookups, originsOf, Platforms } from "../Platforms.ts"

/** The key no code path may ever print, store or return. */
const CANARY = "canary-mdm-key-4e8b1d7a92c6f035"
const mdm = { courier: "mdm", credentials: { apiKey: CANARY } }

const order = (fullName = "Amina Benali", communeName = "Bab Ezzouar") => ({
  reference: "cmd-mdm-1",
  recipient: { fullName, phone: "0555123456", wilayaCode: 16, communeName, addressLine: "Cité 5 juillet" },
  deliveryType: "home" as const,
  productList: "1x robe",
  codAmount: 4500
})

/** The fake, the shared app pointed at it, and every body the app answered this suite (scanned at the end). */
class Harness extends Context.Service<
  Harness,
  { readonly fake: Fake; readonly app: AppInProcess; readonly dataDir: string; readonly bodies: Array<string> }
>()("test/couriers/Mdm/Harness") {}

/** The fake with this suite's accounts: `Platforms.db.test.ts` starts it before the app. */
export const fake = MdmFake.layer({ keys: [CANARY] })

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(MdmFake, (fake) => originsOf({ mdm: fake }))

const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const fake = yield* MdmFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir, bodies: [] }
  })
)

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const { app, bodies } = yield* Harness
    const answer = yield* Effect.promise(async () => {
      const response = await fetch(`${app.shippingUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body)
      })
      const bytes = Buffer.from(await response.arrayBuffer())
      const text = bytes.toString("utf8")
      // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
      const json: any = (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined
      return { status: response.status, headers: response.headers, text, latin1: bytes.toString("latin1"), json }
    })
    bodies.push(answer.latin1)
    return answer
  })

const paths = (requests: ReadonlyArray<{ readonly method: string; readonly path: string }>) =>
  requests.map(({ method, path }) => `${method} ${path}`)

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | MdmFake>) =>
  it.layer(HarnessLive)("the shipping API with the MDM Express adapter", (it) => {
    it.effect("lists MDM Express with its dzship credential name, create, track and label, and no rates", () =>
      Effect.gen(function* () {
        const { app } = yield* Harness
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=mdm`)
        assert.strictEqual(status, 200)
        assert.lengthOf(body, 1)
        const [entry] = body
        assert.deepInclude(entry, {
          key: "mdm",
          platform: "mdm",
          requiredCredentials: ["apiKey"],
          endpoint: "https://api.mdm.express"
        })
        const { create, track, rates, label } = entry.capabilities
        assert.deepStrictEqual(
          { create, track, rates, label },
          { create: true, track: true, rates: false, label: true }
        )
      })
    )

    it.effect("creates (city id looked up), tracks and labels through the fake; rates is 400 unsupported, unsent", () =>
      Effect.gen(function* () {
        const { fake } = yield* Harness
        const before = fake.requests.length
        const created = yield* post("/v1/orders", { ...mdm, order: order() })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "pending_pickup")
        assert.strictEqual(created.json.reference, "cmd-mdm-1")
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^ORD-\d{6}$/)
        const stored = fake.orders.get(trackingNumber)
        assert.deepStrictEqual(stored?.body.destination, { cityId: "DZA161628", streetAddress: "Cité 5 juillet" })
        assert.deepStrictEqual(stored?.body.client, { firstName: "Amina", lastName: "Benali", phone: "0555123456" })

        fake.setClock("2026-04-19T08:12:40.000Z")
        fake.addStatus(trackingNumber, "shipped")
        fake.setClock("2026-04-20T13:02:33.000Z")
        fake.addStatus(trackingNumber, "delivered")
        const tracked = yield* post("/v1/track", { ...mdm, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "delivered")
        assert.deepStrictEqual(tracked.json.events, [
          { status: "created", rawStatus: "pending", timestamp: "2026-04-18T19:45:06+01:00" },
          { status: "pending_pickup", rawStatus: "confirmed", timestamp: "2026-04-18T19:45:06+01:00" },
          { status: "in_transit", rawStatus: "shipped", timestamp: "2026-04-19T09:12:40+01:00" },
          { status: "delivered", rawStatus: "delivered", timestamp: "2026-04-20T14:02:33+01:00" }
        ])

        const label = yield* post("/v1/labels", { ...mdm, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.include(label.headers.get("content-type") ?? "", "application/pdf")
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, `parcel slip ${stored?.parcel}`)

        const sent = fake.requests.length
        const rates = yield* post("/v1/rates", { ...mdm, query: { toWilaya: 16, deliveryType: "home" } })
        assert.strictEqual(rates.status, 400, rates.text)
        assert.strictEqual(rates.json.error.code, "unsupported")
        assert.strictEqual(fake.requests.length, sent, "no rates request reached the courier")

        const requests = fake.requests.slice(before)
        // The create reads MDM's communes of the wilaya first: its cities (kept for the create's own city id, so
        // possibly already kept by an earlier file of this worker) and its offices, for the desk flags.
        const cities = "GET /api/geo/cities"
        const received = besideCachedLookups(requests, [cities])
        assert.isAtMost(received.lookups(cities), 1)
        assert.deepStrictEqual(received.calls, [
          "GET /api/v2/shipping/companies/offices",
          "POST /api/v2/orders",
          `GET /api/v2/orders/${trackingNumber}/status-history`,
          `GET /api/v2/orders/${trackingNumber}`,
          "POST /api/prints/parcel-slips",
          "GET /api/prints/files/FIL-000001"
        ])
        for (const request of requests) {
          assert.strictEqual(request.headers["x-api-key"], CANARY, request.path)
          assert.notInclude(JSON.stringify(request.query), CANARY, "the key travels in its header only")
        }
      })
    )

    it.effect(
      "refuses a commune MDM does not know, naming it, with nothing created; a second create reuses the cities",
      () =>
        Effect.gen(function* () {
          const { fake } = yield* Harness
          const orders = fake.orders.size
          const before = fake.requests.length
          // No commune of Algiers is called Bab Ezzouar Nord: the API answers 422 unknown_commune itself.
          const stopped = yield* post("/v1/orders", { ...mdm, order: order("Amina Benali", "Bab Ezzouar Nord") })
          assert.strictEqual(stopped.status, 422, stopped.text)
          assert.strictEqual(stopped.json.error.code, "unknown_commune")
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [], "nothing reached MDM")
          // MDM's own refusal, the name sent as written (resolveCommune: false): the adapter finds no such city.
          const unknown = yield* post("/v1/orders", {
            ...mdm,
            options: { resolveCommune: false },
            order: order("Amina Benali", "Bab Ezzouar Nord")
          })
          assert.strictEqual(unknown.status, 422, unknown.text)
          assert.strictEqual(unknown.json.error.code, "courier_refused")
          assert.include(unknown.json.error.message, 'MDM Express knows no commune "Bab Ezzouar Nord" in wilaya 16')
          assert.strictEqual(fake.orders.size, orders)
          assert.deepStrictEqual(paths(fake.requests.slice(before)), [], "Algiers' cities were already kept")
        })
    )

    it.effect("the unchanged dzship client creates and tracks through mdm, and reads rates as unsupported", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Harness
        const client = dzship({ ...mdm, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder(order("Karim Haddad", "Hydra")))
        assert.match(created.trackingNumber, /^ORD-\d{6}$/)
        assert.strictEqual(created.status, "pending_pickup")
        fake.addStatus(created.trackingNumber, "shipped")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "in_transit")
        assert.deepStrictEqual(
          tracked.events.map((event) => event.rawStatus),
          ["pending", "confirmed", "shipped"]
        )
        const unsupported = yield* rejected(client.rates({ toWilaya: 16, deliveryType: "home" }))
        assert.strictEqual(unsupported.name, "DzshipError")
        assert.strictEqual(unsupported.status, 400)
        assert.strictEqual(unsupported.code, "unsupported")

        fake.misbehaveNext({ kind: "rateLimited", retryAfter: "30" })
        const limited = yield* rejected(client.track(created.trackingNumber))
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.code, "rate_limited")
        assert.strictEqual(limited.retryAfter, 30)
      })
    )

    it.effect("failing calls answer in Tawsil's words: a refused key, MDM's refusal, 5xx, HTML, a reset", () =>
      Effect.gen(function* () {
        const { fake } = yield* Harness
        const trackingNumber = [...fake.orders.keys()][0]!
        const misbehaviours: ReadonlyArray<readonly [Misbehaviour, number, string]> = [
          [{ kind: "status", status: 500 }, 502, "courier_unreachable"],
          [{ kind: "html" }, 502, "courier_error"],
          [
            { kind: "refuse", code: "ORDERS.BLACKLISTED_PHONE", message: "Phone is blacklisted" },
            422,
            "courier_refused"
          ],
          [{ kind: "echoKey" }, 422, "credentials_rejected"],
          [{ kind: "reset" }, 502, "courier_unreachable"]
        ]
        for (const [index, [misbehaviour, status, code]] of misbehaviours.entries()) {
          fake.misbehaveNext(misbehaviour, "/api/v2/orders")
          const created = yield* post("/v1/orders", { ...mdm, order: order(`Client ${index}`) })
          assert.deepStrictEqual([created.status, created.json?.error?.code], [status, code], misbehaviour.kind)
          fake.misbehaveNext(misbehaviour)
          const tracked = yield* post("/v1/track", { ...mdm, trackingNumber })
          assert.deepStrictEqual([tracked.status, tracked.json?.error?.code], [status, code], misbehaviour.kind)
        }
        const revoked = yield* post("/v1/orders", {
          ...mdm,
          credentials: { apiKey: `${CANARY}-revoked` },
          order: order()
        })
        assert.deepStrictEqual([revoked.status, revoked.json.error.code], [422, "credentials_rejected"])
        for (const credentials of [{ apiKey: CANARY, extra: CANARY }, { apiKey: `${CANARY} with spaces` }, {}]) {
          const refused = yield* post("/v1/track", { ...mdm, credentials, trackingNumber })
          assert.strictEqual(refused.status, 400, refused.text)
        }
        const badOrder = yield* post("/v1/orders", { ...mdm, order: { ...order(), codAmount: -1 } })
        assert.strictEqual(badOrder.status, 400)
        const badTracking = yield* post("/v1/track", { ...mdm, trackingNumber: "../geo/cities" })
        assert.strictEqual(badTracking.status, 422, badTracking.text)
      })
    )

    it.effect("the canary key appears in no log line, response body or database row", () =>
      Effect.gen(function* () {
        const { fake, app, bodies } = yield* Harness
        const created = yield* post(
          "/v1/orders",
          { ...mdm, order: order("Nadia Saidi") },
          { "idempotency-key": "canary-mdm-1" }
        )
        assert.strictEqual(created.status, 200, created.text)
        yield* post("/v1/orders", { ...mdm, order: order("Nadia Saidi") }, { "idempotency-key": "canary-mdm-1" })
        assert.isTrue(
          fake.requests.some((request) => request.headers["x-api-key"] === CANARY),
          "the canary did reach the courier"
        )
        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "MDM's refusal quoting the key reached the caller blanked out"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 20)
          assert.include(everything, "canary-mdm-1", "the idempotency record was stored")
          assert.include(app.stdout(), "courier adapters loaded", "the app's log was captured")
          assert.isAbove(app.stdout().split("\n").length, 20, "the app logged at trace level")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
            assert.notInclude(text, encodeURIComponent(CANARY), `the canary leaked into ${where}, encoded`)
          }
        })
      })
    )
  })
