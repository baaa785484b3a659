/**
 * The batch forms of the signed calls over a socket, on each database (embedded always, the real server with
 * `DATABASE_URL`): N batches of events and signups sent at once through the store server, and every item accepted
 * written (`tracked_events`, `tracked_signups`) and counted (`GET /v1/usage`) — none lost, none twice. Item by item
 * answers, refusals and the budget are tested in memory (`store/TrackerBatch.test.ts`). The origin listener has no
 * batch route either (404 whatever the method, no `Allow`).
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Nonce, RequestSignature } from "@tawsil/signing"
import { Effect, Redacted } from "effect"
import { backends, baseUrl, call, createStore, originServer, sql, storeServer } from "./StoreHarness.ts"

interface Signer {
  readonly keyId: string
  readonly secret: string
}

/** A signed call, as a platform's backend makes it (the body's exact bytes are what is signed). */
const signed = (base: string, path: string, signer: Signer, body: unknown) => {
  const text = JSON.stringify(body)
  const headers = RequestSignature.headers({
    keyId: signer.keyId,
    secret: Redacted.make(signer.secret),
    body: text,
    timestamp: Math.floor(Date.now() / 1000),
    nonce: Nonce.make()
  })
  return call(base, "POST", path, { headers, raw: text })
}

const BATCHES = 12

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API signed batches (${backend.name})`,
    (it) => {
      it.effect("N batches at once: every accepted item written and counted, none lost", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const created = yield* (yield* Admin.Admin).createKey(store.id, "public").pipe(Effect.orDie)
          const signer = { keyId: created.key_id, secret: Redacted.value(created.signing_secret!) }
          const answers = yield* Effect.forEach(
            Array.from({ length: BATCHES }, (_, b) => b),
            (b) =>
              Effect.all([
                signed(base, "/v1/events/batch", signer, {
                  events: Array.from({ length: 500 }, (_, i) =>
                    // One item in 50 breaks a rule: refused by its index, the others accepted.
                    i % 50 === 7 ? { event: "bad event" } : { event: "page_view", properties: { b, i } }
                  )
                }),
                signed(base, "/v1/signups/batch", signer, {
                  signups: Array.from({ length: 40 }, (_, i) => ({ user: { id: `u_${i}` }, source: `batch ${b}` }))
                })
              ]),
            { concurrency: "unbounded" }
          )
          for (const [events, signups] of answers) {
            assert.strictEqual(events.status, 202, events.text)
            assert.strictEqual(events.body.data.accepted, 490)
            assert.deepStrictEqual(
              events.body.data.rejected.map((item: { index: number }) => item.index),
              Array.from({ length: 10 }, (_, k) => k * 50 + 7)
            )
            assert.deepStrictEqual([signups.status, signups.body.data], [202, { accepted: 40, rejected: [] }])
          }
          const accepted = answers.reduce((sum, [events]) => sum + events.body.data.accepted, 0)

          // Written behind the answers: wait until every accepted row is there, then look again a moment later.
          const count = Effect.gen(function* () {
            const client = yield* sql
            const [row] = yield* client<{ events: number; signups: number; billable: number }>`
              SELECT (SELECT count(*)::int FROM tracked_events WHERE store_id = ${store.id}) AS events,
                (SELECT count(*)::int FROM tracked_signups WHERE store_id = ${store.id}) AS signups,
                (SELECT count(*)::int FROM tracked_signups WHERE store_id = ${store.id} AND billable) AS billable`
            return row!
          }).pipe(Effect.orDie)
          let rows = yield* count
          for (let i = 0; i < 200 && (rows.events < accepted || rows.signups < BATCHES * 40); i++) {
            yield* Effect.sleep("25 millis")
            rows = yield* count
          }
          yield* Effect.sleep("100 millis")
          assert.deepStrictEqual(yield* count, { events: accepted, signups: BATCHES * 40, billable: 40 })
          const usage = yield* call(base, "GET", "/v1/usage", { token: store.token })
          assert.deepStrictEqual(
            [usage.body.data.usage.event, usage.body.data.usage.signup],
            [
              { total: accepted, billable: accepted },
              { total: BATCHES * 40, billable: 40 }
            ]
          )
        })
      )
    }
  )

  layer(originServer(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API origin listener without signed batches (${backend.name})`,
    (it) => {
      it.effect("has no /v1/signups/batch or /v1/events/batch: 404 whatever the method", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const created = yield* (yield* Admin.Admin).createKey(store.id, "public").pipe(Effect.orDie)
          const signer = { keyId: created.key_id, secret: Redacted.value(created.signing_secret!) }
          for (const path of ["/v1/signups/batch", "/v1/events/batch"]) {
            const post = yield* signed(base, path, signer, {
              events: [{ event: "e" }],
              signups: [{ user: { id: "u" } }]
            })
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
