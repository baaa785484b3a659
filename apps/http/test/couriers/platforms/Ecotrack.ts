/**
 * The Ecotrack suite of `Platforms.db.test.ts`: the shipping API with a real courier adapter against a loopback fake
 * of the courier's documented API, through the app the platforms' suites share (`Platforms.ts`, in this process,
 * real sockets). The app reaches the fake only through TAWSIL_COURIER_ORIGINS, process configuration; every other
 * host stays behind the egress rules. The capacity guard's tests, which need an app with one place for creates, are
 * in `CreateCapacity.db.test.ts`.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { EcotrackFake, TOKEN } from "../../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { hostileBaseUrls, secret } from "../../../../../packages/egress/test/fixtures/hostileBaseUrls.ts"
import { postJson } from "../../AppProcess.ts"
import type { AppInProcess } from "../AppInProcess.ts"
import { originsOf, Platforms } from "../Platforms.ts"

/** A credential no code path may ever print, store or return. */
const CANARY = "canary-7c1e2d4a9b8f3e6d-tawsil"

const order = {
  reference: "cmd-77",
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
}

const post = (app: AppInProcess, path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${app.shippingUrl}${path}`, body, headers)

/**
 * The fake courier and the shared app whose DHD and Ecotrack-tenant origins point at it. The fake's throttle is
 * raised: the app here paces accounts on windows a thousandth as long (`AppInProcess`; `couriers/Documented` checks
 * the pace against the documented 50).
 */
class Setup extends Context.Service<
  Setup,
  { readonly fake: EcotrackFake["Service"]; readonly app: AppInProcess; readonly dataDir: string }
>()("test/couriers/Ecotrack/Setup") {}

/** The fake with this suite's tokens: `Platforms.db.test.ts` starts it before the app. */
export const fake = EcotrackFake.layer({ tokens: [TOKEN, CANARY], perMinute: 10_000 })

/** The origins this fake stands for: DHD's and the Ecotrack tenants'. */
export const origins = Effect.map(EcotrackFake, (fake) => originsOf({ ecotrack: fake }))

const SetupLive = Layer.effect(
  Setup,
  Effect.gen(function* () {
    const fake = yield* EcotrackFake
    const { app, dataDir } = yield* Platforms
    return { fake, app, dataDir }
  })
)

/** The creates that reached the fake since `before` was taken. */
export const createsSince = (fake: EcotrackFake["Service"]) => {
  const count = () => fake.requests.filter((request) => request.path === "/api/v1/create/order").length
  const before = count()
  return () => count() - before
}

/** The suite: `Platforms.db.test.ts` runs it with the app and the fake. */
export const suite = (it: Vitest.MethodsNonLive<Platforms | EcotrackFake>) =>
  it.layer(SetupLive)("the shipping API with the Ecotrack adapter", (it) => {
    it.effect(
      "creates (with the validation step), tracks and prices through DHD's pinned origin and a named tenant",
      () =>
        Effect.gen(function* () {
          const { fake, app } = yield* Setup
          for (const call of [
            { courier: "dhd", credentials: { token: TOKEN } },
            // A tenant of the catalogue on its pinned *.ecotrack.dz origin, named by an alias.
            { courier: "msm_go", credentials: { token: TOKEN } },
            { courier: "ecotrack", credentials: { token: TOKEN }, options: { baseUrl: "https://acme.ecotrack.dz" } }
          ]) {
            const created = yield* post(app, "/v1/orders", { ...call, order })
            assert.strictEqual(created.status, 200, created.text)
            assert.strictEqual(created.json.status, "pending_pickup")
            const tracked = yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber })
            assert.strictEqual(tracked.status, 200, tracked.text)
            assert.isArray(tracked.json.events)
            const rates = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })
            assert.strictEqual(rates.status, 200, rates.text)
            assert.strictEqual(rates.json.currency, "DZD")
            const label = yield* Effect.promise(async () => {
              const response = await fetch(`${app.shippingUrl}/v1/labels`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ ...call, trackingNumber: created.json.trackingNumber })
              })
              return { status: response.status, body: Buffer.from(await response.arrayBuffer()).toString("latin1") }
            })
            assert.strictEqual(label.status, 200)
            assert.isTrue(label.body.startsWith("%PDF-"))
            assert.include(label.body, created.json.trackingNumber)
          }
          const paths = fake.requests.map((request) => `${request.method} ${request.path}`)
          assert.includeMembers(paths, [
            "POST /api/v1/create/order",
            "POST /api/v1/valid/order",
            "GET /api/v1/get/tracking/info"
          ])
        })
    )

    it.effect("maps the courier's failures: refused → 422, down or garbage → 502, limited → 429 with Retry-After", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const call = { courier: "dhd", credentials: { token: TOKEN } }
        fake.misbehaveNext({ kind: "status", status: 500 })
        assert.strictEqual(
          (yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })).status,
          502
        )
        fake.misbehaveNext({ kind: "html" })
        assert.strictEqual(
          (yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })).status,
          502
        )
        fake.misbehaveNext({ kind: "rateLimited", retryAfter: "30" })
        const limited = yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 31, deliveryType: "home" } })
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.headers.get("retry-after"), "30")
        const elsewhere = { ...order, recipient: { ...order.recipient, wilayaCode: 33 } }
        // Bab Ezzouar is no commune of Illizi (33): the API stops the create itself, and the courier hears nothing.
        const sentBefore = fake.requests.length
        const unknown = yield* post(app, "/v1/orders", { ...call, order: elsewhere })
        assert.strictEqual(unknown.status, 422)
        assert.strictEqual(unknown.json.error.code, "unknown_commune")
        assert.strictEqual(fake.requests.length, sentBefore, "nothing reached the courier")
        // The courier's own refusal of a wilaya it does not serve: the commune sent unchecked (resolveCommune: false).
        const unserved = yield* post(app, "/v1/orders", {
          ...call,
          options: { resolveCommune: false },
          order: elsewhere
        })
        assert.strictEqual(unserved.status, 422)
        assert.strictEqual(unserved.json.error.code, "courier_refused")
        const badToken = yield* post(app, "/v1/orders", {
          courier: "dhd",
          credentials: { token: "wrong-token-123456" },
          order
        })
        assert.strictEqual(badToken.status, 422)
        assert.strictEqual(badToken.json.error.code, "credentials_rejected")
        fake.misbehaveNext({ kind: "hang" })
        const hung = yield* post(app, "/v1/track", { ...call, options: { timeoutMs: 1000 }, trackingNumber: "ECT1" })
        assert.strictEqual(hung.status, 502)
        assert.strictEqual(hung.json.error.code, "courier_unreachable")
      })
    )

    it.effect(
      "creates when the create's commune-list read fails, in the reference spelling and saying so; a create's own failure holds its key",
      () =>
        Effect.gen(function* () {
          const { fake, app } = yield* Setup
          const call = { courier: "dhd", credentials: { token: TOKEN } }
          // A tenant whose list no earlier test read: the host keeps lists it has read (decision 0035).
          const fresh = {
            courier: "ecotrack",
            credentials: { token: TOKEN },
            options: { baseUrl: "https://list-fails.ecotrack.dz" }
          }
          const creates = createsSince(fake)
          // The read of Ecotrack's communes, ahead of the create, fails: the create goes on all the same.
          fake.misbehaveNext({ kind: "status", status: 500 }, "/api/v1/get/communes")
          const created = yield* post(app, "/v1/orders", { ...fresh, order }, { "idempotency-key": "commune-read-1" })
          assert.strictEqual(created.status, 200, created.text)
          assert.include(created.json.commune.warning, "ecotrack communes:", "the answer names the read that failed")
          assert.strictEqual(created.json.commune.sent, "Bab Ezzouar")
          assert.strictEqual(creates(), 1)
          // The create's own failure still holds its key: the courier may have made the parcel.
          fake.misbehaveNext({ kind: "status", status: 500 }, "/api/v1/create/order")
          const unsure = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "create-fails-1" })
          assert.strictEqual(unsure.status, 502, unsure.text)
          assert.include(unsure.json.error.message, "dhd create:")
          const held = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "create-fails-1" })
          assert.strictEqual(held.status, 409, held.text)
          assert.strictEqual(held.json.error.code, "idempotency_in_flight")
        })
    )

    it.effect(`refuses ${hostileBaseUrls.length} hostile options.baseUrl values with 400, reaching no courier`, () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const before = fake.requests.length
        for (const { url, why } of hostileBaseUrls) {
          const response = yield* post(app, "/v1/track", {
            courier: "ecotrack",
            credentials: { token: TOKEN },
            options: { baseUrl: url },
            trackingNumber: "ECT1"
          })
          assert.strictEqual(response.status, 400, `${why}: ${url}`)
          assert.include(["blocked_egress", "invalid_input"], response.json.error.code, `${why}: ${url}`)
          assert.notInclude(response.text, secret, `${why}: the refusal echoes a password`)
        }
        assert.strictEqual(fake.requests.length, before, "no request reached any courier")
        assert.isAtLeast(hostileBaseUrls.length, 60)
      })
    )

    it.effect(
      "replays a create with the same Idempotency-Key and request, creating one parcel; refuses the key for another",
      () =>
        Effect.gen(function* () {
          const { fake, app } = yield* Setup
          const call = { courier: "dhd", credentials: { token: TOKEN } }
          const creates = createsSince(fake)
          const first = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "order-1001" })
          assert.strictEqual(first.status, 200, first.text)
          const again = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "order-1001" })
          assert.strictEqual(again.status, 200)
          assert.deepStrictEqual(again.json, first.json)
          assert.strictEqual(creates(), 1, "the replay created no second parcel")

          const other = yield* post(
            app,
            "/v1/orders",
            { ...call, order: { ...order, codAmount: 9999 } },
            { "idempotency-key": "order-1001" }
          )
          assert.strictEqual(other.status, 422)
          assert.strictEqual(other.json.error.code, "idempotency_key_reuse")

          // Another caller (other credentials) has its own keys.
          const otherCaller = yield* post(
            app,
            "/v1/orders",
            { courier: "dhd", credentials: { token: CANARY }, order },
            { "idempotency-key": "order-1001" }
          )
          assert.strictEqual(otherCaller.status, 200)
          assert.notStrictEqual(otherCaller.json.trackingNumber, first.json.trackingNumber)

          const malformed = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "has spaces!" })
          assert.strictEqual(malformed.status, 400)
          assert.hasAllKeys(malformed.json.error.fields, ["headers.idempotency-key"])

          // A failure that certainly created nothing frees the key: the retry runs again.
          const rejected = yield* post(
            app,
            "/v1/orders",
            { courier: "dhd", credentials: { token: "wrong-token-123456" }, order },
            { "idempotency-key": "order-1002" }
          )
          assert.strictEqual(rejected.json.error.code, "credentials_rejected")
          const rerun = yield* post(
            app,
            "/v1/orders",
            { courier: "dhd", credentials: { token: "wrong-token-123456" }, order },
            { "idempotency-key": "order-1002" }
          )
          assert.strictEqual(rerun.json.error.code, "credentials_rejected", "ran again, not a 409")

          // After a failure that may have created the parcel, the key stays claimed: a retry answers 409, not a
          // second parcel.
          fake.misbehaveNext({ kind: "reset" }, "/api/v1/create/order")
          const lost = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "order-1003" })
          assert.strictEqual(lost.status, 502)
          const createsBefore = creates()
          const retried = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "order-1003" })
          assert.strictEqual(retried.status, 409)
          assert.strictEqual(retried.json.error.code, "idempotency_in_flight")
          assert.isAbove(Number(retried.headers.get("retry-after")), 0)
          assert.strictEqual(creates(), createsBefore, "no second create was sent")
        })
    )

    // Last: it stops the app, to read its database.
    it.effect("the canary credential appears in no log, response, error body or database row", () =>
      Effect.gen(function* () {
        const { fake, app } = yield* Setup
        const call = { courier: "dhd", credentials: { token: CANARY } }
        const bodies: Array<string> = []
        const record = (response: { text: string }) => bodies.push(response.text)
        const created = yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-order-1" })
        record(created)
        record(yield* post(app, "/v1/orders", { ...call, order }, { "idempotency-key": "canary-order-1" }))
        record(yield* post(app, "/v1/track", { ...call, trackingNumber: created.json.trackingNumber }))
        record(yield* post(app, "/v1/rates", { ...call, query: { toWilaya: 16, deliveryType: "stopdesk" } }))
        const label = yield* Effect.promise(async () => {
          const response = await fetch(`${app.shippingUrl}/v1/labels`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...call, trackingNumber: created.json.trackingNumber })
          })
          return { status: response.status, text: Buffer.from(await response.arrayBuffer()).toString("latin1") }
        })
        assert.strictEqual(label.status, 200)
        record(label)
        for (const misbehaviour of [
          { kind: "status", status: 500 },
          { kind: "html" },
          { kind: "refuse", message: "Refus" },
          { kind: "echoToken" },
          { kind: "rateLimited" },
          { kind: "reset" }
        ] as const) {
          // A create reads Ecotrack's commune list first: each misbehaviour once on that read, once on the create.
          fake.misbehaveNext(misbehaviour)
          record(yield* post(app, "/v1/orders", { ...call, order }))
          fake.misbehaveNext(misbehaviour, "/api/v1/create/order")
          record(yield* post(app, "/v1/orders", { ...call, order }))
        }
        record(yield* post(app, "/v1/orders", { ...call, order: { ...order, codAmount: -1 } }))
        record(yield* post(app, "/v1/orders", { ...call, credentials: { token: CANARY, extra: CANARY }, order }))
        assert.isAbove(
          fake.requests.filter((request) => JSON.stringify(request).includes(CANARY)).length,
          0,
          "the canary did reach the courier"
        )

        // Once the app has stopped (the last test of `Platforms.db.test.ts`): its log and its database.
        const { afterStop } = yield* Platforms
        afterStop.push((everything) => {
          assert.isAbove(bodies.length, 8)
          for (const [where, text] of [
            ["responses and error bodies", bodies.join("\n")],
            ["stdout", app.stdout()],
            ["stderr", app.stderr()],
            ["the database", everything]
          ] as const) {
            assert.notInclude(text, CANARY, `the canary leaked into ${where}`)
          }
        })
      })
    )
  })
