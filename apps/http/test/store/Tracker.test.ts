/**
 * Signed calls through the store API in memory (`src/store/tracker`): `POST /v1/signups` and `POST /v1/events` with
 * a public key (`TW-Public`, docs/signing.md) answer 202; every bad signature is 401 with its reason; a platform key
 * or none is 401; the gates are 403; a bad body 400; they count against the store's per-minute budget (429 once
 * spent, on `TestClock` time); duplicates are counted as the spec says in usage and its history. A key's activation
 * heard from another process, and the origin listener without these routes, are `../SignedCalls.db.test.ts`'s.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce } from "@tawsil/signing"
import { Clock, Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore, signed } = InMemory

/** A store (Enterprise and pilot unless told) and an active public key of it. */
const publicKeyStore = (input: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const store = yield* createStore(input)
    return { ...store, signer: yield* InMemory.publicKey(store.id) }
  })

/** The store's usage groups, once the tracker has written what was accepted (it writes behind the answer). */
const usageOf = (store: InMemory.Caller, expect: (groups: Record<string, { total: number }>) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const usage = yield* store.get("/v1/usage")
      const groups = Array.isArray(usage.body.data.usage) ? {} : usage.body.data.usage
      if (expect(groups)) return groups
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error("usage never showed the expected counts"))
  })

layer(InMemory.layer(), { excludeTestServices: true })("signed calls (memory)", (it) => {
  it.effect("a signed event or signup answers 202 in the envelope, with the store's budget", () =>
    Effect.gen(function* () {
      const { signer } = yield* publicKeyStore()
      const event = yield* signed("/v1/events", signer, { event: "page_view" })
      assert.strictEqual(event.status, 202, event.text)
      assert.deepStrictEqual(event.body.data, { accepted: true })
      assert.strictEqual(event.body.meta.request_id, event.headers.get("x-request-id"))
      assert.strictEqual(event.headers.get("x-api-version"), "v1")
      assert.deepStrictEqual(
        [event.headers.get("ratelimit-limit"), event.headers.get("ratelimit-remaining")],
        ["600", "599"]
      )
      const signup = yield* signed("/v1/signups", signer, { user: { id: "u_1", email: "amina@example.dz" } })
      assert.deepStrictEqual([signup.status, signup.body.data], [202, { accepted: true }])
      assert.strictEqual(signup.headers.get("ratelimit-remaining"), "598")
    })
  )

  it.effect("refuses a wrong secret, a body changed by one byte, a timestamp 6 min off, a reused nonce: 401", () =>
    Effect.gen(function* () {
      const { signer } = yield* publicKeyStore()
      const body = { event: "add_to_cart", properties: { product_id: 7 } }
      const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const cases = [
        yield* signed("/v1/events", { ...signer, secret: "0".repeat(64) }, body),
        yield* signed("/v1/events", signer, body, { tamper: (text) => text.replace("7", "8") }),
        yield* signed("/v1/events", signer, body, { at: now - 360 }),
        yield* signed("/v1/events", signer, body, { at: now + 360 })
      ]
      const nonce = Nonce.make()
      const first = yield* signed("/v1/events", signer, body, { nonce })
      assert.strictEqual(first.status, 202)
      cases.push(yield* signed("/v1/events", signer, body, { nonce }))
      for (const answer of cases) {
        assert.deepStrictEqual(codeOf(answer), [401, "unauthorized"])
        assert.strictEqual(answer.body.meta.request_id, answer.headers.get("x-request-id"))
      }
      assert.deepStrictEqual(
        cases.map((answer) => answer.body.error.message.split(" ").slice(0, 3).join(" ")),
        [
          "X-TW-Signature does not",
          "X-TW-Signature does not",
          "X-TW-Timestamp is more",
          "X-TW-Timestamp is more",
          "X-TW-Nonce was already"
        ]
      )
      assert.include(cases[2]!.body.error.message, "server time")
      const unsigned = yield* call("POST", "/v1/events", {
        headers: { authorization: `TW-Public ${signer.keyId}` },
        body
      })
      assert.deepStrictEqual(
        [unsigned.status, unsigned.body.error.message],
        [401, "Signed calls need the X-TW-Timestamp header"]
      )
    })
  )

  it.effect("a platform key, no key or an inactive public key is 401; the plan and pilot gates are 403", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const bearer = yield* call("POST", "/v1/events", { token: store.token, body: { event: "e" } })
      assert.deepStrictEqual(codeOf(bearer), [401, "unauthorized"])
      const none = yield* call("POST", "/v1/signups", { body: { user: { id: "u" } } })
      assert.deepStrictEqual(codeOf(none), [401, "unauthorized"])
      for (const keyId of ["twpub_live_abcdefghijklm", "twpk_live_aaaaaaaaaaaaaa"]) {
        const unknown = yield* signed("/v1/events", { keyId, secret: store.signer.secret }, { event: "e" })
        assert.deepStrictEqual(codeOf(unknown), [401, "unauthorized"], keyId)
      }
      const admin = yield* Admin.Admin
      const suspended = yield* InMemory.publicKey(store.id)
      yield* admin.setKeyStatus(suspended.keyId, "suspended").pipe(Effect.orDie)
      const inactive = yield* signed("/v1/events", suspended, { event: "e" })
      assert.deepStrictEqual(
        [...codeOf(inactive), inactive.body.error.message],
        [
          401,
          "unauthorized",
          "Invalid public key: unknown, revoked or not active (a new public key waits for activation)"
        ]
      )
      yield* admin.setKeyStatus(suspended.keyId, "revoked").pipe(Effect.orDie)
      assert.deepStrictEqual(codeOf(yield* signed("/v1/events", suspended, { event: "e" })), [401, "unauthorized"])
      const minted = yield* store.write("POST", "/v1/keys", { type: "public", name: "site" })
      const waiting = { keyId: minted.body.data.key_id, secret: minted.body.data.signing_secret }
      assert.deepStrictEqual(
        codeOf(yield* signed("/v1/events", waiting, { event: "e" })),
        [401, "unauthorized"],
        "a key minted through the API waits for the operator"
      )
      yield* admin.setKeyStatus(waiting.keyId, "active").pipe(Effect.orDie)
      assert.strictEqual((yield* signed("/v1/events", waiting, { event: "e" })).status, 202, "activated")

      const pro = yield* publicKeyStore({ plan: "pro" })
      const refused = yield* signed("/v1/events", pro.signer, { event: "e" })
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "API access requires an active Enterprise plan"]
      )
      const unenrolled = yield* publicKeyStore({ pilot: false })
      const notPilot = yield* signed("/v1/signups", unenrolled.signer, { user: { id: "u" } })
      assert.deepStrictEqual(
        [...codeOf(notPilot), notPilot.body.error.message],
        [403, "forbidden", "API is in pilot mode; key not enrolled"]
      )
    })
  )

  it.effect("a signed body that breaks a rule or is not JSON is 400; a changed body fails the signature first", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const bad = yield* signed("/v1/events", store.signer, { event: "not an event name" })
      assert.deepStrictEqual(
        [...codeOf(bad), bad.body.error.message],
        [400, "bad_request", "event is required: 1 to 64 characters among letters, digits and _ . : -"]
      )
      const noUser = yield* signed("/v1/signups", store.signer, { source: "landing" })
      assert.deepStrictEqual(codeOf(noUser), [400, "bad_request"])
      const notJson = yield* signed("/v1/signups", store.signer, {}, { tamper: () => "{" })
      assert.strictEqual(notJson.status, 401, "the signature covers the bytes sent: a changed body fails it first")
      const signedNotJson = yield* call("POST", "/v1/events", {
        headers: InMemory.signedHeaders(store.signer, "{"),
        raw: "{"
      })
      assert.deepStrictEqual(
        [...codeOf(signedNotJson), signedNotJson.body.error.message],
        [400, "bad_request", "Body must be valid JSON"]
      )
    })
  )

  it.effect("counts signups (repeats in total only) and new events (duplicates nowhere) in usage and history", () =>
    Effect.gen(function* () {
      const store = yield* publicKeyStore()
      const admin = yield* Admin.Admin
      const second = yield* admin.createKey(store.id, "public").pipe(Effect.orDie)
      const other = { keyId: second.key_id, secret: Redacted.value(second.signing_secret!) }
      const nonce = Nonce.make()
      const answers = [
        yield* signed("/v1/signups", store.signer, { user: { id: "u_1", email: "amina@example.dz" } }),
        yield* signed("/v1/signups", store.signer, { user: { id: "u_1" } }),
        yield* signed("/v1/signups", store.signer, { user: { id: "u_2" }, source: "landing" }),
        yield* signed("/v1/events", store.signer, { event: "page_view" }, { nonce }),
        // Another key of the store with the same nonce: accepted, but the store has that event already.
        yield* signed("/v1/events", other, { event: "page_view" }, { nonce }),
        yield* signed("/v1/events", other, { event: "add_to_cart", user_id: "u_2" })
      ]
      for (const answer of answers) assert.strictEqual(answer.status, 202, answer.text)
      // Written behind the answers: wait until every accepted call is counted, then a little longer.
      const groups = yield* usageOf(store, (groups) => groups.signup?.total === 3 && (groups.event?.total ?? 0) >= 2)
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual((yield* usageOf(store, () => true)).event, { total: 2, billable: 2 })
      assert.deepStrictEqual(groups.signup, { total: 3, billable: 2 })
      assert.deepStrictEqual(groups.event, { total: 2, billable: 2 })
      assert.notProperty(groups, "webhook", "deliveries are never metered")
      // `to` is exclusive and floored to the hour: ask up to the next hour to see this one.
      const to = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())
      const history = yield* store.get(`/v1/usage/history?to=${to}`)
      const rows = history.body.data.rows.filter((row: { endpoint_group: string }) => row.endpoint_group !== "request")
      assert.deepStrictEqual(
        rows.map((row: Record<string, unknown>) => [row.endpoint_group, row.count, row.billable_count]),
        [
          ["event", 2, 2],
          ["signup", 3, 2]
        ]
      )
    })
  )
})

describe("signed calls on TestClock time (memory)", () => {
  it.effect("signed calls count against the store's per-minute budget, shared with its keyed calls: 429", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 10, 15, 10))
      const store = yield* publicKeyStore()
      yield* (yield* Admin.Admin).setQuota(store.id, { requestsPerMinute: 3 }).pipe(Effect.orDie)
      const first = yield* signed("/v1/events", store.signer, { event: "page_view" })
      assert.deepStrictEqual([first.status, first.headers.get("ratelimit-remaining")], [202, "2"])
      assert.strictEqual((yield* store.get("/v1/whoami")).headers.get("ratelimit-remaining"), "1", "one budget")
      const third = yield* signed("/v1/signups", store.signer, { user: { id: "u_1" } })
      assert.deepStrictEqual([third.status, third.headers.get("ratelimit-remaining")], [202, "0"])
      const spent = yield* signed("/v1/events", store.signer, { event: "page_view" })
      assert.deepStrictEqual(
        [...codeOf(spent), spent.body.error.retry_after, spent.headers.get("retry-after")],
        [429, "rate_limited", 50, "50"]
      )
      assert.strictEqual(spent.headers.get("ratelimit-remaining"), "0")
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/orders")), [429, "rate_limited"])
      yield* TestClock.adjust("50 seconds")
      assert.strictEqual((yield* signed("/v1/events", store.signer, { event: "page_view" })).status, 202)
    }).pipe(Effect.provide(InMemory.layer()))
  )
})
