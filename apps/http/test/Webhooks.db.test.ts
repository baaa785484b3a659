/**
 * Webhook deliveries through the store API, on each database (embedded always, the real server with DATABASE_URL),
 * to a real loopback receiver that checks every signature with `@tawsil/signing`: the events an order's life sends
 * (and those it does not), the delivery log and a manual redelivery with the same event id. Subscriptions, their
 * shapes and every hostile URL class are tested in memory (`store/Webhooks.test.ts`).
 */
import { assert, layer } from "@effect/vitest"
import { Egress } from "@tawsil/egress"
import { WebhookSignature } from "@tawsil/signing"
import { Duration, Effect, Layer, Redacted, Result } from "effect"
import { hostileNames } from "../../../packages/webhooks/test/HostileUrls.ts"
import * as Receiver from "../../../packages/webhooks/test/Receiver.ts"
import { backends, baseUrl, call, createStore, storeServer } from "./StoreHarness.ts"

let keys = 0
const key = () => `wh-${Date.now()}-${++keys}`

const resolver = Layer.succeed(Egress.Resolver, {
  lookup: (host: string) =>
    Effect.succeed(host === "hooks.example.com" ? ["93.184.215.14"] : (hostileNames[host] ?? []))
})

const server = (backend: (typeof backends)[number]) =>
  storeServer(backend, {
    resolver,
    webhooks: {
      allowHosts: { hosts: new Set(["127.0.0.1"]) },
      retryDelays: [Duration.millis(100)],
      timeout: Duration.seconds(2)
    }
  })

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

const verifies = (received: Receiver.Received, secret: string) =>
  Result.isSuccess(
    WebhookSignature.verify({
      header: received.headers["x-tw-signature"] as string,
      body: received.body,
      secrets: [Redacted.make(secret)],
      nowSeconds: Math.floor(Date.now() / 1000)
    })
  )

for (const backend of backends) {
  layer(server(backend), { timeout: "120 seconds", excludeTestServices: true })(
    `store API webhooks (${backend.name})`,
    (it) => {
      it.effect("an order's life sends order.created, .confirmed and .shipped, signed; nothing else", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const receiver = yield* Receiver.start
          const store = yield* createStore()
          const created = yield* call(base, "POST", "/v1/webhooks", {
            token: store.token,
            key: key(),
            body: { url: `${receiver.url}/tawsil`, events: ["order.created", "order.confirmed", "order.shipped"] }
          })
          assert.strictEqual(created.status, 200, created.text)
          const secret: string = created.body.data.secret
          const product = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: { name: "Burnous", price: 6000, stock: 5 }
          })
          const order = yield* call(base, "POST", "/v1/orders", {
            token: store.token,
            key: key(),
            body: { customer, items: [{ product_id: product.body.data.id, quantity: 1 }] }
          })
          assert.strictEqual(order.status, 200)
          const refused = yield* call(base, "POST", "/v1/orders", {
            token: store.token,
            key: key(),
            body: { customer, items: [{ product_id: 999_999, quantity: 1 }] }
          })
          assert.strictEqual(refused.status, 400, "a refused create sends nothing")
          const id = order.body.data.id
          const moves: Array<Record<string, unknown>> = []
          for (const status of ["confirmed", "confirmed", "processing", "shipped", "delivered"]) {
            const moved = yield* call(base, "PATCH", `/v1/orders/${id}`, {
              token: store.token,
              key: key(),
              body: { status }
            })
            assert.strictEqual(moved.status, 200)
            moves.push(moved.body.data)
          }
          yield* Receiver.eventually(() => receiver.received.length >= 3)
          yield* Effect.sleep("1500 millis")
          const bodies = receiver.received.map((request) => JSON.parse(request.body.toString()))
          assert.deepStrictEqual(
            bodies.map((body) => body.event).sort(),
            ["order.confirmed", "order.created", "order.shipped"],
            "one each: no event for processing, delivered, a same-status PATCH or a refused create"
          )
          const byEvent = Object.fromEntries(bodies.map((body) => [body.event, body]))
          assert.deepStrictEqual(byEvent["order.created"].data, order.body.data, "the order as the API answered it")
          assert.deepStrictEqual(byEvent["order.confirmed"].data, moves[0])
          assert.deepStrictEqual(byEvent["order.shipped"].data, moves[3])
          for (const body of bodies) assert.strictEqual(body.store_id, store.id)
          for (const request of receiver.received) assert.isTrue(verifies(request, secret))
        }).pipe(Effect.scoped)
      )

      it.effect("shows each delivery's attempts, and redelivers one by hand with the same event id", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const receiver = yield* Receiver.start
          receiver.reply = (_, index) => ({ status: index === 0 ? 503 : 200 })
          const store = yield* createStore()
          const hook = yield* call(base, "POST", "/v1/webhooks", {
            token: store.token,
            key: key(),
            body: { url: `${receiver.url}/log`, events: ["order.created"] }
          })
          const product = yield* call(base, "POST", "/v1/products", {
            token: store.token,
            key: key(),
            body: { name: "Tapis", price: 9000 }
          })
          yield* call(base, "POST", "/v1/orders", {
            token: store.token,
            key: key(),
            body: { customer, items: [{ product_id: product.body.data.id, quantity: 1 }] }
          })
          yield* Receiver.eventually(() => receiver.received.length === 2)
          const path = `/v1/webhooks/${hook.body.data.id}/deliveries`
          let log = yield* call(base, "GET", path, { token: store.token })
          for (let i = 0; i < 100 && log.body.data.items[0]?.status !== "succeeded"; i++) {
            yield* Effect.sleep("50 millis")
            log = yield* call(base, "GET", path, { token: store.token })
          }
          assert.deepStrictEqual(Object.keys(log.body.data), ["items", "next_cursor", "has_more"])
          const [delivery] = log.body.data.items
          assert.strictEqual(delivery.event, "order.created")
          assert.strictEqual(delivery.status, "succeeded")
          assert.strictEqual(delivery.attempts, 2)
          assert.isNull(delivery.next_attempt_at)
          assert.deepStrictEqual(
            delivery.attempt_log.map((attempt: Record<string, unknown>) => [
              attempt.attempt,
              attempt.outcome,
              attempt.status_code,
              attempt.error
            ]),
            [
              [1, "failed", 503, "HTTP 503"],
              [2, "succeeded", 200, null]
            ]
          )
          for (const attempt of delivery.attempt_log) assert.isAtLeast(attempt.latency_ms, 0)
          const retried = yield* call(base, "POST", `${path}/${delivery.id}/retry`, { token: store.token, key: key() })
          assert.strictEqual(retried.status, 200)
          assert.strictEqual(retried.body.data.status, "pending")
          yield* Receiver.eventually(() => receiver.received.length === 3)
          const ids = receiver.received.map((request) => request.headers["x-tw-event-id"])
          assert.strictEqual(new Set(ids).size, 1, "the same event id on every delivery of it")
          assert.strictEqual(ids[0], delivery.event_id)
          const missing = yield* call(base, "POST", `${path}/999999/retry`, { token: store.token, key: key() })
          assert.deepStrictEqual([missing.status, missing.body.error.code], [404, "not_found"])
        }).pipe(Effect.scoped)
      )
    }
  )
}
