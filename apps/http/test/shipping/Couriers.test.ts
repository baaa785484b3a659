/**
 * A courier through the shipping API in memory, around what the courier itself cannot show: a create whose courier
 * commune list cannot be read goes on in the reference spelling and says so, hostile `options.baseUrl` values for a generic
 * platform key are refused before any courier is asked, the caller's credentials appear in no answer, couriers are
 * found by any alias, and the typed Effect client reads the declared failures as their classes. The same against
 * the Ecotrack fake through the app's process: `../Couriers.test.ts`, `../CourierCatalogue.test.ts`,
 * `../Clients.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { ShippingApi } from "@tawsil/api/shipping/Api"
import * as Errors from "@tawsil/api/shipping/Errors"
import { Effect } from "effect"
import { HttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { hostileBaseUrls, secret } from "../../../../packages/egress/test/fixtures/hostileBaseUrls.ts"
import * as InMemory from "./InMemory.ts"

const { codeOf, get, memcoCall, order, post } = InMemory

const CANARY = "canary-memco-token-3f8a1c0e9b27"

layer(InMemory.layer(), { excludeTestServices: true })("a courier through the shipping API (memory)", (it) => {
  it.effect(
    "creates in the reference spelling, saying so, when the courier's commune list cannot be read (issue 35)",
    () =>
      Effect.gen(function* () {
        const memco = yield* InMemory.Memco
        const key = { "idempotency-key": "list-fails-1" }
        const sent = memco.creates.length
        memco.failNextList.current = true
        const created = yield* post(
          "/v1/orders",
          { ...memcoCall(), order: { ...order, recipient: { ...order.recipient, communeName: "bab ezouar" } } },
          key
        )
        assert.strictEqual(created.status, 200, created.text)
        assert.strictEqual(memco.creates.length, sent + 1, "the create was sent although the list read failed")
        assert.deepStrictEqual(
          [created.body.commune.requested, created.body.commune.sent, created.body.commune.corrected],
          ["bab ezouar", "Bab Ezzouar", true]
        )
        assert.include(created.body.commune.warning, "the courier's commune list could not be read")
        assert.include(created.body.commune.warning, "the commune list did not come")
        const replayed = yield* post(
          "/v1/orders",
          { ...memcoCall(), order: { ...order, recipient: { ...order.recipient, communeName: "bab ezouar" } } },
          key
        )
        assert.strictEqual(replayed.text, created.text, "the key replays the answer, warning and all")
        assert.strictEqual(memco.creates.length, sent + 1)
      })
  )

  it.effect(`refuses ${hostileBaseUrls.length} hostile options.baseUrl values with 400, reaching no courier`, () =>
    Effect.gen(function* () {
      const memco = yield* InMemory.Memco
      const before = memco.cancels.length
      for (const { url, why } of hostileBaseUrls) {
        const answer = yield* post("/v1/cancel", {
          courier: "memco_tenant",
          credentials: { token: "ok" },
          options: { baseUrl: url },
          trackingNumber: "MEM1"
        })
        assert.strictEqual(answer.status, 400, `${why}: ${url}`)
        assert.include(["blocked_egress", "invalid_input"], answer.body.error.code, `${why}: ${url}`)
        assert.notInclude(answer.text, secret, `${why}: the refusal echoes a password`)
      }
      assert.strictEqual(memco.cancels.length, before, "no request reached the courier")
      assert.isAtLeast(hostileBaseUrls.length, 60)
      const missing = yield* post("/v1/cancel", { ...memcoCall(), courier: "memco_tenant", trackingNumber: "MEM1" })
      assert.deepStrictEqual(codeOf(missing), [400, "blocked_egress"], "a generic key needs its tenant")
      const tenant = yield* post("/v1/cancel", {
        ...memcoCall(),
        courier: "memco_tenant",
        options: { baseUrl: "https://acme.ecotrack.dz" },
        trackingNumber: "MEM1"
      })
      assert.strictEqual(tenant.status, 200, tenant.text)
    })
  )

  it.effect("never answers the caller's credentials back, whatever fails", () =>
    Effect.gen(function* () {
      const answers = [
        yield* post("/v1/orders", { courier: "memco", credentials: { token: CANARY }, order }),
        yield* post("/v1/orders", { courier: "memco", credentials: { token: CANARY, extra: CANARY }, order }),
        yield* post("/v1/orders", { courier: "sandbox", credentials: { token: CANARY }, order }),
        yield* post("/v1/orders", {
          courier: "memco",
          credentials: { token: CANARY },
          order: { ...order, codAmount: -1 }
        }),
        yield* post("/v1/rates", { courier: "memco", credentials: { token: CANARY }, query: { toWilaya: 99 } }),
        yield* post("/v1/labels", { courier: "memco", credentials: { token: CANARY }, trackingNumber: "MEM1" }),
        yield* post("/v1/credentials/check", { courier: "memco", credentials: { token: CANARY } })
      ]
      for (const answer of answers) assert.notInclude(answer.text, CANARY)
      assert.isTrue(answers.slice(1).every((answer) => answer.status >= 400))
    })
  )

  it.effect("lists a courier under its key, found by any alias however it is spelled", () =>
    Effect.gen(function* () {
      const keys = (q: string) =>
        Effect.map(get(`/v1/couriers?q=${encodeURIComponent(q)}`), (answer) =>
          (answer.body as ReadonlyArray<{ key: string }>).map((entry) => entry.key)
        )
      for (const q of ["mem_co", "MEM CO", "Mem-Co", "memco"]) assert.include(yield* keys(q), "memco", q)
      assert.deepStrictEqual(yield* keys("no such courier anywhere"), [])
      const listed = (yield* get("/v1/couriers")).body as ReadonlyArray<{ key: string; requiresBaseUrl: boolean }>
      assert.deepStrictEqual(listed.map((entry) => [entry.key, entry.requiresBaseUrl]).sort(), [
        ["memco", false],
        ["memco_tenant", true],
        ["sandbox", false]
      ])
    })
  )

  it.effect("the typed Effect client reads the declared failures as their classes", () =>
    Effect.gen(function* () {
      const http = yield* InMemory.Client
      const shipping = yield* HttpApiClient.make(ShippingApi, { baseUrl: "http://shipping.test" }).pipe(
        Effect.provideService(HttpClient.HttpClient, http)
      )
      const created = yield* shipping.shipping.createOrder({
        payload: { courier: "sandbox", order } as never,
        headers: { "idempotency-key": "typed-1" }
      })
      assert.strictEqual(created.status, "created")
      const unknown = yield* Effect.flip(
        shipping.shipping.track({ payload: { courier: "no-such-courier", trackingNumber: created.trackingNumber } })
      )
      assert.instanceOf(unknown, Errors.InvalidInput)
      assert.strictEqual(unknown instanceof Errors.InvalidInput && unknown.error.code, "unknown_courier")
      const limited = yield* Effect.flip(
        shipping.shipping.rates({
          payload: { ...memcoCall("limited"), query: { toWilaya: 16, deliveryType: "home" } } as never
        })
      )
      assert.instanceOf(limited, Errors.RateLimited)
      assert.strictEqual(limited instanceof Errors.RateLimited && limited.retryAfterSeconds, 42)
      const missing = yield* Effect.flip(shipping.reference.wilayas({ query: { code: 99 } }))
      assert.instanceOf(missing, Errors.NotFound)
      assert.strictEqual((yield* shipping.health()).service, "shipping")
    })
  )
})
