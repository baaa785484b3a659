/**
 * Who am I, keys, usage and quotas through the store API in memory (`src/store/access`), and the access rules `Gate`
 * answers on every keyed call: 401 for the credentials (an unknown public key before any 403), the gates' 403s, the
 * per-minute budget (429 with `RateLimit-*` and `Retry-After`, on `TestClock` time) and the monthly quota (402),
 * what usage counts, and a public key on the origin listener (401 on every keyed endpoint).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { StoreApi } from "@tawsil/api/store/Api"
import { Gate } from "@tawsil/api/store/Endpoint"
import { Effect } from "effect"
import { HttpApi } from "effect/http-api"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore, key } = InMemory

const UNKNOWN_PUBLIC_KEY = "twpub_live_abcdefghijklm"

/** Every keyed endpoint (behind `Gate`), its path's parameters filled in. */
const keyedEndpoints: ReadonlyArray<readonly [string, string]> = (() => {
  const found: Array<readonly [string, string]> = []
  HttpApi.reflect(StoreApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      if (middleware.has(Gate as never)) found.push([endpoint.method, endpoint.path.replace(/:[a-z_]+/g, "1")])
    }
  })
  return found
})()

layer(InMemory.layer(), { excludeTestServices: true })("access (memory)", (it) => {
  it.effect("refuses a missing, malformed or unknown key with 401 in the envelope", () =>
    Effect.gen(function* () {
      for (const token of [undefined, "nonsense", "twpk_live_aaaaaaaaaaaaaa.0123", "twapp_live_00"]) {
        const answer = yield* call("GET", "/v1/whoami", { token })
        assert.deepStrictEqual(codeOf(answer), [401, "unauthorized"], String(token))
        assert.strictEqual(answer.body.meta.request_id, answer.headers.get("x-request-id"))
        assert.strictEqual(answer.headers.get("x-api-version"), "v1")
        assert.strictEqual(answer.headers.get("ratelimit-limit"), null, "not counted")
      }
      assert.strictEqual(
        (yield* call("GET", "/v1/whoami")).body.error.message,
        "Missing API key: send Authorization: Bearer <key_id>.<secret>"
      )
      const store = yield* createStore()
      const [keyId, secret] = store.token.split(".")
      const wrongSecret = yield* call("GET", "/v1/whoami", { token: `${keyId}.${"0".repeat(48)}` })
      assert.deepStrictEqual(
        [...codeOf(wrongSecret), wrongSecret.body.error.message],
        [401, "unauthorized", "Invalid API key: unknown, revoked or inactive key, or wrong secret"]
      )
      assert.notInclude(wrongSecret.text, secret!)
      yield* (yield* Admin.Admin).setKeyStatus(keyId!, "suspended").pipe(Effect.orDie)
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/whoami")), [401, "unauthorized"], "a suspended key")
    })
  )

  it.effect("whoami tells the key, the store, its plan, pilot enrolment and scopes", () =>
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Maison Tlemcen" })
      const me = yield* store.get("/v1/whoami")
      assert.strictEqual(me.status, 200)
      assert.strictEqual(me.body.data.auth, "platform_key")
      assert.deepStrictEqual(me.body.data.key, {
        key_id: store.keyId,
        type: "platform",
        name: me.body.data.key.name,
        rate_limit_tier: me.body.data.key.rate_limit_tier
      })
      assert.deepStrictEqual(me.body.data.store, { id: store.id, name: "Maison Tlemcen", slug: "maison-tlemcen" })
      assert.strictEqual(me.body.data.plan, "enterprise")
      assert.strictEqual(me.body.data.pilot, true)
      for (const scope of ["orders:write", "promos:read", "promos:write", "pixels:read", "pixels:write"]) {
        assert.include(me.body.data.scopes, scope)
      }
      assert.deepStrictEqual([me.headers.get("ratelimit-limit"), me.headers.get("ratelimit-remaining")], ["600", "599"])
      const app = yield* InMemory.appToken(store.id, ["orders:read"])
      const appMe = (yield* app.get("/v1/whoami")).body.data
      assert.deepInclude(appMe, { auth: "app_token", key: null, scopes: ["orders:read"] })
    })
  )

  it.effect("gates: Enterprise plan, pilot enrolment, scopes, platform keys for key management", () =>
    Effect.gen(function* () {
      const free = yield* createStore({ plan: "free" })
      const onFree = yield* free.get("/v1/orders")
      assert.deepStrictEqual(
        [...codeOf(onFree), onFree.body.error.message],
        [403, "forbidden", "API access requires an active Enterprise plan"]
      )
      assert.strictEqual(onFree.headers.get("ratelimit-limit"), "600", "a refusal is counted, and says so")

      const unenrolled = yield* createStore({ pilot: false })
      const notPilot = yield* unenrolled.get("/v1/orders")
      assert.deepStrictEqual(
        [...codeOf(notPilot), notPilot.body.error.message],
        [403, "forbidden", "API is in pilot mode; key not enrolled"]
      )

      const app = yield* InMemory.appToken(free.id, ["orders:read"])
      const appRead = yield* app.get("/v1/orders")
      assert.strictEqual(appRead.status, 200, "an installed-app token works on any plan")
      const appWrite = yield* app.write("POST", "/v1/orders", {})
      assert.deepStrictEqual(
        [...codeOf(appWrite), appWrite.body.error.message],
        [403, "forbidden", "Missing scope: orders:write"]
      )
      const noKey = yield* call("POST", "/v1/orders", { token: app.token, body: {} })
      assert.deepStrictEqual(codeOf(noKey), [403, "forbidden"], "refused before its Idempotency-Key is looked at")
      const appKeys = yield* app.get("/v1/keys")
      assert.deepStrictEqual(
        [...codeOf(appKeys), appKeys.body.error.message],
        [403, "forbidden", "Key management requires a platform key"]
      )
      const usage = yield* app.get("/v1/usage")
      assert.strictEqual(usage.body.error.message, "Missing scope: usage:read")
    })
  )

  it.effect("a public key is refused: 403 on key management (spec), 401 on every other keyed route", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const publicKey = yield* InMemory.publicKey(store.id)
      const headers = { authorization: `TW-Public ${publicKey.keyId}` }
      for (const [method, path] of [
        ["GET", "/v1/keys"],
        ["POST", "/v1/keys"],
        ["DELETE", `/v1/keys/${publicKey.keyId}`]
      ] as const) {
        const answer = yield* call(method, path, { headers, key: key(), ...(method === "POST" ? { body: {} } : {}) })
        assert.deepStrictEqual(
          [answer.status, answer.body.error.code, answer.body.error.message],
          [403, "forbidden", "Key management requires a platform key"],
          `${method} ${path}`
        )
        assert.strictEqual(answer.headers.get("ratelimit-limit"), null, "not counted")
      }
      assert.isAtLeast(keyedEndpoints.length, 40, "every keyed endpoint")
      for (const [method, path] of keyedEndpoints.filter(([, path]) => !path.startsWith("/v1/keys"))) {
        const answer = yield* call(method, path, { headers, key: key() })
        assert.deepStrictEqual(
          [...codeOf(answer), answer.body.error.message],
          [
            401,
            "unauthorized",
            "Public keys only sign /v1/signups and /v1/events; call this endpoint with a platform key (Bearer <key_id>.<secret>)"
          ],
          `${method} ${path}`
        )
      }
    })
  )

  it.effect("an unknown, suspended or revoked public key is 401 before any 403, key management included", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const suspended = yield* InMemory.publicKey(store.id)
      const revoked = yield* InMemory.publicKey(store.id)
      const admin = yield* Admin.Admin
      yield* admin.setKeyStatus(suspended.keyId, "suspended").pipe(Effect.orDie)
      yield* admin.setKeyStatus(revoked.keyId, "revoked").pipe(Effect.orDie)
      for (const keyId of [UNKNOWN_PUBLIC_KEY, suspended.keyId, revoked.keyId, "twpub_live_short"]) {
        for (const [method, path] of [
          ["GET", "/v1/keys"],
          ["POST", "/v1/keys"],
          ["DELETE", `/v1/keys/${keyId}`]
        ] as const) {
          const answer = yield* call(method, path, {
            headers: { authorization: `TW-Public ${keyId}` },
            key: key(),
            ...(method === "POST" ? { body: {} } : {})
          })
          assert.deepStrictEqual(
            [...codeOf(answer), answer.body.error.message],
            [401, "unauthorized", "Invalid API key: unknown, revoked or inactive key, or wrong secret"],
            `${keyId} ${method} ${path}`
          )
        }
      }
    })
  )

  it.effect("on the origin listener every public-key call is 401, and the signed routes are absent", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const active = yield* InMemory.publicKey(store.id)
      for (const keyId of [active.keyId, UNKNOWN_PUBLIC_KEY]) {
        for (const [method, path] of keyedEndpoints) {
          const answer = yield* call(method, path, {
            headers: { authorization: `TW-Public ${keyId}` },
            listener: "origin"
          })
          assert.deepStrictEqual(
            [...codeOf(answer), answer.body.error.message],
            [
              401,
              "unauthorized",
              "Public keys are not accepted on this host; call it with a platform key (Bearer <key_id>.<secret>)"
            ],
            `${keyId} ${method} ${path}`
          )
        }
      }
      for (const path of ["/v1/signups", "/v1/events"]) {
        const answer = yield* call("POST", path, {
          headers: { authorization: `TW-Public ${active.keyId}` },
          body: {},
          listener: "origin"
        })
        assert.deepStrictEqual(
          [...codeOf(answer), answer.body.error.message],
          [404, "not_found", `No route for POST ${path}`]
        )
      }
      assert.strictEqual((yield* store.get("/v1/whoami")).status, 200, "a platform key is fine on either")
      const unauthenticated = yield* call("GET", "/v1/orders", { token: store.token, listener: "origin" })
      assert.strictEqual(unauthenticated.status, 200)
    })
  )

  it.effect("keys: list, mint within 3 active, replay without the secret, revoke", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const mintKey = key()
      const minted = yield* store.write("POST", "/v1/keys", { name: "erp" }, mintKey)
      assert.strictEqual(minted.status, 200)
      assert.match(minted.body.data.key_id, /^twpk_live_[a-z0-9]{14}$/)
      const mintedToken: string = minted.body.data.bearer_token
      assert.match(mintedToken, /^twpk_live_[a-z0-9]{14}\.[0-9a-f]{48}$/)
      const replayed = yield* store.write("POST", "/v1/keys", { name: "erp" }, mintKey)
      assert.strictEqual(replayed.headers.get("idempotency-replay"), "1")
      assert.strictEqual(replayed.body.data.key_id, minted.body.data.key_id)
      assert.strictEqual(replayed.body.data.bearer_token, null, "a secret is shown once and never stored")
      assert.notInclude(replayed.text, mintedToken.split(".")[1]!)
      const withMinted = yield* InMemory.caller(mintedToken).get("/v1/whoami")
      assert.strictEqual(withMinted.status, 200)
      assert.notInclude(withMinted.body.data.scopes, "promos:read", "a minted key has the core scopes only")
      const publicKey = yield* store.write("POST", "/v1/keys", { type: "public" })
      assert.strictEqual(publicKey.body.data.bearer_token, null)
      assert.match(publicKey.body.data.key_id, /^twpub_live_[a-z0-9]{13}$/)
      const fourth = yield* store.write("POST", "/v1/keys", {})
      assert.deepStrictEqual(codeOf(fourth), [400, "bad_request"])
      const badType = yield* store.write("POST", "/v1/keys", { type: "x" })
      assert.deepStrictEqual(codeOf(badType), [400, "bad_request"])

      const listed = yield* store.get("/v1/keys")
      assert.strictEqual(listed.body.data.items.length, 3)
      assert.notInclude(listed.text, mintedToken.split(".")[1]!)
      const revoked = yield* store.write("DELETE", `/v1/keys/${minted.body.data.key_id}`)
      assert.deepStrictEqual(revoked.body.data, { revoked: true, key_id: minted.body.data.key_id })
      const again = yield* store.write("DELETE", `/v1/keys/${minted.body.data.key_id}`)
      assert.deepStrictEqual(codeOf(again), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", "/v1/keys/%00")), [404, "not_found"])
      const after = yield* store.get("/v1/keys")
      assert.strictEqual(after.body.data.items.length, 2)
      const revokedToken = yield* InMemory.caller(mintedToken).get("/v1/whoami")
      assert.strictEqual(revokedToken.status, 401, "a revoked key stops working")
      const other = yield* createStore()
      const foreign = yield* other.write("DELETE", `/v1/keys/${store.keyId}`)
      assert.deepStrictEqual(codeOf(foreign), [404, "not_found"], "another store's key")
    })
  )

  it.effect("usage counts every authenticated call before processing, not ping nor cache hits", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const empty = yield* store.get("/v1/usage")
      assert.strictEqual(empty.status, 200)
      assert.match(empty.body.data.period, /^\d{4}-\d{2}$/)
      assert.strictEqual(empty.body.data.tier, "enterprise")
      assert.strictEqual(empty.body.data.limits.requests_per_minute, 600)
      yield* call("GET", "/v1/ping", { token: store.token })
      yield* store.get("/v1/store")
      assert.strictEqual((yield* store.get("/v1/store")).headers.get("x-cache"), "HIT")
      yield* store.write("POST", "/v1/orders", {}) // a 400 counts
      const usage = yield* store.get("/v1/usage")
      // the first usage call, the store miss, the refused order, this call
      assert.deepStrictEqual(usage.body.data.usage.request, { total: 4, billable: 0 })
      const quotas = yield* store.get("/v1/quotas")
      assert.strictEqual(quotas.body.data.effective.requests_per_minute, 600)
      assert.strictEqual(quotas.body.data.overrides, null)
      yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: 100 }).pipe(Effect.orDie)
      const overridden = (yield* store.get("/v1/quotas")).body.data
      assert.strictEqual(overridden.effective.requests_per_minute, 100)
      assert.strictEqual(overridden.overrides.requests_per_minute, 100)
    })
  )

  it.effect("usage history: from defaults to 7 days before now (Algiers time), whatever `to` says", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const history = (query: string) => store.get(`/v1/usage/history${query}`)
      const weekAgo = Date.now() - 7 * 24 * 3_600_000
      const plain = yield* history("")
      assert.strictEqual(plain.status, 200)
      assert.isBelow(Math.abs(Date.parse(plain.body.data.from) - weekAgo), 60_000, plain.body.data.from)
      assert.isBelow(Math.abs(Date.parse(plain.body.data.to) - Date.now()), 60_000, plain.body.data.to)
      assert.match(plain.body.data.from, /\+01:00$/, "shown in Algiers time")
      const yesterday = new Date(Date.now() - 24 * 3_600_000).toISOString()
      const toYesterday = yield* history(`?to=${encodeURIComponent(yesterday)}`)
      assert.strictEqual(toYesterday.status, 200)
      assert.isBelow(Math.abs(Date.parse(toYesterday.body.data.from) - weekAgo), 60_000, "not 7 days before to")
      const longAgo = yield* history(`?to=${encodeURIComponent(new Date(weekAgo - 86_400_000).toISOString())}`)
      assert.deepStrictEqual(
        [...codeOf(longAgo), longAgo.body.error.message],
        [400, "bad_request", "from/to must be valid date strings, to >= from"]
      )
    })
  )
})

describe("access on TestClock time (memory)", () => {
  /** A minute of the store's budget, started five seconds in. */
  const minuteStart = Date.UTC(2026, 10, 27, 10, 15, 0)

  it.effect("rate limit: the store's per-minute budget, 429 with Retry-After, a new window a minute on", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(minuteStart + 5_000)
      const admin = yield* Admin.Admin
      const limited = yield* createStore()
      yield* admin.setQuota(limited.id, { requestsPerMinute: 3 }).pipe(Effect.orDie)
      const answers: Array<InMemory.Answer> = []
      for (let i = 0; i < 5; i++) answers.push(yield* limited.get("/v1/orders"))
      assert.deepStrictEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 429, 429]
      )
      assert.deepStrictEqual(
        answers.map((answer) => answer.headers.get("ratelimit-remaining")),
        ["2", "1", "0", "0", "0"]
      )
      assert.deepStrictEqual(
        answers.slice(0, 3).map((answer) => answer.headers.get("ratelimit-limit")),
        ["3", "3", "3"]
      )
      const refused = answers[3]!
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message, refused.body.error.retry_after],
        [429, "rate_limited", "Rate limit of 3 requests per minute exceeded; retry in 55 s", 55]
      )
      assert.strictEqual(refused.headers.get("retry-after"), "55")
      assert.strictEqual(refused.headers.get("ratelimit-reset"), "55")
      assert.strictEqual(refused.headers.get("ratelimit-limit"), "3")
      assert.strictEqual(refused.headers.get("x-api-version"), "v1")
      // Every key of the store shares the budget.
      const other = yield* InMemory.keyWithScopes(limited.id, ["orders:read"])
      assert.strictEqual((yield* other.get("/v1/orders")).status, 429)
      yield* TestClock.adjust("55 seconds")
      const next = yield* limited.get("/v1/orders")
      assert.deepStrictEqual([next.status, next.headers.get("ratelimit-remaining")], [200, "2"])
    }).pipe(Effect.provide(InMemory.layer()))
  )

  it.effect("monthly quota: 402 on every endpoint once spent, until the 1st", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(minuteStart)
      const monthly = yield* createStore()
      yield* (yield* Admin.Admin).setQuota(monthly.id, { requestsPerMonth: 2 }).pipe(Effect.orDie)
      const statuses: Array<number> = []
      for (let i = 0; i < 3; i++) statuses.push((yield* monthly.get("/v1/orders")).status)
      assert.deepStrictEqual(statuses, [200, 200, 402])
      const usage = yield* monthly.get("/v1/usage")
      assert.deepStrictEqual(
        [...codeOf(usage), usage.body.error.message],
        [402, "quota_exceeded", "Monthly request quota exhausted until the 1st of next month"],
        "the quota holds on every endpoint"
      )
      yield* TestClock.setTime(Date.UTC(2026, 11, 1, 0, 0, 0))
      assert.strictEqual((yield* monthly.get("/v1/orders")).status, 200, "a new month (Algiers time)")
    }).pipe(Effect.provide(InMemory.layer()))
  )
})
