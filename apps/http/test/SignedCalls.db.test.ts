/**
 * Signed calls over a socket, on each database: a public key minted through `POST /v1/keys` answers 401 until an
 * operator activates it (announced to the running server: NOTIFY on a real server), and the origin listener has
 * neither `/v1/signups` nor `/v1/events` (404 whatever the method, no `Allow`). Signatures, gates, bodies, the
 * per-minute budget and usage counts are tested in memory (`store/Tracker.test.ts`). Concurrent calls, some of them
 * replays, go through the nonces' group commit (decision 0026): each nonce passes once, and every accepted event is
 * written once.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce, RequestSignature } from "@tawsil/signing"
import { Effect, Redacted } from "effect"
import { backends, baseUrl, call, createStore, originServer, sql, storeServer } from "./StoreHarness.ts"

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
const publicKeyStore = () =>
  Effect.gen(function* () {
    const store = yield* createStore()
    const admin = yield* Admin.Admin
    const created = yield* admin.createKey(store.id, "public").pipe(Effect.orDie)
    return { ...store, signer: { keyId: created.key_id, secret: Redacted.value(created.signing_secret!) } }
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

      it.effect(
        "concurrent calls, some replayed at once: each nonce passes once, every accepted event written once",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const store = yield* publicKeyStore()
            const nonces = Array.from({ length: 30 }, () => Nonce.make())
            // Every nonce once, and ten of them three times more (one in capitals), all sent together: replays land in
            // the same group as their first use, or in the next.
            const sends = [
              ...nonces,
              ...nonces.slice(0, 10).flatMap((nonce) => [nonce, nonce, nonce.toUpperCase()])
            ].map((nonce, n) => ({ nonce, body: { event: "page_view", properties: { n } } }))
            const answers = yield* Effect.forEach(
              sends,
              ({ nonce, body }) => signed(base, "/v1/events", store.signer, body, { nonce }),
              { concurrency: "unbounded" }
            )
            const passed = new Map<string, number>()
            for (const [index, answer] of answers.entries()) {
              const nonce = sends[index]!.nonce.toLowerCase()
              if (answer.status === 202) passed.set(nonce, (passed.get(nonce) ?? 0) + 1)
              else assert.deepStrictEqual([answer.status, answer.body.error.code], [401, "unauthorized"], answer.text)
            }
            assert.deepStrictEqual(
              [...passed.keys()].sort(),
              nonces.map((nonce) => nonce.toLowerCase()).sort(),
              "every nonce passed"
            )
            assert.isTrue(
              [...passed.values()].every((times) => times === 1),
              "and each once"
            )
            const refused = answers.filter((answer) => answer.status === 401)
            assert.strictEqual(refused.length, 30)
            for (const answer of refused) assert.match(answer.body.error.message, /already used/)

            // Written behind the answers: wait for the 30, then look again a moment later.
            const written = Effect.gen(function* () {
              const client = yield* sql
              return yield* client<{ nonce: string }>`SELECT nonce FROM tracked_events WHERE store_id = ${store.id}`
            }).pipe(Effect.orDie)
            let rows = yield* written
            for (let i = 0; i < 200 && rows.length < nonces.length; i++) {
              yield* Effect.sleep("25 millis")
              rows = yield* written
            }
            yield* Effect.sleep("100 millis")
            rows = yield* written
            assert.deepStrictEqual(rows.map((row) => row.nonce).sort(), [...passed.keys()].sort())
            const usage = yield* call(base, "GET", "/v1/usage", { token: store.token })
            assert.deepStrictEqual(usage.body.data.usage.event, { total: 30, billable: 30 })
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
