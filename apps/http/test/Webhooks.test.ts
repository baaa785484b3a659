/**
 * Webhooks through the store API, on each database (embedded always, the real server with DATABASE_URL), delivered
 * to a real loopback receiver that checks every signature with `@tawsil/signing`: subscriptions and their shapes,
 * every hostile URL class refused at subscription, the events an order's life sends (and those it does not), the
 * delivery log and a manual redelivery with the same event id.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Egress } from "@tawsil/courier"
import { WebhookSignature } from "@tawsil/signing"
import { Duration, Effect, Layer, Redacted, Result } from "effect"
import { hostileNames, hostileUrls } from "../../../packages/webhooks/test/HostileUrls.ts"
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
      it.effect(
        "manages subscriptions: the secret shown once, a list with no pagination fields, rotation, delete",
        () =>
          Effect.gen(function* () {
            const base = yield* baseUrl
            const store = yield* createStore()
            const k = key()
            const body = { url: "https://hooks.example.com/tawsil", events: ["order.created"], description: "ERP" }
            const created = yield* call(base, "POST", "/v1/webhooks", { token: store.token, key: k, body })
            assert.strictEqual(created.status, 200)
            const hook = created.body.data
            assert.match(hook.secret, /^whsec_[0-9a-f]{64}$/)
            assert.deepStrictEqual(
              { ...hook, secret: "…", id: 0, created_at: "…", updated_at: "…" },
              {
                id: 0,
                url: "https://hooks.example.com/tawsil",
                events: ["order.created"],
                active: true,
                description: "ERP",
                previous_secret_expires_at: null,
                created_at: "…",
                updated_at: "…",
                secret: "…"
              }
            )
            const replay = yield* call(base, "POST", "/v1/webhooks", { token: store.token, key: k, body })
            assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
            assert.strictEqual(replay.body.data.secret, null, "a replay never shows the secret again")
            assert.strictEqual(replay.body.data.id, hook.id)

            const list = yield* call(base, "GET", "/v1/webhooks", { token: store.token })
            assert.deepStrictEqual(Object.keys(list.body.data), ["items"])
            assert.strictEqual(list.body.data.items.length, 1)
            assert.notProperty(list.body.data.items[0], "secret")
            assert.notInclude(list.text, hook.secret)

            const rotated = yield* call(base, "PATCH", `/v1/webhooks/${hook.id}`, {
              token: store.token,
              key: key(),
              body: { rotate_secret: true, active: false }
            })
            assert.strictEqual(rotated.status, 200)
            assert.match(rotated.body.data.secret, /^whsec_/)
            assert.notStrictEqual(rotated.body.data.secret, hook.secret)
            assert.isString(rotated.body.data.previous_secret_expires_at)
            assert.strictEqual(rotated.body.data.active, false)

            const other = yield* createStore()
            const foreign = yield* call(base, "DELETE", `/v1/webhooks/${hook.id}`, { token: other.token, key: key() })
            assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "not_found"])
            const deleted = yield* call(base, "DELETE", `/v1/webhooks/${hook.id}`, { token: store.token, key: key() })
            assert.deepStrictEqual(deleted.body.data, { deleted: true, id: hook.id })
            const gone = yield* call(base, "GET", `/v1/webhooks/${hook.id}/deliveries`, { token: store.token })
            assert.strictEqual(gone.status, 404)
          })
      )

      it.effect("refuses every hostile URL class at subscription with 400, and names the rule", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const urls = [
            ...hostileUrls.map(([url]) => url).filter((url) => !new URL(url, "https://x").hostname.startsWith("127.")),
            ...Object.keys(hostileNames).map((name) => `https://${name}/hook`)
          ]
          for (const url of urls) {
            const answer = yield* call(base, "POST", "/v1/webhooks", {
              token: store.token,
              key: key(),
              body: { url, events: ["order.created"] }
            })
            assert.deepStrictEqual([answer.status, answer.body.error.code], [400, "bad_request"], url)
            assert.match(answer.body.error.message, /^url/, url)
          }
          const list = yield* call(base, "GET", "/v1/webhooks", { token: store.token })
          assert.deepStrictEqual(list.body.data.items, [])
        })
      )

      it.effect("scopes: webhooks:read and webhooks:write; a public key is refused", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* createStore()
          const admin = yield* Admin.Admin
          const app = yield* admin.createAppToken(store.id, ["orders:read"])
          const token = Redacted.value(app.token)
          const read = yield* call(base, "GET", "/v1/webhooks", { token })
          assert.deepStrictEqual([read.status, read.body.error.message], [403, "Missing scope: webhooks:read"])
          const write = yield* call(base, "POST", "/v1/webhooks", {
            token,
            key: key(),
            body: { url: "https://hooks.example.com/", events: ["order.created"] }
          })
          assert.deepStrictEqual([write.status, write.body.error.message], [403, "Missing scope: webhooks:write"])
          const publicKey = yield* admin.createKey(store.id, "public")
          const signedKey = yield* call(base, "GET", "/v1/webhooks", {
            headers: { authorization: `TW-Public ${publicKey.key_id}` }
          })
          assert.strictEqual(signedKey.status, 401)
        })
      )

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
