/**
 * Signed calls through the store API, on each database: `POST /v1/signups` and `POST /v1/events` with a public key
 * (`TW-Public`, docs/signing.md) answer 202 at once; a key minted through `POST /v1/keys` answers 401 until an
 * operator activates it; every bad signature is 401 with its reason; the gates are 403; duplicates are handled as
 * the spec says; usage shows the `signup` and `event` groups; the origin listener has neither route.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce, RequestSignature } from "@tawsil/signing"
import { Effect, Redacted } from "effect"
import { backends, baseUrl, call, createStore, originServer, storeServer } from "./StoreHarness.ts"

let keys = 0
const key = () => `sc-${Date.now()}-${++keys}`

interface Signer {
  readonly keyId: string
  readonly secret: string
}

/** A signed call, as a platform's backend makes it (the body's exact bytes are what is signed). */
const signed = (
  base: string,
  path: string,
  signer: Signer,
  body: unknown,
  options: { readonly at?: number; readonly nonce?: string; readonly tamper?: (text: string) => string } = {}
) => {
  const text = JSON.stringify(body)
  const headers = RequestSignature.headers({
    keyId: signer.keyId,
    secret: Redacted.make(signer.secret),
    body: text,
    timestamp: options.at ?? Math.floor(Date.now() / 1000),
    nonce: options.nonce ?? Nonce.make()
  })
  return call(base, "POST", path, { headers, raw: options.tamper?.(text) ?? text })
}

/** A store and an active public key (the operator activated it). */
const publicKeyStore = (plan?: Admin.CreateStoreInput["plan"]) =>
  Effect.gen(function* () {
    const store = yield* createStore(plan === undefined ? {} : { plan })
    const admin = yield* Admin.Admin
    const created = yield* admin.createKey(store.id, "public").pipe(Effect.orDie)
    return { ...store, signer: { keyId: created.key_id, secret: Redacted.value(created.signing_secret!) } }
  })

/** The store's usage groups, once the tracker has written what was accepted. */
const usageOf = (base: string, token: string, expect: (groups: Record<string, { total: number }>) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const usage = yield* call(base, "GET", "/v1/usage", { token })
      const groups = Array.isArray(usage.body.data.usage) ? {} : usage.body.data.usage
      if (expect(groups)) return groups
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error("usage never showed the expected counts"))
  })

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API signed calls (${backend.name})`,
    (it) => {
      it.effect("a public key minted through POST /v1/keys answers 401 until the operator activates it", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const minted = yield* call(base, "POST", "/v1/keys", {
            token: store.token,
            key: key(),
            body: { type: "public", name: "site" }
          })
          assert.strictEqual(minted.status, 200)
          const signer = { keyId: minted.body.data.key_id, secret: minted.body.data.signing_secret }
          const before = yield* signed(base, "/v1/events", signer, { event: "page_view" })
          assert.deepStrictEqual([before.status, before.body.error.code], [401, "unauthorized"])
          const admin = yield* Admin.Admin
          yield* admin.setKeyStatus(signer.keyId, "active").pipe(Effect.orDie)
          // The activation is announced (NOTIFY on a server, heard within milliseconds): the next calls see it.
          let after = yield* signed(base, "/v1/events", signer, { event: "page_view" })
          for (let i = 0; i < 40 && after.status === 401; i++) {
            yield* Effect.sleep("50 millis")
            after = yield* signed(base, "/v1/events", signer, { event: "page_view" })
          }
          assert.strictEqual(after.status, 202, after.text)
          assert.deepStrictEqual(after.body.data, { accepted: true })
          assert.strictEqual(after.body.meta.request_id, after.headers.get("x-request-id"))
          assert.strictEqual(after.headers.get("x-api-version"), "v1")
        })
      )

      it.effect("refuses a wrong secret, a body changed by one byte, a timestamp 6 min off, a reused nonce: 401", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const { signer } = yield* publicKeyStore()
          const body = { event: "add_to_cart", properties: { product_id: 7 } }
          const now = Math.floor(Date.now() / 1000)
          const cases = [
            yield* signed(base, "/v1/events", { ...signer, secret: "0".repeat(64) }, body),
            yield* signed(base, "/v1/events", signer, body, { tamper: (text) => text.replace("7", "8") }),
            yield* signed(base, "/v1/events", signer, body, { at: now - 360 }),
            yield* signed(base, "/v1/events", signer, body, { at: now + 360 })
          ]
          const nonce = Nonce.make()
          const first = yield* signed(base, "/v1/events", signer, body, { nonce })
          assert.strictEqual(first.status, 202)
          cases.push(yield* signed(base, "/v1/events", signer, body, { nonce }))
          for (const answer of cases)
            assert.deepStrictEqual([answer.status, answer.body.error.code], [401, "unauthorized"])
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
          const unsigned = yield* call(base, "POST", "/v1/events", {
            headers: { authorization: `TW-Public ${signer.keyId}` },
            body
          })
          assert.deepStrictEqual(
            [unsigned.status, unsigned.body.error.message],
            [401, "Signed calls need the X-TW-Timestamp header"]
          )
        })
      )

      it.effect("a platform key or no key is refused; the plan and pilot gates are 403; a bad body 400", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* publicKeyStore()
          const bearer = yield* call(base, "POST", "/v1/events", { token: store.token, body: { event: "e" } })
          assert.deepStrictEqual([bearer.status, bearer.body.error.code], [401, "unauthorized"])
          const none = yield* call(base, "POST", "/v1/signups", { body: { user: { id: "u" } } })
          assert.strictEqual(none.status, 401)
          const pro = yield* publicKeyStore("pro")
          const refused = yield* signed(base, "/v1/events", pro.signer, { event: "e" })
          assert.deepStrictEqual(
            [refused.status, refused.body.error.message],
            [403, "API access requires an active Enterprise plan"]
          )
          const bad = yield* signed(base, "/v1/events", store.signer, { event: "not an event name" })
          assert.deepStrictEqual(
            [bad.status, bad.body.error.message],
            [400, "event is required: 1 to 64 characters among letters, digits and _ . : -"]
          )
          const notJson = yield* signed(base, "/v1/signups", store.signer, {}, { tamper: () => "{" })
          assert.strictEqual(notJson.status, 401, "the signature covers the bytes sent: a changed body fails it first")
        })
      )

      it.effect("counts signups (repeats in total only) and new events (duplicates nowhere) in usage and history", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* publicKeyStore()
          const admin = yield* Admin.Admin
          const second = yield* admin.createKey(store.id, "public").pipe(Effect.orDie)
          const other = { keyId: second.key_id, secret: Redacted.value(second.signing_secret!) }
          const nonce = Nonce.make()
          const answers = [
            yield* signed(base, "/v1/signups", store.signer, { user: { id: "u_1", email: "amina@example.dz" } }),
            yield* signed(base, "/v1/signups", store.signer, { user: { id: "u_1" } }),
            yield* signed(base, "/v1/signups", store.signer, { user: { id: "u_2" }, source: "landing" }),
            yield* signed(base, "/v1/events", store.signer, { event: "page_view" }, { nonce }),
            // Another key of the store with the same nonce: accepted, but the store has that event already.
            yield* signed(base, "/v1/events", other, { event: "page_view" }, { nonce }),
            yield* signed(base, "/v1/events", other, { event: "add_to_cart", user_id: "u_2" })
          ]
          for (const answer of answers) assert.strictEqual(answer.status, 202, answer.text)
          // Written behind the answers: wait until every accepted call is counted, then a little longer.
          const groups = yield* usageOf(
            base,
            store.token,
            (groups) => groups.signup?.total === 3 && (groups.event?.total ?? 0) >= 2
          )
          yield* Effect.sleep("300 millis")
          assert.deepStrictEqual((yield* usageOf(base, store.token, () => true)).event, { total: 2, billable: 2 })
          assert.deepStrictEqual(groups.signup, { total: 3, billable: 2 })
          assert.deepStrictEqual(groups.event, { total: 2, billable: 2 })
          // `to` is exclusive and floored to the hour: ask up to the next hour to see this one.
          const to = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())
          const history = yield* call(base, "GET", `/v1/usage/history?to=${to}`, { token: store.token })
          const rows = history.body.data.rows.filter(
            (row: { endpoint_group: string }) => row.endpoint_group !== "request"
          )
          assert.deepStrictEqual(
            rows.map((row: Record<string, unknown>) => [row.endpoint_group, row.count, row.billable_count]),
            [
              ["event", 2, 2],
              ["signup", 3, 2]
            ]
          )
          assert.notProperty(groups, "webhook", "deliveries are never metered")
        })
      )
    }
  )

  layer(originServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API origin listener without signed routes (${backend.name})`,
    (it) => {
      it.effect("has no /v1/signups or /v1/events: 404 whatever the method", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* publicKeyStore()
          for (const path of ["/v1/signups", "/v1/events"]) {
            const post = yield* signed(base, path, store.signer, { event: "e", user: { id: "u" } })
            assert.deepStrictEqual([post.status, post.body.error.code], [404, "not_found"], path)
            assert.strictEqual(post.body.error.message, `No route for POST ${path}`)
            const get = yield* call(base, "GET", path, {})
            assert.deepStrictEqual([get.status, get.headers.get("allow")], [404, null], path)
          }
        })
      )
    }
  )
}
