/**
 * The subscription operations on the memory store, with DNS as the test says: the body rules and their messages,
 * every hostile URL class refused when subscribing and when changing the URL, the 20-per-store limit, rotation,
 * scoping by store.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import * as Egress from "@tawsil/egress/Egress"
import { Effect, Layer, Redacted, Result } from "effect"
import * as DeliverySignal from "../src/DeliverySignal.ts"
import * as Subscription from "../src/Subscription.ts"
import * as WebhookStore from "../src/WebhookStore.ts"
import * as Webhooks from "../src/Webhooks.ts"
import * as WebhookUrl from "../src/WebhookUrl.ts"
import { backends, newStore as newStoreRow, sqlStore } from "./Backends.ts"
import { hostileNames, hostileUrls } from "./HostileUrls.ts"

const resolver = Egress.Resolver.layerTest({ ...hostileNames, "hooks.example.com": ["93.184.215.14"] })
const allow = Result.getOrThrow(WebhookUrl.parseAllowHosts("127.0.0.1"))

const services = (allowHosts: WebhookUrl.AllowList) =>
  Webhooks.layer({ allowHosts }).pipe(
    Layer.provide([resolver, DeliverySignal.layer]),
    Layer.provideMerge(WebhookStore.layerMemory)
  )

let stores = 0
const newStore = () => Ids.StoreId.make(++stores)

const reasonOf = <A>(
  effect: Effect.Effect<A, { readonly reason: { readonly _tag: string; readonly message: string } }, Webhooks.Webhooks>
) =>
  Effect.map(Effect.flip(Effect.flatMap(Webhooks.Webhooks, () => effect)), (error): readonly [string, string] => [
    error.reason._tag,
    error.reason.message
  ])

describe("Webhooks", () => {
  layer(services(allow))("memory, WEBHOOK_ALLOW_HOSTS=127.0.0.1", (it) => {
    it.effect("creates a subscription, shows its secret once, lists it without one", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = newStore()
        const made = yield* webhooks.create(store, {
          url: "https://hooks.example.com/tawsil",
          events: ["order.shipped", "order.created", "order.shipped"],
          description: "Entrepôt d'Oran"
        })
        assert.match(Redacted.value(made.secret!), /^whsec_[0-9a-f]{64}$/)
        assert.deepStrictEqual(made.events, ["order.created", "order.shipped"], "catalogue order, repeats dropped")
        assert.strictEqual(made.active, true)
        assert.isNull(made.previous_secret_expires_at)
        const listed = yield* webhooks.list(store)
        const { secret: _, ...shown } = made
        assert.deepStrictEqual(listed, { items: [shown] })
        assert.deepStrictEqual(yield* webhooks.list(newStore()), { items: [] })
        const local = yield* webhooks.create(store, { url: "http://127.0.0.1:9000/hook", events: ["order.created"] })
        assert.strictEqual(local.url, "http://127.0.0.1:9000/hook", "WEBHOOK_ALLOW_HOSTS exempts 127.0.0.1")
      })
    )

    it.effect("checks the body field by field, with messages naming the field", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = newStore()
        const create = (body: unknown) => reasonOf(webhooks.create(store, body))
        const events =
          "order.created, order.confirmed, order.shipped, order.delivered, order.returned, order.cancelled, shipment.updated, payment.received"
        assert.deepStrictEqual(yield* create([]), ["InvalidWebhook", "Body must be a JSON object"])
        assert.deepStrictEqual(yield* create({ events: ["order.created"] }), [
          "InvalidWebhook",
          "url is required: the https URL to deliver to"
        ])
        assert.deepStrictEqual(yield* create({ url: "https://hooks.example.com/" }), [
          "InvalidWebhook",
          `events is required: a non-empty array of ${events}`
        ])
        assert.deepStrictEqual(yield* create({ url: "https://hooks.example.com/", events: [] }), [
          "InvalidWebhook",
          `events must be a non-empty array of event names: ${events}`
        ])
        assert.deepStrictEqual(
          yield* create({ url: "https://hooks.example.com/", events: ["order.created", "order.paid"] }),
          ["InvalidWebhook", `events[1] must be one of ${events}`]
        )
        assert.deepStrictEqual(
          yield* create({ url: "https://hooks.example.com/", events: ["order.created"], active: "yes" }),
          ["InvalidWebhook", "active must be true or false"]
        )
        assert.deepStrictEqual(
          yield* create({ url: "https://hooks.example.com/", events: ["order.created"], description: "x".repeat(256) }),
          ["InvalidWebhook", "description must be a string of at most 255 characters, or null"]
        )
        assert.deepStrictEqual(yield* create({ url: 42, events: ["order.created"] }), [
          "InvalidWebhook",
          "url is required: the https URL to deliver to"
        ])
      })
    )

    it.effect("changes what a PATCH names, rotates the secret, deletes; another store's id is not found", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = newStore()
        const made = yield* webhooks.create(store, { url: "https://hooks.example.com/a", events: ["order.created"] })
        const paused = yield* webhooks.update(store, made.id, { active: false, events: ["order.confirmed"] })
        assert.strictEqual(paused.active, false)
        assert.deepStrictEqual(paused.events, ["order.confirmed"])
        assert.isNull(paused.secret, "no secret unless rotated")
        assert.strictEqual(paused.url, made.url)
        const rotated = yield* webhooks.update(store, made.id, { rotate_secret: true })
        assert.match(Redacted.value(rotated.secret!), /^whsec_[0-9a-f]{64}$/)
        assert.notStrictEqual(Redacted.value(rotated.secret!), Redacted.value(made.secret!))
        assert.isNotNull(rotated.previous_secret_expires_at)
        assert.deepStrictEqual(yield* reasonOf(webhooks.update(store, made.id, { rotate_secret: "yes" })), [
          "InvalidWebhook",
          "rotate_secret must be true or false"
        ])
        const other = newStore()
        assert.deepStrictEqual(yield* reasonOf(webhooks.update(other, made.id, { active: true })), [
          "WebhookNotFound",
          `Webhook ${made.id} not found`
        ])
        assert.deepStrictEqual((yield* reasonOf(webhooks.remove(other, made.id)))[0], "WebhookNotFound")
        assert.deepStrictEqual((yield* reasonOf(webhooks.deliveries(other, made.id, {})))[0], "WebhookNotFound")
        assert.deepStrictEqual((yield* reasonOf(webhooks.retry(store, made.id, 999)))[0], "DeliveryNotFound")
        assert.deepStrictEqual(yield* webhooks.remove(store, made.id), { deleted: true, id: made.id })
        assert.deepStrictEqual((yield* reasonOf(webhooks.remove(store, made.id)))[0], "WebhookNotFound")
      })
    )

    it.effect("holds at most 20 subscriptions per store", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = newStore()
        for (let i = 0; i < Subscription.MAX_PER_STORE; i++) {
          yield* webhooks.create(store, { url: `https://hooks.example.com/${i}`, events: ["order.created"] })
        }
        assert.deepStrictEqual(
          yield* reasonOf(webhooks.create(store, { url: "https://hooks.example.com/21", events: ["order.created"] })),
          ["TooManyWebhooks", Subscription.TOO_MANY]
        )
      })
    )
  })

  layer(services(WebhookUrl.noHostsAllowed))("memory, no host exempt", (it) => {
    it.effect("refuses every hostile URL class when subscribing and when changing the URL", () =>
      Effect.gen(function* () {
        const webhooks = yield* Webhooks.Webhooks
        const store = newStore()
        const hook = yield* webhooks.create(store, { url: "https://hooks.example.com/ok", events: ["order.created"] })
        const hostile = [
          ...hostileUrls.map(([url]) => url),
          ...Object.keys(hostileNames).map((name) => `https://${name}/hook`),
          "http://127.0.0.2:9000/hook",
          "http://localhost:9000/hook"
        ]
        for (const url of hostile) {
          const [tag, message] = yield* reasonOf(webhooks.create(store, { url, events: ["order.created"] }))
          assert.strictEqual(tag, "UrlRefused", url)
          assert.match(message, /^url/, url)
          const [patchTag] = yield* reasonOf(webhooks.update(store, hook.id, { url }))
          assert.strictEqual(patchTag, "UrlRefused", url)
        }
        assert.deepStrictEqual(
          (yield* webhooks.list(store)).items.map((item) => item.url),
          ["https://hooks.example.com/ok"],
          "nothing hostile was stored"
        )
      })
    )
  })
})

/** An id no row can have (outside 1..`Ids.MAX_ID`) is not found, on every store. */
const unstorableIds = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const store = Ids.StoreId.make(yield* newStoreRow)
  const made = yield* webhooks.create(store, { url: "https://hooks.example.com/ids", events: ["order.created"] })
  for (const id of [0, -1, 1.5, Ids.MAX_ID + 1, 99_999_999_999, 1e20]) {
    assert.deepStrictEqual(yield* reasonOf(webhooks.update(store, id, { active: false })), [
      "WebhookNotFound",
      `Webhook ${id} not found`
    ])
    assert.deepStrictEqual((yield* reasonOf(webhooks.remove(store, id)))[0], "WebhookNotFound")
    assert.deepStrictEqual((yield* reasonOf(webhooks.deliveries(store, id, {})))[0], "WebhookNotFound")
    assert.deepStrictEqual((yield* reasonOf(webhooks.retry(store, id, 1)))[0], "WebhookNotFound")
    assert.deepStrictEqual(yield* reasonOf(webhooks.retry(store, made.id, id)), [
      "DeliveryNotFound",
      `Delivery ${id} of webhook ${made.id} not found`
    ])
  }
})

describe("Webhooks ids", () => {
  layer(services(allow))("memory", (it) => {
    it.effect("answers not found for an id no row can have", () => unstorableIds)
  })
  for (const backend of backends) {
    const sql = Webhooks.layer({ allowHosts: allow }).pipe(
      Layer.provide([resolver, DeliverySignal.layer]),
      Layer.provideMerge(sqlStore(backend))
    )
    layer(sql, { excludeTestServices: true, timeout: "90 seconds" })(`sql, ${backend.name}`, (it) => {
      it.effect("answers not found for an id no row can have", () => unstorableIds)
    })
  }
})
