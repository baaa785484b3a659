/**
 * The confirmation workflow through HTTP on each database (embedded always, the real server with DATABASE_URL;
 * docs/confirmation.md): attempts and their history on `GET /v1/orders/{id}`, the outcomes that move the order and
 * fire its events, refused bodies in the envelope (fuzzed), links for pending orders only, and the store's timeout —
 * cancel or flag, each order once, with two sweepers (this server's and a second instance's) racing.
 */
import { assert, layer } from "@effect/vitest"
import { Confirmation, ConfirmationStoreSql, Orders } from "@tawsil/orders"
import { Secrets } from "@tawsil/secrets"
import { DeliverySignal, Outbox, WebhookStoreSql } from "@tawsil/webhooks"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { backends, baseUrl, call, createStore, sql, storeServer } from "./StoreHarness.ts"

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

let keys = 0
const key = () => `confirm-${Date.now()}-${++keys}`

/** A second instance's confirmation service over the same database: its own sweeper. */
const secondInstance = Confirmation.layer.pipe(
  Layer.provide(ConfirmationStoreSql.layer),
  Layer.provide(Orders.layerSql.pipe(Layer.provide(Outbox.layer))),
  Layer.provide([WebhookStoreSql.layer, DeliverySignal.layer, Secrets.layerTest])
)

/** A store with one product and a webhook subscription to the order events (recorded in the outbox, not sent). */
const setUp = Effect.gen(function* () {
  const base = yield* baseUrl
  const store = yield* createStore()
  const product = (yield* call(base, "POST", "/v1/products", {
    token: store.token,
    key: key(),
    body: { name: "Gandoura", price: 3000 }
  })).body.data
  const db = yield* sql
  yield* db`
    INSERT INTO webhook_subscriptions (store_id, url, events, active, secret)
    VALUES (${store.id}, 'https://hooks.example.com/tawsil', ARRAY['order.confirmed', 'order.cancelled'], true,
      'whsec_confirmation_test')`
  // A fresh Idempotency-Key each time the effect runs: each run is a new order.
  const newOrder = Effect.suspend(() =>
    call(base, "POST", "/v1/orders", {
      token: store.token,
      key: key(),
      body: { customer, items: [{ product_id: product.id, quantity: 2 }] }
    })
  ).pipe(Effect.map((answer) => answer.body.data as { readonly id: number; readonly status: string }))
  return { base, store, newOrder }
})

const events = (storeId: number, event: string) =>
  Effect.flatMap(
    sql,
    (db) => db<{ readonly n: number }>`
      SELECT count(*)::int AS n FROM webhook_events WHERE store_id = ${storeId} AND event = ${event}`
  ).pipe(Effect.map((rows) => rows[0]!.n))

for (const backend of backends) {
  layer(Layer.provideMerge(secondInstance, storeServer(backend)), {
    timeout: "120 seconds",
    excludeTestServices: true
  })(`confirmation workflow (${backend.name})`, (it) => {
    it.effect("records attempts with their history; confirmed moves the order and fires order.confirmed", () =>
      Effect.gen(function* () {
        const { base, store, newOrder } = yield* setUp
        const order = yield* newOrder
        const attempt = (body: unknown) =>
          call(base, "POST", `/v1/orders/${order.id}/confirmation-attempts`, { token: store.token, key: key(), body })

        const fresh = yield* call(base, "GET", `/v1/orders/${order.id}`, { token: store.token })
        assert.deepStrictEqual(fresh.body.data.confirmation, {
          state: null,
          attempts: 0,
          postponed_until: null,
          timed_out_at: null,
          history: []
        })
        // The existing fields keep their place: the confirmation comes last.
        assert.deepStrictEqual(Object.keys(fresh.body.data).at(-1), "confirmation")
        assert.deepStrictEqual(Object.keys(fresh.body.data).slice(0, -1).at(-1), "updated_at")

        assert.strictEqual((yield* attempt({ outcome: "no_answer" })).status, 200)
        const busy = yield* attempt({ outcome: "busy", note: "  line busy twice  " })
        assert.strictEqual(busy.body.data.confirmation.state, "busy")
        assert.strictEqual(busy.body.data.confirmation.history[1].note, "line busy twice")
        const postponed = yield* attempt({ outcome: "postponed", postponed_until: "2099-01-02T10:00:00+01:00" })
        assert.strictEqual(postponed.status, 200, postponed.text)
        assert.deepStrictEqual(
          [postponed.body.data.status, postponed.body.data.confirmation.postponed_until],
          ["pending", "2099-01-02 10:00:00"]
        )

        const confirmed = yield* attempt({ outcome: "confirmed", note: "called back" })
        assert.strictEqual(confirmed.status, 200, confirmed.text)
        assert.strictEqual(confirmed.body.data.status, "confirmed")
        assert.deepStrictEqual(
          [confirmed.body.data.confirmation.state, confirmed.body.data.confirmation.attempts],
          ["confirmed", 4]
        )
        assert.deepStrictEqual(
          confirmed.body.data.confirmation.history.map((entry: { outcome: string; source: string }) => [
            entry.outcome,
            entry.source
          ]),
          [
            ["no_answer", "api"],
            ["busy", "api"],
            ["postponed", "api"],
            ["confirmed", "api"]
          ]
        )
        assert.strictEqual(yield* events(store.id, "order.confirmed"), 1)
        const read = yield* call(base, "GET", `/v1/orders/${order.id}`, { token: store.token })
        assert.deepStrictEqual(read.body.data.confirmation, confirmed.body.data.confirmation)

        // The order left pending: no more attempts, no link.
        const late = yield* attempt({ outcome: "busy" })
        assert.deepStrictEqual([late.status, late.body.error.code], [400, "bad_request"])
        const link = yield* call(base, "POST", `/v1/orders/${order.id}/confirmation-link`, {
          token: store.token,
          key: key(),
          body: {}
        })
        assert.deepStrictEqual([link.status, link.body.error.code], [400, "bad_request"])

        // The table a risk score counts by phone.
        const db = yield* sql
        const rows = yield* db<{ readonly outcome: string; readonly customer_phone: string }>`
          SELECT outcome, customer_phone FROM order_confirmation_attempts WHERE order_id = ${order.id} ORDER BY id`
        assert.deepStrictEqual(rows.map((row) => [row.outcome, row.customer_phone]).at(-1), ["confirmed", "0555123456"])
      })
    )

    it.effect("fake, duplicate and customer_cancelled cancel the order and fire order.cancelled", () =>
      Effect.gen(function* () {
        const { base, store, newOrder } = yield* setUp
        for (const outcome of ["fake", "duplicate", "customer_cancelled"]) {
          const order = yield* newOrder
          const answer = yield* call(base, "POST", `/v1/orders/${order.id}/confirmation-attempts`, {
            token: store.token,
            key: key(),
            body: { outcome }
          })
          assert.strictEqual(answer.status, 200, answer.text)
          assert.deepStrictEqual(
            [answer.status, answer.body.data.status, answer.body.data.confirmation.state],
            [200, "cancelled", outcome]
          )
        }
        assert.strictEqual(yield* events(store.id, "order.cancelled"), 3)
      })
    )

    it.effect("refuses bad bodies with 400 bad_request in the envelope, writing nothing (fuzzed)", () =>
      Effect.gen(function* () {
        const { base, store, newOrder } = yield* setUp
        const order = yield* newOrder
        const path = `/v1/orders/${order.id}/confirmation-attempts`
        const refusals: ReadonlyArray<unknown> = [
          {},
          { outcome: "maybe" },
          { outcome: "postponed" },
          { outcome: "postponed", postponed_until: "2001-01-01T00:00:00Z" },
          { outcome: "postponed", postponed_until: "tomorrow" },
          { outcome: "busy", postponed_until: "2099-01-01T00:00:00Z" },
          { outcome: "busy", note: "x".repeat(501) },
          { outcome: "busy", note: "a\u0000b" },
          { outcome: "busy", note: 12 },
          [],
          "confirmed"
        ]
        for (const body of refusals) {
          const answer = yield* call(base, "POST", path, { token: store.token, key: key(), body })
          assert.deepStrictEqual([answer.status, answer.body?.error?.code], [400, "bad_request"], JSON.stringify(body))
          assert.isString(answer.body.meta.request_id)
        }

        // Rich input: control characters, huge numbers, deep nesting, in every field. Never a 500.
        const text = fc.string({
          unit: fc.oneof(
            fc.constantFrom("\u0000", "\u0007", "\u001b", "\ud800", "\u202e"),
            fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
          ),
          maxLength: 40
        })
        const value = fc.letrec((tie) => ({
          leaf: fc.oneof(
            text,
            fc.double(),
            fc.bigInt().map(String),
            fc.constant(1e308),
            fc.boolean(),
            fc.constant(null)
          ),
          node: fc.oneof(
            { depthSize: "small", withCrossShrink: true },
            tie("leaf"),
            fc.array(tie("node"), { maxLength: 3 }),
            fc.dictionary(text, tie("node"), { maxKeys: 3 })
          )
        })).node
        const body = fc.record(
          {
            outcome: fc.oneof(fc.constantFrom("busy", "no_answer", "postponed", "fake"), text, value),
            note: fc.oneof(text, value),
            postponed_until: fc.oneof(fc.constantFrom("2099-01-01T00:00:00Z", "2099-13-45"), text, value),
            deep: fc.constant(JSON.parse(`${"[".repeat(200)}${"]".repeat(200)}`))
          },
          { requiredKeys: [] }
        )
        // On a loaded machine the server may close a kept-alive socket as idle just as the client reuses it (a reset
        // before any answer): the one retry carries the same Idempotency-Key, so the body is still decided once.
        const send = (sample: unknown) => {
          const once = call(base, "POST", path, { token: store.token, key: key(), body: sample })
          return once.pipe(Effect.catchDefect(() => once))
        }
        const db = yield* sql
        const before = (yield* db<{ readonly n: number }>`
          SELECT count(*)::int AS n FROM order_confirmation_attempts WHERE order_id = ${order.id}`)[0]!.n
        let accepted = 0
        for (const sample of fc.sample(body, { numRuns: 40, seed: 36 })) {
          const answer = yield* send(sample)
          assert.include([200, 400], answer.status, answer.text)
          if (answer.status === 400) assert.strictEqual(answer.body.error.code, "bad_request")
          else {
            accepted++
            assert.include(["pending", "cancelled"], answer.body.data.status)
          }
        }
        const after = (yield* db<{ readonly n: number }>`
          SELECT count(*)::int AS n FROM order_confirmation_attempts WHERE order_id = ${order.id}`)[0]!.n
        assert.strictEqual(after - before, accepted)
        const malformed = yield* call(base, "POST", path, { token: store.token, key: key(), raw: "{outcome:" })
        assert.deepStrictEqual([malformed.status, malformed.body.error.code], [400, "bad_request"])
      })
    )

    it.effect("refuses a link's bad expiry and answers 404 for another store's order", () =>
      Effect.gen(function* () {
        const { base, store, newOrder } = yield* setUp
        const order = yield* newOrder
        const other = yield* createStore()
        for (const body of [{ expires_in: 10 }, { expires_in: 1e12 }, { expires_in: "soon" }, { expires_in: 1.5 }]) {
          const answer = yield* call(base, "POST", `/v1/orders/${order.id}/confirmation-link`, {
            token: store.token,
            key: key(),
            body
          })
          assert.deepStrictEqual([answer.status, answer.body.error.code], [400, "bad_request"], JSON.stringify(body))
        }
        const foreign = yield* call(base, "POST", `/v1/orders/${order.id}/confirmation-link`, {
          token: other.token,
          key: key(),
          body: {}
        })
        assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "not_found"])
        const made = yield* call(base, "POST", `/v1/orders/${order.id}/confirmation-link`, {
          token: store.token,
          key: key(),
          body: { expires_in: 3600 }
        })
        assert.strictEqual(made.status, 200, made.text)
        // The token rides in the query string, which access logs and traces drop.
        assert.strictEqual(made.body.data.url, `${base}/v1/confirm?token=${made.body.data.token}`)
        // The token is never stored: the link's row holds its random id only.
        const db = yield* sql
        const stored = yield* db<{ readonly row: string }>`
          SELECT row_to_json(l)::text AS row FROM order_confirmation_links l WHERE order_id = ${order.id}`
        assert.strictEqual(stored.length, 1)
        assert.notInclude(stored[0]!.row, made.body.data.token.split(".").at(-1))
      })
    )

    it.effect("the timeout cancels or flags each unanswered order once, however many sweepers run", () =>
      Effect.gen(function* () {
        const db = yield* sql
        const sweeper = yield* Confirmation.Confirmation
        for (const action of ["cancel", "flag"] as const) {
          const { base, store, newOrder } = yield* setUp
          const settings = yield* call(base, "PATCH", "/v1/confirmation/settings", {
            token: store.token,
            key: key(),
            body: { timeout_minutes: 60, timeout_action: action }
          })
          assert.deepStrictEqual(
            [settings.status, settings.body.data.timeout_minutes, settings.body.data.timeout_action],
            [200, 60, action]
          )
          const due = yield* newOrder
          const postponed = yield* newOrder
          const answered = yield* newOrder
          const young = yield* newOrder
          yield* call(base, "POST", `/v1/orders/${postponed.id}/confirmation-attempts`, {
            token: store.token,
            key: key(),
            body: { outcome: "postponed", postponed_until: "2099-01-01T09:00:00+01:00" }
          })
          yield* call(base, "POST", `/v1/orders/${answered.id}/confirmation-attempts`, {
            token: store.token,
            key: key(),
            body: { outcome: "confirmed" }
          })
          // Two hours pass for all but the young order (the timeout was turned on before they were made).
          yield* db`UPDATE store_confirmation_settings SET timeout_since = timeout_since - interval '3 hours'
            WHERE store_id = ${store.id}`
          yield* db`UPDATE orders SET created_at = created_at - interval '2 hours'
            WHERE store_id = ${store.id} AND id <> ${young.id}`

          // Two instances sweep at once, then again: the due order is handled once.
          const swept = yield* Effect.all([sweeper.sweep(), sweeper.sweep(), sweeper.sweep()], {
            concurrency: "unbounded"
          })
          const again = yield* sweeper.sweep()
          const timedOut = yield* db<{ readonly order_id: number }>`
            SELECT order_id FROM order_confirmation_attempts WHERE store_id = ${store.id} AND outcome = 'timed_out'`
          assert.deepStrictEqual(
            timedOut.map((row) => row.order_id),
            [due.id]
          )
          assert.isAtMost(swept.reduce((sum, n) => sum + n, 0) + again, 1)

          const read = (id: number) => call(base, "GET", `/v1/orders/${id}`, { token: store.token })
          const dueNow = (yield* read(due.id)).body.data
          assert.strictEqual(dueNow.status, action === "cancel" ? "cancelled" : "pending")
          assert.strictEqual(dueNow.confirmation.state, "timed_out")
          assert.isString(dueNow.confirmation.timed_out_at)
          assert.strictEqual(dueNow.confirmation.attempts, 0)
          for (const untouched of [postponed, young]) {
            assert.deepStrictEqual((yield* read(untouched.id)).body.data.status, "pending")
          }
          assert.strictEqual(yield* events(store.id, "order.cancelled"), action === "cancel" ? 1 : 0)
        }
      })
    )

    it.effect("settings: off by default, refused out of bounds, turned off with null", () =>
      Effect.gen(function* () {
        const { base, store } = yield* setUp
        const initial = yield* call(base, "GET", "/v1/confirmation/settings", { token: store.token })
        assert.deepStrictEqual(initial.body.data, {
          timeout_minutes: null,
          timeout_action: "flag",
          timeout_since: null
        })
        for (const body of [{ timeout_minutes: 0 }, { timeout_minutes: 43_201 }, { timeout_action: "delete" }, []]) {
          const refused = yield* call(base, "PATCH", "/v1/confirmation/settings", {
            token: store.token,
            key: key(),
            body
          })
          assert.deepStrictEqual([refused.status, refused.body.error.code], [400, "bad_request"], JSON.stringify(body))
        }
        const on = yield* call(base, "PATCH", "/v1/confirmation/settings", {
          token: store.token,
          key: key(),
          body: { timeout_minutes: 1440 }
        })
        assert.isString(on.body.data.timeout_since)
        const off = yield* call(base, "PATCH", "/v1/confirmation/settings", {
          token: store.token,
          key: key(),
          body: { timeout_minutes: null }
        })
        assert.deepStrictEqual(off.body.data, { timeout_minutes: null, timeout_action: "flag", timeout_since: null })
      })
    )
  })
}
