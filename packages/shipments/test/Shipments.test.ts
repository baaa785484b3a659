/**
 * Shipping a store's orders through `Shipments`, in memory on the test clock: with the sandbox courier (whose parcels
 * can be cancelled for 5 minutes after they are created) and a test courier that separates creating a parcel from
 * dispatching it.
 */
import { assert, describe, layer } from "@effect/vitest"
import { OrderStore, Orders } from "@tawsil/orders"
import { Clock, DateTime, Duration, Effect, type Exit } from "effect"
import { TestClock } from "effect/testing"
import { CourierAccounts } from "../src/CourierAccounts.ts"
import { Shipments } from "../src/Shipments.ts"
import { TrackingStore } from "../src/TrackingStore.ts"
import * as Backends from "./Backends.ts"
import * as TestCouriers from "./TestCouriers.ts"

const later = TestCouriers.courier({ key: "later", dispatch: true })

type Failure = { readonly reason: { readonly _tag: string; readonly message: string } }
const reasonOf = <A, E extends Failure, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

/** The sandbox's tracking numbers count time from 2025: the test clock starts after, as a real one would. */
const START = Date.UTC(2025, 4, 1, 9)

/** A store with an account at `courier` and a confirmed order. */
const setUp = (courier: string, credentials?: Record<string, string>) =>
  Effect.gen(function* () {
    if ((yield* Clock.currentTimeMillis) < START) yield* TestClock.setTime(START)
    const fixture = yield* Backends.Fixture
    const storeId = yield* fixture.store
    const account = yield* (yield* CourierAccounts).create(storeId, {
      courier,
      label: courier,
      ...(credentials === undefined ? {} : { credentials })
    })
    const order = yield* fixture.order(storeId)
    return { storeId, accountId: account.id, order }
  })

const checksOf = (orderId: number) =>
  Effect.gen(function* () {
    yield* TestClock.adjust("1 day")
    const claimed = yield* (yield* TrackingStore).claimDue(10_000, Duration.minutes(1))
    yield* (yield* TrackingStore).release(claimed.map((check) => check.orderId))
    return claimed.filter((check) => check.orderId === orderId)
  })

const stockOf = (productId: number) =>
  Effect.map(
    Effect.flatMap(OrderStore.MemoryCatalogue, (catalogue) => catalogue.get(productId)),
    (product) => product!.stock
  )

describe("Shipments", () => {
  layer(Backends.memory([later]))("memory", (it) => {
    it.effect("ships a confirmed order through the sandbox: the parcel created, attached and followed", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const { storeId, accountId, order } = yield* setUp("sandbox")
        const shipped = yield* shipments.ship(storeId, order.id, { account_id: accountId })
        assert.strictEqual(shipped.status, "shipped")
        const shipment = shipped.shipment!
        assert.deepStrictEqual(
          [shipment.courier, shipment.account_id, shipment.status, shipment.dispatched, shipment.timeline.length],
          ["sandbox", accountId, "created", true, 1]
        )
        assert.match(shipment.tracking_number, /^SBX/)
        assert.deepStrictEqual(yield* (yield* Orders.Orders).get(storeId, order.id), shipped)
        const checks = yield* checksOf(order.id)
        assert.deepStrictEqual(
          checks.map((check) => [check.accountId, check.trackingNumber, check.status]),
          [[accountId, shipment.tracking_number, "created"]]
        )
        // The label, through the account.
        const label = yield* shipments.label(storeId, order.id)
        assert.strictEqual(label.contentType, "application/pdf")
        assert.include(new TextDecoder().decode(label.bytes), shipment.tracking_number)
      })
    )

    it.effect("refuses to ship, leaving the order as it was: a bad body, an unknown account, an order not ready", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const orders = yield* Orders.Orders
        const fixture = yield* Backends.Fixture
        const { storeId, accountId, order } = yield* setUp("sandbox")
        const refused = [
          yield* reasonOf(shipments.ship(storeId, order.id, { account_id: "1" })),
          yield* reasonOf(shipments.ship(storeId, order.id, { account_id: accountId + 1000 })),
          // The sandbox creates and dispatches in one step.
          yield* reasonOf(shipments.ship(storeId, order.id, { account_id: accountId, dispatch: false })),
          yield* reasonOf(shipments.ship(storeId, 2_000_000_000, { account_id: accountId }))
        ]
        assert.deepStrictEqual(
          refused.map((reason) => reason._tag),
          ["InvalidShipmentsBody", "AccountNotFound", "CourierFailed", "OrderNotFound"]
        )
        assert.deepStrictEqual(yield* orders.get(storeId, order.id), order)
        const pending = yield* fixture.order(storeId, { status: "pending" })
        assert.strictEqual(
          (yield* reasonOf(shipments.ship(storeId, pending.id, { account_id: accountId })))._tag,
          "NotShippable"
        )
        const digital = yield* fixture.order(storeId, { delivery: { type: "digital" } })
        const noParcel = yield* reasonOf(shipments.ship(storeId, digital.id, { account_id: accountId }))
        assert.deepStrictEqual(
          [noParcel._tag, noParcel.message],
          ["NotShippable", `Order ${digital.id} is a digital order: it has no parcel to ship`]
        )
        // Another store's account is not found.
        const other = yield* setUp("sandbox")
        assert.strictEqual(
          (yield* reasonOf(shipments.ship(storeId, order.id, { account_id: other.accountId })))._tag,
          "AccountNotFound"
        )
        yield* shipments.ship(storeId, order.id, { account_id: accountId })
        assert.strictEqual(
          (yield* reasonOf(shipments.ship(storeId, order.id, { account_id: accountId })))._tag,
          "ShipmentExists"
        )
      })
    )

    it.effect("answers the courier's failure as it is, and changes nothing", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const orders = yield* Orders.Orders
        const fixture = yield* Backends.Fixture
        const { storeId, accountId } = yield* setUp("sandbox")
        // The sandbox refuses this test phone.
        const order = yield* fixture.order(storeId, { customer: { phone: "0500000422" } })
        const failed = yield* reasonOf(shipments.ship(storeId, order.id, { account_id: accountId }))
        assert.strictEqual(failed._tag, "CourierFailed")
        assert.deepStrictEqual(yield* orders.get(storeId, order.id), order)
        assert.deepStrictEqual(yield* checksOf(order.id), [])
      })
    )

    it.effect(
      "cancels a parcel not yet picked up: the order is cancelled, its stock back, the parcel no longer followed",
      () =>
        Effect.gen(function* () {
          const shipments = yield* Shipments
          const { storeId, accountId, order } = yield* setUp("sandbox")
          const product = order.items[0]!.product_id
          assert.strictEqual(yield* stockOf(product), 8)
          yield* shipments.ship(storeId, order.id, { account_id: accountId })
          yield* TestClock.adjust("4 minutes")
          const cancelled = yield* shipments.cancel(storeId, order.id)
          assert.deepStrictEqual(
            [cancelled.status, cancelled.shipment!.status, cancelled.shipment!.timeline.at(-1)!.source],
            ["cancelled", "cancelled", "cancel"]
          )
          assert.strictEqual(yield* stockOf(product), 10)
          assert.deepStrictEqual(yield* checksOf(order.id), [])
          // Cancelled already: the same answer again, without asking the courier (past its window by now).
          assert.deepStrictEqual(
            yield* shipments.cancel(storeId, order.id),
            yield* (yield* Orders.Orders).get(storeId, order.id)
          )
        })
    )

    it.effect("refuses to cancel a parcel the courier no longer cancels, or that arrived, leaving the order", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const orders = yield* Orders.Orders
        const picked = yield* setUp("sandbox")
        yield* shipments.ship(picked.storeId, picked.order.id, { account_id: picked.accountId })
        yield* TestClock.adjust("6 minutes")
        const before = yield* orders.get(picked.storeId, picked.order.id)
        const refused = yield* reasonOf(shipments.cancel(picked.storeId, picked.order.id))
        assert.strictEqual(refused._tag, "CourierFailed")
        assert.include(refused.message, "can no longer be cancelled")
        assert.deepStrictEqual(yield* orders.get(picked.storeId, picked.order.id), before)

        const arrived = yield* setUp("sandbox")
        yield* shipments.ship(arrived.storeId, arrived.order.id, { account_id: arrived.accountId })
        yield* orders.followShipment(arrived.storeId, arrived.order.id, [
          {
            kind: "movement",
            status: "delivered",
            rawStatus: "delivered",
            occurredAt: DateTime.makeUnsafe((yield* Clock.currentTimeMillis) + 60_000),
            source: "poll"
          }
        ])
        const notCancellable = yield* reasonOf(shipments.cancel(arrived.storeId, arrived.order.id))
        assert.deepStrictEqual(
          [notCancellable._tag, notCancellable.message],
          ["NotCancellable", `Order ${arrived.order.id}'s parcel was delivered: it cannot be cancelled`]
        )
        const bare = yield* setUp("sandbox")
        assert.strictEqual((yield* reasonOf(shipments.cancel(bare.storeId, bare.order.id)))._tag, "NoShipment")
        assert.strictEqual((yield* reasonOf(shipments.label(bare.storeId, bare.order.id)))._tag, "NoShipment")
      })
    )

    it.effect("creates a parcel undispatched where the courier allows it, and dispatches it later", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const { storeId, accountId, order } = yield* setUp("later", { token: "t" })
        const held = yield* shipments.ship(storeId, order.id, { account_id: accountId, dispatch: false })
        assert.deepStrictEqual(
          [held.status, held.shipment!.dispatched, held.shipment!.status],
          ["processing", false, "created"]
        )
        const trackingNumber = held.shipment!.tracking_number
        assert.isFalse(TestCouriers.desk.parcels.get(trackingNumber)!.dispatched)
        const dispatched = yield* shipments.dispatch(storeId, order.id)
        assert.deepStrictEqual(
          [
            dispatched.status,
            dispatched.shipment!.dispatched,
            dispatched.shipment!.status,
            dispatched.shipment!.raw_status
          ],
          ["shipped", true, "pending_pickup", "READY"]
        )
        assert.isTrue(TestCouriers.desk.parcels.get(trackingNumber)!.dispatched)
        assert.deepStrictEqual(
          (yield* checksOf(order.id)).map((check) => check.status),
          ["pending_pickup"]
        )
        const calls = TestCouriers.desk.callsOf("later").length
        const again = yield* reasonOf(shipments.dispatch(storeId, order.id))
        assert.strictEqual(again._tag, "AlreadyDispatched")
        assert.strictEqual(TestCouriers.desk.callsOf("later").length, calls, "the courier was not asked again")
        // The sandbox dispatches on create: a dispatch of its parcel is refused.
        const sandbox = yield* setUp("sandbox")
        yield* shipments.ship(sandbox.storeId, sandbox.order.id, { account_id: sandbox.accountId })
        assert.strictEqual(
          (yield* reasonOf(shipments.dispatch(sandbox.storeId, sandbox.order.id)))._tag,
          "AlreadyDispatched"
        )
      })
    )

    it.effect("cancels an undispatched parcel: the order goes from processing to cancelled", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const { storeId, accountId, order } = yield* setUp("later", { token: "t" })
        const held = yield* shipments.ship(storeId, order.id, { account_id: accountId, dispatch: false })
        const cancelled = yield* shipments.cancel(storeId, order.id)
        assert.strictEqual(cancelled.status, "cancelled")
        assert.isTrue(TestCouriers.desk.parcels.get(held.shipment!.tracking_number)!.cancelled)
        const calls = TestCouriers.desk.callsOf("later").length
        assert.deepStrictEqual(yield* shipments.cancel(storeId, order.id), cancelled)
        assert.strictEqual(TestCouriers.desk.callsOf("later").length, calls, "the courier was not asked again")
      })
    )

    it.effect(
      "leaves the parcel of a concurrent ship of the same order alone: both answer the order shipped with it",
      () =>
        Effect.gen(function* () {
          const shipments = yield* Shipments
          const { storeId, accountId, order } = yield* setUp("later", { token: "t" })
          // A second ship of the order (a double click, a retry under another key) reads it before the first attaches
          // its parcel: the gateway answers it the first's parcel again (the key is the order's), and it attaches first.
          let second: Exit.Exit<unknown, unknown> | undefined
          TestCouriers.desk.afterCreate = Effect.asVoid(
            Effect.tap(Effect.exit(shipments.ship(storeId, order.id, { account_id: accountId })), (exit) =>
              Effect.sync(() => {
                second = exit
              })
            )
          )
          const first = yield* shipments.ship(storeId, order.id, { account_id: accountId })
          assert.strictEqual(second?._tag, "Success")
          const trackingNumber = first.shipment!.tracking_number
          assert.isFalse(TestCouriers.desk.parcels.get(trackingNumber)!.cancelled, "the order's parcel was cancelled")
          assert.strictEqual(first.status, "shipped")
          assert.deepStrictEqual(first, yield* (yield* Orders.Orders).get(storeId, order.id))
          assert.deepStrictEqual(
            (yield* checksOf(order.id)).map((check) => check.trackingNumber),
            [trackingNumber]
          )
        })
    )

    it.effect("takes the parcel back when the order moved while the courier created it, and answers why", () =>
      Effect.gen(function* () {
        const shipments = yield* Shipments
        const orders = yield* Orders.Orders
        const { storeId, accountId, order } = yield* setUp("later", { token: "t" })
        TestCouriers.desk.duringCreate = Effect.asVoid(Effect.orDie(orders.cancel(storeId, order.id)))
        const created = TestCouriers.desk.created
        const refused = yield* reasonOf(shipments.ship(storeId, order.id, { account_id: accountId }))
        assert.strictEqual(refused._tag, "NotShippable")
        const parcel = TestCouriers.desk.parcels.get(`LATER-${created + 1}`)!
        assert.isTrue(parcel.cancelled, "the parcel was cancelled at the courier")
        const after = yield* orders.get(storeId, order.id)
        assert.deepStrictEqual([after.status, after.shipment], ["cancelled", null])
        assert.deepStrictEqual(yield* checksOf(order.id), [])
      })
    )
  })
})
