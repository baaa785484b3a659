/**
 * Delivery end to end on each database (embedded always, the real server with `DATABASE_URL`): order events through
 * the outbox (`Outbox`, as `Orders` tells them), the dispatcher, a real loopback receiver that checks signatures with
 * `@tawsil/signing` (`X-TW-Signature`) and with the Standard Webhooks library (`standardwebhooks`, given the secret
 * as shown; `webhook-id` the event id on every attempt): at least once with the same event id, exactly five attempts, nothing before commit or after a
 * rollback, the URL rules again at delivery, no redirect followed, timeouts, two dispatchers sharing the work.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { OrderEvents, type OrderViews } from "@tawsil/orders"
import { WebhookSignature } from "@tawsil/signing"
import { Duration, Effect, Layer, Redacted, References, Result, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { Webhook } from "standardwebhooks"
import * as DeliverySignal from "../src/DeliverySignal.ts"
import * as Dispatcher from "../src/Dispatcher.ts"
import * as Outbox from "../src/Outbox.ts"
import * as WebhookHttp from "../src/WebhookHttp.ts"
import { WebhookStore } from "../src/WebhookStore.ts"
import * as Webhooks from "../src/Webhooks.ts"
import * as WebhookUrl from "../src/WebhookUrl.ts"
import { backends, newStore, sqlStore } from "./Backends.ts"
import { hostileNames } from "./HostileUrls.ts"
import * as Receiver from "./Receiver.ts"

/** DNS as the tests say it is; a test may change an answer between subscription and delivery. */
const answers = new Map<string, ReadonlyArray<string>>(Object.entries(hostileNames))
const resolver = Layer.succeed(Egress.Resolver, {
  lookup: (host: string) => Effect.succeed(answers.get(host) ?? [])
})

const loopback = Result.getOrThrow(WebhookUrl.parseAllowHosts("127.0.0.1"))

/** An order detail as the API answers it. */
const order = (id: number, status: OrderViews.OrderDetail["status"] = "pending"): OrderViews.OrderDetail => ({
  id,
  order_number: `ORD-1-20261121-${String(id).padStart(8, "0")}`,
  status,
  payment_status: "pending",
  payment_method: "cod",
  customer: {
    id: 1,
    name: "Amina Benali",
    phone: "0555123456",
    email: null,
    wilaya_id: 16,
    commune: "Bab Ezzouar",
    address: ""
  },
  delivery: { type: "home", desk_id: null, desk_name: null },
  amounts: { subtotal: 4500, shipping_cost: 400, discount: 0, payment_fee: 0, total: 4900 },
  items: [],
  shipment: null,
  created_at: "2026-11-21 10:00:00",
  updated_at: "2026-11-21 10:00:00"
})

let orders = 0

/** Tells the outbox that an order was created (as `Orders.create` does, inside its transaction). */
const created = (storeId: number) =>
  Effect.flatMap(OrderEvents.OrderEvents, (listener) =>
    listener.record(new OrderEvents.OrderCreated({ storeId: Ids.StoreId.make(storeId), order: order(++orders) }))
  )

const services = (backend: (typeof backends)[number]) => {
  const signal = DeliverySignal.layer
  const store = sqlStore(backend)
  return Layer.mergeAll(
    Outbox.layer,
    Webhooks.layer({ allowHosts: loopback }),
    WebhookHttp.layer,
    signal,
    resolver
  ).pipe(
    Layer.provide([signal, resolver]),
    Layer.provideMerge(store),
    Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Warn"))
  )
}

type Services = WebhookStore | DeliverySignal.DeliverySignal | WebhookHttp.WebhookHttp | Egress.Resolver

/** A dispatcher for the rest of the test's scope. */
const dispatcher = (options: Partial<Dispatcher.Options> = {}): Effect.Effect<void, never, Services | Scope.Scope> =>
  Effect.asVoid(
    Layer.build(
      Dispatcher.layer({
        allowHosts: loopback,
        retryDelays: [Duration.millis(50)],
        pollInterval: Duration.millis(50),
        timeout: Duration.seconds(2),
        ...options
      })
    )
  )

/** A store with one subscription to `url` (stored as is: the store port applies no URL rule). */
const subscribed = (
  url: string,
  events: ReadonlyArray<"order.created" | "order.confirmed" | "order.shipped"> = ["order.created"]
) =>
  Effect.gen(function* () {
    const store = yield* WebhookStore
    const storeId = yield* newStore
    const secret = Redacted.make(`whsec_${Math.random().toString(16).slice(2).padEnd(64, "0")}`)
    const hook = yield* store.insertSubscription(
      Ids.StoreId.make(storeId),
      { url, events, active: true, description: null, secret },
      20
    )
    return { storeId, hook, secret }
  })

const committed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(effect)).pipe(Effect.orDie)

const logOf = (storeId: number, hookId: number) =>
  Effect.flatMap(WebhookStore, (store) =>
    store.listDeliveries(Ids.StoreId.make(storeId), hookId, { afterId: undefined, limit: 200 })
  )

/** Waits until every delivery of the subscription is finished. */
const settled = (storeId: number, hookId: number, count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      const log = yield* logOf(storeId, hookId)
      if (log.length === count && log.every((delivery) => delivery.status !== "pending")) return log
      yield* Effect.sleep("20 millis")
    }
    const log = yield* logOf(storeId, hookId)
    return yield* Effect.die(
      new Error(`deliveries did not settle: ${JSON.stringify(log.map((d) => [d.id, d.status, d.attempts]))}`)
    )
  })

const verified = (received: Receiver.Received, secret: Redacted.Redacted<string>) =>
  WebhookSignature.verify({
    header: received.headers["x-tw-signature"] as string,
    body: received.body,
    secrets: [secret],
    nowSeconds: Math.floor(Date.now() / 1000)
  })

/** Whether the Standard Webhooks library, given the secret as shown, accepts a delivery as received. */
const libraryVerified = (received: Receiver.Received, secret: Redacted.Redacted<string>) => {
  try {
    new Webhook(Redacted.value(secret)).verify(received.body, received.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** Both schemes accept the delivery with `secret`. */
const bothVerified = (received: Receiver.Received, secret: Redacted.Redacted<string>) =>
  Result.isSuccess(verified(received, secret)) && libraryVerified(received, secret)

describe("webhook delivery", () => {
  for (const backend of backends) {
    layer(services(backend), { excludeTestServices: true, timeout: "120 seconds" })(`on ${backend.name}`, (it) => {
      it.effect("delivers a committed order.created, signed, as { id, event, created_at, store_id, data }", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          const { storeId, hook, secret } = yield* subscribed(`${receiver.url}/hooks/orders?shop=1`)
          yield* dispatcher()
          yield* committed(created(storeId))
          yield* Receiver.eventually(() => receiver.received.length === 1)
          const [request] = receiver.received
          assert.strictEqual(request!.path, "/hooks/orders?shop=1")
          assert.isTrue(Result.isSuccess(verified(request!, secret)), "the signature verifies with the secret")
          assert.isTrue(Result.isFailure(verified(request!, Redacted.make("whsec_other"))))
          assert.isTrue(libraryVerified(request!, secret), "the Standard Webhooks library verifies it")
          assert.isFalse(libraryVerified(request!, Redacted.make(`whsec_${"0f".repeat(32)}`)))
          const body = JSON.parse(request!.body.toString())
          assert.strictEqual(request!.headers["webhook-id"], body.id, "webhook-id is the event id")
          assert.strictEqual(
            `t=${request!.headers["webhook-timestamp"]}`,
            (request!.headers["x-tw-signature"] as string).split(",")[0],
            "both signatures carry the attempt's time"
          )
          assert.match(request!.headers["webhook-signature"] as string, /^v1,[A-Za-z0-9+/]{43}=$/)
          assert.deepStrictEqual(Object.keys(body), ["id", "event", "created_at", "store_id", "data"])
          assert.match(body.id, /^evt_[0-9a-f]{24}$/)
          assert.strictEqual(body.event, "order.created")
          assert.match(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
          assert.strictEqual(body.store_id, storeId)
          assert.deepStrictEqual(body.data, order(orders))
          assert.strictEqual(request!.headers["content-type"], "application/json")
          assert.strictEqual(request!.headers["user-agent"], Dispatcher.USER_AGENT)
          assert.strictEqual(request!.headers["x-tw-event"], "order.created")
          assert.strictEqual(request!.headers["x-tw-event-id"], body.id)
          assert.strictEqual(request!.headers["x-tw-attempt"], "1")
          const [delivery] = yield* settled(storeId, hook.id, 1)
          assert.strictEqual(delivery!.status, "succeeded")
          assert.deepStrictEqual(
            delivery!.attemptLog.map((attempt) => [
              attempt.attempt,
              attempt.outcome,
              attempt.statusCode,
              attempt.error
            ]),
            [[1, "succeeded", 200, null]]
          )
        }).pipe(Effect.scoped)
      )

      it.effect("retries a failing endpoint with the same event id and bytes until it answers 2xx", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          receiver.reply = (_, index) => ({ status: [500, 503, 204][index] ?? 204 })
          const { storeId, hook, secret } = yield* subscribed(`${receiver.url}/flaky`)
          yield* dispatcher()
          yield* committed(created(storeId))
          const [delivery] = yield* settled(storeId, hook.id, 1)
          assert.strictEqual(receiver.received.length, 3)
          const [first, ...rest] = receiver.received
          for (const request of rest) {
            assert.deepStrictEqual(request.body, first!.body, "the same bytes every attempt")
            assert.strictEqual(request.headers["x-tw-event-id"], first!.headers["x-tw-event-id"])
            assert.strictEqual(request.headers["webhook-id"], first!.headers["webhook-id"], "one webhook-id per event")
          }
          for (const request of receiver.received) {
            assert.isTrue(bothVerified(request, secret), "each attempt verifies in both schemes")
            assert.strictEqual(
              `t=${request.headers["webhook-timestamp"]}`,
              (request.headers["x-tw-signature"] as string).split(",")[0],
              "the timestamp is the attempt's"
            )
          }
          assert.deepStrictEqual(
            receiver.received.map((request) => request.headers["x-tw-attempt"]),
            ["1", "2", "3"]
          )
          assert.strictEqual(delivery!.status, "succeeded")
          assert.strictEqual(delivery!.attempts, 3)
          assert.deepStrictEqual(
            delivery!.attemptLog.map((attempt) => [attempt.outcome, attempt.statusCode, attempt.error]),
            [
              ["failed", 500, "HTTP 500"],
              ["failed", 503, "HTTP 503"],
              ["succeeded", 204, null]
            ]
          )
          for (const attempt of delivery!.attemptLog) assert.isAtLeast(attempt.latencyMs, 0)
        }).pipe(Effect.scoped)
      )

      it.effect("gives a delivery up after exactly 5 failed attempts; the endpoint keeps getting new events", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          receiver.reply = (path) => ({ status: path === "/down" ? 500 : 200 })
          const { storeId, hook } = yield* subscribed(`${receiver.url}/down`)
          yield* dispatcher()
          yield* committed(created(storeId))
          const [delivery] = yield* settled(storeId, hook.id, 1)
          assert.strictEqual(delivery!.status, "failed")
          assert.strictEqual(delivery!.attempts, 5)
          assert.deepStrictEqual(
            delivery!.attemptLog.map((attempt) => attempt.attempt),
            [1, 2, 3, 4, 5]
          )
          yield* Effect.sleep("600 millis")
          assert.strictEqual(receiver.received.length, 5, "no sixth attempt")
          // Never paused: the next event is tried at once, five times too.
          yield* committed(created(storeId))
          const log = yield* settled(storeId, hook.id, 2)
          assert.deepStrictEqual(
            log.map((entry) => [entry.status, entry.attempts]),
            [
              ["failed", 5],
              ["failed", 5]
            ]
          )
          assert.strictEqual(receiver.received.length, 10)
          // A manual retry gives the newest one attempt more, now.
          const webhooks = yield* Webhooks.Webhooks
          receiver.reply = () => ({ status: 200 })
          const retried = yield* webhooks.retry(Ids.StoreId.make(storeId), hook.id, log[0]!.id)
          assert.strictEqual(retried.status, "pending")
          yield* Receiver.eventually(() => receiver.received.length === 11)
          const after = yield* settled(storeId, hook.id, 2)
          assert.deepStrictEqual(
            after.map((entry) => [entry.status, entry.attempts]),
            [
              ["succeeded", 6],
              ["failed", 5]
            ]
          )
          assert.strictEqual(receiver.received[10]!.headers["x-tw-attempt"], "6")
        }).pipe(Effect.scoped)
      )

      it.effect("sends nothing before the commit, and nothing for a rolled-back change", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          const { storeId, hook } = yield* subscribed(`${receiver.url}/commit`)
          yield* dispatcher({ pollInterval: Duration.millis(20) })
          const sql = yield* SqlClient.SqlClient
          // Rolled back: the order and its event are gone together.
          yield* sql.withTransaction(Effect.andThen(created(storeId), Effect.fail("rolled back"))).pipe(Effect.flip)
          // Held open: the dispatcher polls all along and sees nothing until the commit.
          yield* sql
            .withTransaction(
              Effect.gen(function* () {
                yield* created(storeId)
                yield* Effect.sleep(backend.name === "server" ? "1500 millis" : "300 millis")
                assert.strictEqual(receiver.received.length, 0, "nothing before the commit")
              })
            )
            .pipe(Effect.orDie)
          yield* Receiver.eventually(() => receiver.received.length === 1)
          yield* Effect.sleep("500 millis")
          assert.strictEqual(receiver.received.length, 1, "the rolled-back event was never sent")
          assert.strictEqual((yield* logOf(storeId, hook.id)).length, 1)
        }).pipe(Effect.scoped)
      )

      it.effect("checks the URL again at delivery: every hostile class is refused with its reason, nothing sent", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          const port = receiver.port
          // Stored as if subscribed under another WEBHOOK_ALLOW_HOSTS, or before DNS changed.
          answers.set("rebind.example.com", ["93.184.215.14"])
          const urls = [
            `http://127.0.0.1:${port}/hook`,
            `https://127.0.0.1:${port}/hook`,
            `http://localhost:${port}/hook`,
            `https://2130706433:${port}/hook`,
            `https://[::1]:${port}/hook`,
            "https://169.254.169.254/latest/meta-data",
            `https://user:s3cr3t@hooks.example.com/hook`,
            "https://hooks.example.com:8443/hook",
            "https://printer.local/hook",
            "https://metadata.google.internal/computeMetadata/v1",
            ...Object.keys(hostileNames).map((name) => `https://${name}/hook`),
            "https://rebind.example.com/hook"
          ]
          const hooks: Array<{ storeId: number; hookId: number; url: string }> = []
          for (const url of urls) {
            const { storeId, hook } = yield* subscribed(url)
            hooks.push({ storeId, hookId: hook.id, url })
          }
          // DNS rebinding: public when subscribed, loopback when delivered.
          answers.set("rebind.example.com", ["127.0.0.1"])
          yield* dispatcher({ allowHosts: WebhookUrl.noHostsAllowed, retryDelays: [Duration.millis(10)] })
          for (const { storeId } of hooks) yield* committed(created(storeId))
          for (const { storeId, hookId, url } of hooks) {
            const [delivery] = yield* settled(storeId, hookId, 1)
            assert.strictEqual(delivery!.status, "failed", url)
            assert.strictEqual(delivery!.attempts, 5, url)
            for (const attempt of delivery!.attemptLog) {
              assert.strictEqual(attempt.outcome, "refused", url)
              assert.isNull(attempt.statusCode)
              assert.match(attempt.error!, /^url/, url)
              assert.notInclude(attempt.error!, "s3cr3t")
            }
          }
          assert.strictEqual(receiver.received.length, 0, "no hostile URL reached the receiver")
        }).pipe(Effect.scoped)
      )

      it.effect("never follows a redirect, and gives up on a receiver that never answers", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          receiver.reply = (path) =>
            path === "/moved"
              ? { status: 302, location: `${receiver.url}/elsewhere` }
              : path === "/silent"
                ? "hang"
                : { status: 200 }
          const moved = yield* subscribed(`${receiver.url}/moved`)
          const silent = yield* subscribed(`${receiver.url}/silent`)
          yield* dispatcher({ timeout: Duration.millis(300), retryDelays: [Duration.millis(10)] })
          yield* committed(created(moved.storeId))
          yield* committed(created(silent.storeId))
          const [redirected] = yield* settled(moved.storeId, moved.hook.id, 1)
          assert.deepStrictEqual(
            [
              ...new Set(
                redirected!.attemptLog.map((attempt) => `${attempt.outcome} ${attempt.statusCode} ${attempt.error}`)
              )
            ],
            ["failed 302 HTTP 302: redirects are never followed; point the subscription at the final URL"]
          )
          const [timedOut] = yield* settled(silent.storeId, silent.hook.id, 1)
          for (const attempt of timedOut!.attemptLog) {
            assert.strictEqual(attempt.outcome, "failed")
            assert.match(attempt.error!, /no answer within/)
            assert.isBelow(attempt.latencyMs, 2000)
          }
          assert.isFalse(receiver.received.some((request) => request.path === "/elsewhere"))
        }).pipe(Effect.scoped)
      )

      it.effect("two dispatchers on one database deliver each of 60 events exactly once", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          const { storeId, hook } = yield* subscribed(`${receiver.url}/shared`)
          yield* dispatcher({ concurrency: 4 })
          yield* dispatcher({ concurrency: 4 })
          yield* Effect.forEach(Array.from({ length: 60 }), () => committed(created(storeId)), { concurrency: 6 })
          yield* settled(storeId, hook.id, 60)
          yield* Effect.sleep("300 millis")
          const ids = receiver.received.map((request) => request.headers["x-tw-event-id"])
          assert.strictEqual(ids.length, 60)
          assert.strictEqual(new Set(ids).size, 60)
        }).pipe(Effect.scoped)
      )

      it.effect("signs with both secrets during a rotation; either verifies", () =>
        Effect.gen(function* () {
          const receiver = yield* Receiver.start
          const webhooks = yield* Webhooks.Webhooks
          const storeId = Ids.StoreId.make(yield* newStore)
          const made = yield* webhooks.create(storeId, { url: `${receiver.url}/rotating`, events: ["order.created"] })
          const rotated = yield* webhooks.update(storeId, made.id, { rotate_secret: true })
          assert.notStrictEqual(Redacted.value(rotated.secret!), Redacted.value(made.secret!))
          assert.isNotNull(rotated.previous_secret_expires_at)
          yield* dispatcher()
          yield* committed(created(storeId))
          yield* Receiver.eventually(() => receiver.received.length === 1)
          const [request] = receiver.received
          assert.strictEqual((request!.headers["x-tw-signature"] as string).split(",").length, 3)
          assert.strictEqual((request!.headers["webhook-signature"] as string).split(" ").length, 2)
          assert.isTrue(bothVerified(request!, made.secret!), "the old secret still verifies, in both schemes")
          assert.isTrue(bothVerified(request!, rotated.secret!), "the new one too")
          assert.isFalse(libraryVerified(request!, Redacted.make(`whsec_${"0f".repeat(32)}`)))
        }).pipe(Effect.scoped)
      )
    })
  }
})
