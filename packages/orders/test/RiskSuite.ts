/**
 * The ban list and return risk (`Risk`, with `OrderRisk` given to `Orders`), one suite for every `RiskStore`: memory
 * and SQL (embedded always, PostgreSQL with `DATABASE_URL`). Written from docs/risk.md.
 */
import { assert, type Vitest } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { ConfirmationStore } from "../src/ConfirmationStore.ts"
import type { Outcome } from "../src/ConfirmationViews.ts"
import { Orders } from "../src/Orders.ts"
import { Risk } from "../src/Risk.ts"
import { Fixture } from "./Fixture.ts"

const customer = (phone: string, address = "Rue Larbi Ben M'hidi 12") => ({
  name: "Nadia",
  phone,
  wilaya_id: 31,
  commune: "Oran",
  address
})

const failureOf = <A, E extends { readonly reason: { readonly _tag: string } }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)

export const RiskSuite = <R>(it: Vitest.MethodsNonLive<Orders | Risk | Fixture | ConfirmationStore | R>) => {
  const shop = Effect.gen(function* () {
    const fixture = yield* Fixture
    const store = yield* fixture.store()
    const product = yield* fixture.product(store.id, { price: "2500" })
    const orders = yield* Orders
    const order = (phone: string, address?: string) =>
      orders.create(store, { customer: customer(phone, address), items: [{ product_id: product, quantity: 1 }] })
    return { store, order, orders, risk: yield* Risk, fixture }
  })

  it.effect("bans by customer and by phone; is_banned follows; lists newest first; unbans once", () =>
    Effect.gen(function* () {
      const { store, order, orders, risk } = yield* shop
      const first = yield* order("0550 11 22 33")
      const ban = yield* risk.banCustomer(store.id, first.customer.id, { reason: "Refused twice" })
      assert.deepInclude(ban, { phone: "0550112233", reason: "Refused twice", customer_id: first.customer.id })
      assert.isTrue((yield* orders.getCustomer(store.id, first.customer.id)).is_banned)
      // Banning again changes the reason only.
      const again = yield* risk.banPhone(store.id, { phone: "0550112233", reason: "Refused three times" })
      assert.deepStrictEqual([again.id, again.reason], [ban.id, "Refused three times"])
      const unseen = yield* risk.banPhone(store.id, { phone: "+213 661 00 00 01", reason: "Fake" })
      assert.deepInclude(unseen, { phone: "+213661000001", customer_id: null })
      const page = yield* risk.listBans(store.id, { limit: 1 })
      assert.deepStrictEqual([page.items.map((b) => b.phone), page.has_more], [["+213661000001"], true])
      const rest = yield* risk.listBans(store.id, { limit: 1, cursor: page.next_cursor! })
      assert.deepStrictEqual(
        rest.items.map((b) => [b.phone, b.customer_id]),
        [["0550112233", first.customer.id]]
      )

      const lifted = yield* risk.unbanCustomer(store.id, first.customer.id)
      assert.deepStrictEqual(lifted, { phone: "0550112233", customer_id: first.customer.id, is_banned: false })
      assert.isFalse((yield* orders.getCustomer(store.id, first.customer.id)).is_banned)
      assert.strictEqual(yield* failureOf(risk.unbanCustomer(store.id, first.customer.id)), "BanNotFound")
      assert.strictEqual((yield* risk.unbanPhone(store.id, "+213661000001")).customer_id, null)
      assert.strictEqual(yield* failureOf(risk.unbanPhone(store.id, "garbage")), "BanNotFound")

      const other = yield* (yield* Fixture).store()
      assert.strictEqual(
        yield* failureOf(risk.banCustomer(other.id, first.customer.id, { reason: "x" })),
        "RiskCustomerNotFound"
      )
      assert.strictEqual(yield* failureOf(risk.banPhone(store.id, { phone: "0550", reason: "x" })), "InvalidBan")
      assert.strictEqual(yield* failureOf(risk.banCustomer(store.id, 2 ** 40, { reason: "x" })), "RiskCustomerNotFound")
    })
  )

  it.effect("an order from a banned phone: flagged by default, refused under `refuse`", () =>
    Effect.gen(function* () {
      const { store, order, risk } = yield* shop
      assert.deepStrictEqual(yield* risk.settings(store.id), { banned_orders: "flag", updated_at: null })
      yield* risk.banPhone(store.id, { phone: "0770 99 88 77", reason: "Fake" })
      const flagged = yield* order("0770998877")
      const seen = yield* risk.orderRisk(store.id, flagged.id)
      assert.deepStrictEqual([seen.is_banned, seen.flags.map((f) => f.flag)], [true, ["customer_banned"]])
      const set = yield* risk.updateSettings(store.id, { banned_orders: "refuse" })
      assert.strictEqual(set.banned_orders, "refuse")
      assert.isNotNull(set.updated_at)
      const refused = yield* Effect.flip(order("0770 998 877"))
      assert.strictEqual(refused.reason._tag, "CustomerBanned")
      assert.strictEqual((yield* order("0770998878")).status, "pending")
      assert.strictEqual(
        yield* failureOf(risk.updateSettings(store.id, { banned_orders: "maybe" })),
        "InvalidRiskRequest"
      )
      assert.strictEqual(yield* failureOf(risk.orderRisk(store.id, 2 ** 40)), "RiskOrderNotFound")
    })
  )

  it.effect("a customer's facts: other phones at the address, the orders of the last 24 hours", () =>
    Effect.gen(function* () {
      const { store, order, risk, fixture } = yield* shop
      const first = yield* order("0550000001")
      yield* order("0550000001")
      yield* order("0550000002", "  rue larbi ben m'hidi   12 ")
      yield* order("0550000003", "Rue Larbi Ben M'hidi 14")
      const factors = (yield* risk.orderRisk(store.id, first.id)).fraud_factors
      const byName = Object.fromEntries(factors.map((f) => [f.factor, f.value]))
      assert.deepStrictEqual(byName, {
        returns: 0,
        fake_confirmations: 0,
        cancelled_confirmations: 0,
        shared_address: 1,
        velocity: 2
      })
      yield* fixture.ageOrders(store.id, 2)
      const later = (yield* risk.orderRisk(store.id, first.id)).fraud_factors
      assert.strictEqual(later.find((f) => f.factor === "velocity")!.value, 0)
    })
  )

  it.effect("a customer's confirmations: each order found fake or cancelled by the customer counts once", () =>
    Effect.gen(function* () {
      const { store, order, risk } = yield* shop
      const confirmations = yield* ConfirmationStore
      const attempt = Effect.fnUntraced(function* (orderId: number, outcome: Outcome) {
        yield* confirmations.insertAttempt(store.id, orderId, {
          outcome,
          source: "api",
          note: null,
          postponed_until: null,
          customer_phone: "0550000009",
          created_at: yield* DateTime.now
        })
      })
      const first = yield* order("0550000009")
      const second = yield* order("0550000009")
      const third = yield* order("0550000009")
      const before = yield* risk.orderRisk(store.id, first.id)
      yield* attempt(first.id, "busy")
      yield* attempt(first.id, "fake")
      yield* attempt(second.id, "customer_cancelled")
      yield* attempt(second.id, "customer_cancelled")
      yield* attempt(third.id, "no_answer")
      const after = yield* risk.orderRisk(store.id, first.id)
      const byName = Object.fromEntries(after.fraud_factors.map((f) => [f.factor, f.value]))
      assert.deepInclude(byName, { fake_confirmations: 1, cancelled_confirmations: 1 })
      assert.isAbove(after.fraud_score, before.fraud_score)
      // Another customer's answers are not this one's.
      const other = yield* order("0550000010")
      const theirs = Object.fromEntries(
        (yield* risk.orderRisk(store.id, other.id)).fraud_factors.map((f) => [f.factor, f.value])
      )
      assert.deepInclude(theirs, { fake_confirmations: 0, cancelled_confirmations: 0 })
    })
  )

  it.effect("the outcomes of the store's shipments per courier and wilaya, in a period", () =>
    Effect.gen(function* () {
      const { store, order, orders, risk } = yield* shop
      const start = yield* DateTime.now
      const at = (hours: number) => DateTime.add(start, { hours })
      const ship = Effect.fnUntraced(function* (
        courier: string,
        status: "delivered" | "returned" | "in_transit",
        hours: number
      ) {
        const placed = yield* order(`05509${String(Math.floor(Math.random() * 100000)).padStart(5, "0")}`)
        yield* orders.setStatus(store.id, placed.id, { status: "confirmed" })
        yield* orders.attachShipment(store.id, placed.id, {
          accountId: 1,
          courier,
          trackingNumber: `T${placed.id}`,
          status: "pending_pickup",
          rawStatus: "ready",
          dispatched: true,
          at: start
        })
        yield* orders.followShipment(store.id, placed.id, [
          { kind: "movement", status, rawStatus: status, occurredAt: at(hours), source: "poll" }
        ])
      })
      yield* ship("alpha", "delivered", 24)
      yield* ship("alpha", "delivered", 72)
      yield* ship("alpha", "returned", 30)
      yield* ship("beta", "in_transit", 5)
      const report = yield* risk.courierReport(store.id, {})
      assert.deepStrictEqual(report.items, [
        {
          courier: "alpha",
          wilaya_id: 31,
          shipments: 3,
          delivered: 2,
          returned: 1,
          cancelled: 0,
          in_progress: 0,
          delivery_rate: 0.6667,
          return_rate: 0.3333,
          median_days_to_deliver: 2
        },
        {
          courier: "beta",
          wilaya_id: 31,
          shipments: 1,
          delivered: 0,
          returned: 0,
          cancelled: 0,
          in_progress: 1,
          delivery_rate: null,
          return_rate: null,
          median_days_to_deliver: null
        }
      ])
      const tomorrow = DateTime.formatIso(DateTime.add(start, { days: 1 }))
      assert.deepStrictEqual(yield* risk.courierReport(store.id, { from: tomorrow }), { items: [], couriers: [] })
      assert.strictEqual((yield* risk.courierReport(store.id, { to: tomorrow })).items.length, 2)
      assert.strictEqual(yield* failureOf(risk.courierReport(store.id, { from: "soon" })), "InvalidRiskRequest")

      const next = yield* order("0550999999")
      const ranked = yield* risk.recommend(store.id, next.id, {
        couriers: ["beta", "alpha"],
        rates: [{ wilaya_id: 31, home_price: 600, desk_price: null }]
      })
      assert.deepStrictEqual(
        ranked.items.map((r) => [r.rank, r.courier, r.price]),
        [
          [1, "alpha", 600],
          [2, "beta", 600]
        ]
      )
    })
  )
}
