/**
 * The Mylerz suite of `Platforms.db.test.ts`: the shipping API against a loopback fake of Mylerz's documented API,
 * through the app the platforms share (`Platforms.ts`, in this process, real sockets). The app reaches the fake only
 * through TAWSIL_COURIER_ORIGINS and finds the adapter by discovery; the public dzship client, unchanged, is one of
 * the callers. The login token is the adapter's to keep: a run of calls logs in once, and a token Mylerz stops taking
 * is renewed without the caller noticing. Every call uses a canary password, which must come back in no log line,
 * response or row.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Fake, type Misbehaviour, MylerzFake } from "../../../../../adapters/mylerz/test/fake/MylerzFake.ts"
import { getJson } from "../../AppProcess.ts"
import { dzship, rejected } from "../../Dzship.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { besideCachedLookups, Platforms } from "../Platforms.ts"

/** The password no code path may ever print, store or return. */
const CANARY = "canary-mylerz-password-6b2f90e4a1c7"
const ACCOUNT = { username: "boutique@example.dz", password: CANARY }
const mylerz = { courier: "mylerz", credentials: ACCOUNT }

const order = (fullName = "Amina Benali", communeName = "Bab Ezzouar") => ({
  reference: "cmd-mylerz-1",
  recipient: { fullName, phone: "0555123456", wilayaCode: 16, communeName, addressLine: "Cité 5 juillet" },
  deliveryType: "home" as const,
  productList: "1x robe",
  codAmount: 4500
})

/** The fake, the shared app pointed at it, and every body the app answered this suite (scanned at the end). */
class Harness extends Context.Service<
  Harness,
  { readonly fake: Fake; readonly app: AppInProcess; readonly bodies: Array<string> }
>()("test/couriers/Mylerz/Harness") {}

/** The fake with this suite's account: `Platforms.db.test.ts` starts it before the app. */
export const fake = MylerzFake.layer({ accounts: [ACCOUNT] })

/** The origin this fake stands for, as TAWSIL_COURIER_ORIGINS names it. */
export const origins = Effect.map(MylerzFake, (fake) => [`https://integration.algeria.mylerz.net=${fake.origin}`])

const HarnessLive = Layer.effect(
  Harness,
  Effect.gen(function* () {
    const fake = yield* MylerzFake
    const { app } = yield* Platforms
    return { fake, app, bodies: [] }
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
export const suite = (it: Vitest.MethodsNonLive<Platforms | MylerzFake>) =>
  it.layer(HarnessLive)("the shipping API with the Mylerz adapter", (it) => {
    it.effect("lists Mylerz with its username and password, its capabilities, and no rates or desks", () =>
      Effect.gen(function* () {
        const { app } = yield* Harness
        const { status, body } = yield* getJson(`${app.shippingUrl}/v1/couriers?platform=mylerz`)
        assert.strictEqual(status, 200)
        assert.lengthOf(body, 1)
        const [entry] = body
        assert.deepInclude(entry, {
          key: "mylerz",
          platform: "mylerz",
          requiredCredentials: ["username", "password"],
          endpoint: "https://integration.algeria.mylerz.net"
        })
        const { create, track, trackBatch, cancel, label, rates, stopDesks, communes } = entry.capabilities
        assert.deepStrictEqual(
          { create, track, trackBatch, cancel, label, rates, stopDesks, communes },
          {
            create: true,
            track: true,
            trackBatch: true,
            cancel: true,
            label: true,
            rates: false,
            stopDesks: false,
            communes: true
          }
        )
      })
    )

    it.effect("creates (zone looked up, one login), tracks one and a batch, labels and cancels through the fake", () =>
      Effect.gen(function* () {
        const { fake } = yield* Harness
        const before = fake.requests.length
        const logins = fake.logins()
        const created = yield* post("/v1/orders", { ...mylerz, order: order("Amina Benali", "bab ezouar") })
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(created.json.status, "created")
        assert.strictEqual(created.json.rawStatus, "Uploaded")
        assert.deepStrictEqual(created.json.commune, { requested: "bab ezouar", sent: "Bab Ezzouar", corrected: true })
        const trackingNumber: string = created.json.trackingNumber
        assert.match(trackingNumber, /^\d{14}$/)
        assert.deepInclude(fake.packages.get(trackingNumber)?.order, {
          City: "Algiers",
          Neighborhood: "ALG-BEZ",
          Mobile_No: "0555123456",
          COD_Value: 4500,
          Reference: "cmd-mylerz-1"
        })

        fake.setClock("2026-09-27T09:12:40")
        fake.addStatus(trackingNumber, "Picked")
        fake.setClock("2026-09-28T14:02:33")
        fake.addStatus(trackingNumber, "Delivered, Thank you :-)")
        const tracked = yield* post("/v1/track", { ...mylerz, trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(tracked.json.status, "delivered")
        assert.deepStrictEqual(tracked.json.events.slice(1), [
          { status: "picked_up", rawStatus: "Picked", timestamp: "2026-09-27T09:12:40+01:00" },
          { status: "delivered", rawStatus: "Delivered, Thank you :-)", timestamp: "2026-09-28T14:02:33+01:00" }
        ])

        const second = yield* post("/v1/orders", { ...mylerz, order: order("Karim Haddad", "Hydra") })
        assert.strictEqual(second.status, 200, second.text)
        const batch = yield* post("/v1/track", {
          ...mylerz,
          trackingNumbers: [trackingNumber, second.json.trackingNumber, "29999999999999"]
        })
        assert.strictEqual(batch.status, 200, batch.text)
        assert.deepStrictEqual(
          batch.json.results.map(
            (result: { status?: string; error?: { code: string } }) => result.status ?? result.error?.code
          ),
          ["delivered", "created", "courier_refused"]
        )

        const label = yield* post("/v1/labels", { ...mylerz, trackingNumber })
        assert.strictEqual(label.status, 200)
        assert.include(label.headers.get("content-type") ?? "", "application/pdf")
        assert.isTrue(label.latin1.startsWith("%PDF-"))
        assert.include(label.latin1, `Mylerz AWB ${trackingNumber}`)

        const late = yield* post("/v1/cancel", { ...mylerz, trackingNumber })
        assert.deepStrictEqual([late.status, late.json.error.code], [409, "not_cancellable"])
        const cancelled = yield* post("/v1/cancel", { ...mylerz, trackingNumber: second.json.trackingNumber })
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        assert.strictEqual(cancelled.json.status, "cancelled")

        const sent = fake.requests.length
        const rates = yield* post("/v1/rates", { ...mylerz, query: { toWilaya: 16, deliveryType: "home" } })
        assert.deepStrictEqual([rates.status, rates.json.error.code], [400, "unsupported"])
        assert.strictEqual(fake.requests.length, sent, "no rates request reached the courier")

        assert.isAtMost(fake.logins() - logins, 1, "one login served every call")
        const requests = fake.requests.slice(before)
        // The city list is kept by the adapter (possibly already, by an earlier file of this worker): once at most.
        const cities = "GET /api/packages/GetCityZoneList"
        const received = besideCachedLookups(requests, [cities])
        assert.isAtMost(received.lookups(cities), 1)
        assert.includeMembers(received.calls, [
          "POST /api/Orders/AddOrders",
          "POST /api/packages/TrackPackages",
          "POST /api/packages/GetAWB",
          "POST /api/packages/CancelPackage"
        ])
        for (const request of requests) {
          if (request.path === "/token") continue
          assert.match(request.headers.authorization ?? "", /^Bearer /, request.path)
          assert.notInclude(request.text, CANARY, "the password goes to /token only")
        }
      })
    )

    it.effect("a token Mylerz stops taking is renewed once, unseen by the caller; a refused commune is unsent", () =>
      Effect.gen(function* () {
        const { fake } = yield* Harness
        const created = yield* post("/v1/orders", { ...mylerz, order: order("Nadia Saidi", "Hydra") })
        assert.strictEqual(created.status, 200, created.text)
        const logins = fake.logins()
        fake.expireTokens()
        const tracked = yield* post("/v1/track", { ...mylerz, trackingNumber: created.json.trackingNumber })
        assert.strictEqual(tracked.status, 200, tracked.text)
        assert.strictEqual(fake.logins(), logins + 1)

        const before = fake.requests.length
        const unknown = yield* post("/v1/orders", { ...mylerz, order: order("Nadia Saidi", "Bab Ezzouar Nord") })
        assert.deepStrictEqual([unknown.status, unknown.json.error.code], [422, "unknown_commune"])
        const unlisted = yield* post("/v1/orders", { ...mylerz, order: order("Nadia Saidi", "Kouba") })
        assert.deepStrictEqual([unlisted.status, unlisted.json.error.code], [422, "commune_not_served"])
        const desk = yield* post("/v1/orders", {
          ...mylerz,
          order: { ...order("Nadia Saidi", "Hydra"), deliveryType: "stopdesk", stopDeskId: "D1" }
        })
        assert.strictEqual(desk.status, 422, desk.text)
        assert.deepStrictEqual(
          paths(fake.requests.slice(before)).filter((path) => path.includes("AddOrders")),
          [],
          "nothing was created"
        )
      })
    )

    it.effect("the unchanged dzship client creates and tracks through mylerz, and reads rates as unsupported", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Harness
        const client = dzship({ ...mylerz, gateway: app.shippingUrl })
        const created = yield* Effect.promise(() => client.createOrder(order("Karim Haddad", "Hydra")))
        assert.match(created.trackingNumber, /^\d{14}$/)
        assert.strictEqual(created.status, "created")
        fake.addStatus(created.trackingNumber, "In-Transit")
        const tracked = yield* Effect.promise(() => client.track(created.trackingNumber))
        assert.strictEqual(tracked.status, "in_transit")
        const unsupported = yield* rejected(client.rates({ toWilaya: 16, deliveryType: "home" }))
        assert.deepStrictEqual([unsupported.status, unsupported.code], [400, "unsupported"])
      })
    )

    it.effect("failing calls answer in Tawsil's words: a wrong password, Mylerz's refusal, 5xx, HTML, a reset", () =>
      Effect.gen(function* () {
        const { fake } = yield* Harness
        const created = yield* post("/v1/orders", { ...mylerz, order: order("Sara Meziane", "Hydra") })
        const trackingNumber: string = created.json.trackingNumber
        const misbehaviours: ReadonlyArray<readonly [Misbehaviour, number, string]> = [
          [{ kind: "status", status: 500 }, 502, "courier_unreachable"],
          [{ kind: "html" }, 502, "courier_error"],
          [{ kind: "refuse", message: "Service is not available for this account" }, 422, "courier_refused"],
          [{ kind: "echoPassword" }, 422, "courier_refused"],
          [{ kind: "reset" }, 502, "courier_unreachable"]
        ]
        for (const [misbehaviour, status, code] of misbehaviours) {
          fake.misbehaveNext(misbehaviour, "/api/Orders/AddOrders")
          const refused = yield* post("/v1/orders", { ...mylerz, order: order("Client Test", "Hydra") })
          assert.deepStrictEqual([refused.status, refused.json?.error?.code], [status, code], misbehaviour.kind)
          fake.misbehaveNext(misbehaviour, "/api/packages/TrackPackages")
          const tracked = yield* post("/v1/track", { ...mylerz, trackingNumber })
          assert.deepStrictEqual([tracked.status, tracked.json?.error?.code], [status, code], misbehaviour.kind)
        }
        const wrong = yield* post("/v1/orders", {
          ...mylerz,
          credentials: { ...ACCOUNT, password: `${CANARY}-changed` },
          order: order()
        })
        assert.deepStrictEqual([wrong.status, wrong.json.error.code], [422, "credentials_rejected"])
        const check = yield* post("/v1/credentials/check", {
          ...mylerz,
          credentials: { ...ACCOUNT, password: `${CANARY}-changed` }
        })
        assert.strictEqual(check.status, 200, check.text)
        assert.isFalse(check.json.valid)
        const good = yield* post("/v1/credentials/check", mylerz)
        assert.deepStrictEqual(good.json, { courier: "mylerz", valid: true })
        for (const credentials of [{ username: ACCOUNT.username }, { ...ACCOUNT, password: "a\u0001b" }, {}]) {
          const refused = yield* post("/v1/track", { ...mylerz, credentials, trackingNumber })
          assert.strictEqual(refused.status, 400, refused.text)
        }
        const badTracking = yield* post("/v1/track", { ...mylerz, trackingNumber: "../token" })
        assert.strictEqual(badTracking.status, 422, badTracking.text)
      })
    )

    it.effect("the canary password appears in no log line, response body or database row", () =>
      Effect.gen(function* () {
        const { fake, app, bodies } = yield* Harness
        const created = yield* post(
          "/v1/orders",
          { ...mylerz, order: order("Nadia Saidi", "Hydra") },
          { "idempotency-key": "canary-mylerz-1" }
        )
        assert.strictEqual(created.status, 200, created.text)
        yield* post(
          "/v1/orders",
          { ...mylerz, order: order("Nadia Saidi", "Hydra") },
          { "idempotency-key": "canary-mylerz-1" }
        )
        assert.isTrue(
          fake.requests.some(
            (request) => request.path === "/token" && request.text.includes(encodeURIComponent(CANARY))
          ),
          "the canary did reach the courier's login"
        )
        assert.isTrue(
          bodies.some((body) => body.includes("<redacted>")),
          "Mylerz's refusal quoting the password reached the caller blanked out"
        )
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.include(everything, "canary-mylerz-1", "the idempotency record was stored")
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
            assert.notInclude(text, encodeURIComponent(CANARY), `the canary leaked into ${where}, encoded`)
          }
          for (const request of fake.requests) {
            const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]
            if (token !== undefined) {
              assert.notInclude(app.stdout(), token, "no login token in the log")
              assert.notInclude(everything, token, "no login token in the database")
            }
          }
        })
      })
    )
  })
