/**
 * The confirmation workflow over the memory ports, on `TestClock` time: outcomes and history, the moves and events
 * of ending outcomes, the refused bodies, a link's life (open, answer, used, expired, tampered, no key) and the
 * store's timeout (cancel or flag, once).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Ids } from "@tawsil/domain"
import { Secrets } from "@tawsil/secrets"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Confirmation from "../src/Confirmation.ts"
import * as ConfirmationStore from "../src/ConfirmationStore.ts"
import { type OrderEvent, OrderEvents } from "../src/OrderEvents.ts"
import * as Orders from "../src/Orders.ts"
import { Fixture, memory } from "./Fixture.ts"

const told: Array<OrderEvent> = []
const listener = Layer.succeed(OrderEvents, { record: (event) => Effect.sync(() => void told.push(event)) })

const layerWith = (secrets: Layer.Layer<Secrets.Secrets>) =>
  Confirmation.layer.pipe(
    Layer.provideMerge(ConfirmationStore.layerMemory),
    Layer.provideMerge(memory()),
    Layer.provide([secrets, listener])
  )

const withService = <A, E>(effect: Effect.Effect<A, E, Confirmation.Confirmation | Orders.Orders | Fixture>) =>
  Effect.provide(effect, layerWith(Secrets.layerTest))

const customer = { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

const setUp = Effect.gen(function* () {
  const fixture = yield* Fixture
  const orders = yield* Orders.Orders
  const store = yield* fixture.store()
  const product = yield* fixture.product(store.id, { name: "Gandoura", price: "3000" })
  const newOrder = Effect.orDie(orders.create(store, { customer, items: [{ product_id: product, quantity: 2 }] }))
  return { storeId: store.id as Ids.StoreId, newOrder, confirmation: yield* Confirmation.Confirmation }
})

const reasonOf = <A>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string } }>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)

describe("Confirmation", () => {
  it.effect("records outcomes in order; confirmed moves the order and tells its event", () =>
    withService(
      Effect.gen(function* () {
        const { storeId, newOrder, confirmation } = yield* setUp
        const order = yield* newOrder
        told.length = 0
        const busy = yield* confirmation.record(storeId, order.id, { outcome: "busy", note: "rang 5 times" })
        assert.deepStrictEqual(
          [busy.status, busy.confirmation.state, busy.confirmation.attempts],
          ["pending", "busy", 1]
        )
        yield* TestClock.adjust("1 hour")
        const done = yield* confirmation.record(storeId, order.id, { outcome: "confirmed" })
        assert.deepStrictEqual(
          [done.status, done.confirmation.state, done.confirmation.attempts],
          ["confirmed", "confirmed", 2]
        )
        assert.deepStrictEqual(
          done.confirmation.history.map((entry) => [entry.outcome, entry.note]),
          [
            ["busy", "rang 5 times"],
            ["confirmed", null]
          ]
        )
        assert.deepStrictEqual(
          told.map((event) => [event._tag, event.order.status]),
          [["OrderStatusChanged", "confirmed"]]
        )
        assert.strictEqual(
          yield* reasonOf(confirmation.record(storeId, order.id, { outcome: "busy" })),
          "NotAwaitingConfirmation"
        )
      })
    )
  )

  it.effect("refuses bodies that break a rule, and another store's order", () =>
    withService(
      Effect.gen(function* () {
        const { storeId, newOrder, confirmation } = yield* setUp
        const order = yield* newOrder
        for (const body of [
          null,
          { outcome: "lost" },
          { outcome: "postponed" },
          { outcome: "postponed", postponed_until: "1969-12-31" },
          { outcome: "no_answer", postponed_until: "2999-01-01" },
          { outcome: "busy", note: "\u0000" }
        ]) {
          assert.strictEqual(
            yield* reasonOf(confirmation.record(storeId, order.id, body)),
            "InvalidConfirmation",
            JSON.stringify(body)
          )
        }
        const otherStore = yield* (yield* Fixture).store()
        assert.strictEqual(
          yield* reasonOf(confirmation.record(otherStore.id, order.id, { outcome: "busy" })),
          "OrderNotFound"
        )
        assert.strictEqual((yield* confirmation.detail(storeId, order.id)).confirmation.attempts, 0)
      })
    )
  )

  it.effect("a link opens its order, takes one answer, then says used; it expires; a changed token opens nothing", () =>
    withService(
      Effect.gen(function* () {
        const { storeId, newOrder, confirmation } = yield* setUp
        const first = yield* newOrder
        const second = yield* newOrder
        const link = yield* confirmation.link(storeId, first.id, { expires_in: 600 })
        const opened = yield* confirmation.open(link.token)
        assert.strictEqual(opened._tag, "Open")
        if (opened._tag === "Open") {
          assert.deepStrictEqual(opened.order.lines, [{ name: "Gandoura", quantity: 2, price: 3000 }])
          assert.strictEqual(opened.order.total, 6000)
        }
        const parts = link.token.split(".")
        const otherOrder = [...parts.slice(0, 3), String(second.id), ...parts.slice(4)].join(".")
        assert.strictEqual((yield* confirmation.open(otherOrder))._tag, "Invalid")
        assert.strictEqual((yield* confirmation.answer(otherOrder, "cancel"))._tag, "Invalid")

        const answered = yield* confirmation.answer(link.token, "cancel")
        assert.deepStrictEqual(answered, {
          _tag: "Answered",
          answer: "customer_cancelled",
          order_number: first.order_number
        })
        assert.deepStrictEqual(yield* confirmation.answer(link.token, "confirm"), {
          _tag: "Used",
          answer: "customer_cancelled"
        })
        const after = yield* confirmation.detail(storeId, first.id)
        assert.deepStrictEqual([after.status, after.confirmation.history[0]!.source], ["cancelled", "link"])
        assert.strictEqual((yield* confirmation.detail(storeId, second.id)).status, "pending")

        const short = yield* confirmation.link(storeId, second.id, { expires_in: 60 })
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual((yield* confirmation.open(short.token))._tag, "Expired")
        assert.strictEqual((yield* confirmation.answer(short.token, "confirm"))._tag, "Expired")
        assert.strictEqual((yield* confirmation.detail(storeId, second.id)).status, "pending")
      })
    )
  )

  it.effect("an order confirmed by the store meanwhile closes its link", () =>
    withService(
      Effect.gen(function* () {
        const { storeId, newOrder, confirmation } = yield* setUp
        const order = yield* newOrder
        const link = yield* confirmation.link(storeId, order.id, {})
        yield* confirmation.record(storeId, order.id, { outcome: "confirmed" })
        assert.strictEqual((yield* confirmation.open(link.token))._tag, "Closed")
        assert.strictEqual((yield* confirmation.answer(link.token, "cancel"))._tag, "Closed")
        assert.strictEqual((yield* confirmation.detail(storeId, order.id)).status, "confirmed")
      })
    )
  )

  it.effect("without a secret key no link is made, and no token opens", () =>
    Effect.provide(
      Effect.gen(function* () {
        const { storeId, newOrder, confirmation } = yield* setUp
        const order = yield* newOrder
        assert.strictEqual(yield* reasonOf(confirmation.link(storeId, order.id, {})), "LinksUnavailable")
        assert.strictEqual(
          (yield* confirmation.open("1.0a1b2c3d.1.1.AAAAAAAAAAAAAAAA.9999999999.AAAAAAAAAAAAAAAAAAAAAA"))._tag,
          "Invalid"
        )
      }),
      layerWith(Secrets.layer(undefined))
    )
  )

  it.effect("the timeout cancels or flags an unanswered order once; a postponed or young order waits", () =>
    withService(
      Effect.gen(function* () {
        for (const action of ["cancel", "flag"] as const) {
          const { storeId, newOrder, confirmation } = yield* setUp
          yield* confirmation.updateSettings(storeId, { timeout_minutes: 60, timeout_action: action })
          const due = yield* newOrder
          const postponed = yield* newOrder
          yield* confirmation.record(storeId, postponed.id, {
            outcome: "postponed",
            postponed_until: "2999-01-01T10:00:00Z"
          })
          yield* TestClock.adjust("30 minutes")
          const young = yield* newOrder
          assert.strictEqual(yield* confirmation.sweep(), 0)
          yield* TestClock.adjust("31 minutes")
          assert.strictEqual(yield* confirmation.sweep(), 1)
          assert.strictEqual(yield* confirmation.sweep(), 0)
          const swept = yield* confirmation.detail(storeId, due.id)
          assert.deepStrictEqual(
            [swept.status, swept.confirmation.state, swept.confirmation.attempts],
            [action === "cancel" ? "cancelled" : "pending", "timed_out", 0]
          )
          for (const waiting of [postponed, young]) {
            assert.strictEqual((yield* confirmation.detail(storeId, waiting.id)).confirmation.timed_out_at, null)
          }
          // Off: nothing more is swept, whatever the time.
          yield* confirmation.updateSettings(storeId, { timeout_minutes: null })
          yield* TestClock.adjust("2 days")
          assert.strictEqual(yield* confirmation.sweep(), 0)
        }
      })
    )
  )

  it.effect("the sweeper of layerSweeping runs the timeout on its own, on the clock", () =>
    Effect.gen(function* () {
      const { storeId, newOrder, confirmation } = yield* setUp
      yield* confirmation.updateSettings(storeId, { timeout_minutes: 5, timeout_action: "cancel" })
      const order = yield* newOrder
      yield* TestClock.adjust("5 minutes")
      // The sweeper's next round is at most its interval away.
      yield* TestClock.adjust("30 seconds")
      yield* Effect.yieldNow
      const swept = yield* confirmation.detail(storeId, order.id)
      assert.deepStrictEqual([swept.status, swept.confirmation.state], ["cancelled", "timed_out"])
    }).pipe(
      Effect.provide(
        Confirmation.layerSweeping({ every: "30 seconds" }).pipe(
          Layer.provideMerge(ConfirmationStore.layerMemory),
          Layer.provideMerge(memory()),
          Layer.provide([Secrets.layerTest, listener])
        )
      )
    )
  )
})
