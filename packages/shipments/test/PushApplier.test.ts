/**
 * The push applier's loop (`PushApplier.layer`) in memory, on the live clock, with an interval of an hour so that only
 * what the loop is said to do can have moved an order: a receive wakes it at once (`PushSignal`), it sweeps what is
 * waiting when it starts, and it shows the backlog as its gauges. Its rounds (claims, exactly once, two appliers,
 * deferral) are the receiver's suite's (`PushIntake.test.ts`), on every database.
 */
import { assert, layer } from "@effect/vitest"
import { Orders } from "@tawsil/orders"
import { Clock, Duration, Effect, Layer, Metric } from "effect"
import { CourierAccounts } from "../src/CourierAccounts.ts"
import * as PushApplier from "../src/PushApplier.ts"
import { PushIntake } from "../src/PushIntake.ts"
import * as ShipmentMetrics from "../src/ShipmentMetrics.ts"
import { Shipments } from "../src/Shipments.ts"
import { TrackingStore } from "../src/TrackingStore.ts"
import * as Backends from "./Backends.ts"
import { post, pusher, SECRET } from "./TestPush.ts"

const hourly = { ...PushApplier.defaults, every: Duration.hours(1), backlogInterval: Duration.millis(20) }

/** Waits (polling every 10 ms, at most 10 s) until `read` answers what `done` accepts; answers it. */
const until = <A, E, R>(read: Effect.Effect<A, E, R>, done: (value: A) => boolean, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 10_000
    for (;;) {
      const value = yield* read
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what}: not within 10 s`))
      yield* Effect.sleep("10 millis")
    }
  })

/** A store with a `pusher` account and an order shipped through it. */
const shipped = Effect.gen(function* () {
  const fixture = yield* Backends.Fixture
  const storeId = yield* fixture.store
  const account = yield* (yield* CourierAccounts).create(storeId, {
    courier: "pusher",
    label: "Pusher",
    credentials: { token: "t" },
    webhook_secret: SECRET
  })
  const order = yield* fixture.order(storeId)
  const detail = yield* (yield* Shipments).ship(storeId, order.id, { account_id: account.id })
  return { storeId, accountId: account.id, orderId: order.id, trackingNumber: detail.shipment!.tracking_number }
})

layer(Backends.memory([pusher]), { excludeTestServices: true })("PushApplier (memory, its loop)", (it) => {
  it.effect("a receive wakes the loop at once; what waited is swept when it starts; the backlog is shown", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const intake = yield* PushIntake
        const orders = yield* Orders.Orders
        const tracking = yield* TrackingStore
        const first = yield* shipped
        const second = yield* shipped
        const at = (yield* Clock.currentTimeMillis) + 60_000
        // Recorded with no applier running: it waits.
        yield* intake.receive(first.accountId, post([{ id: "w-1", tracking: first.trackingNumber, status: "OUT", at }]))
        assert.strictEqual((yield* orders.get(first.storeId, first.orderId)).shipment!.status, "pending_pickup")
        assert.strictEqual((yield* tracking.pushBacklog).pending, 1)

        // The loop starts: its first round is a sweep.
        yield* Layer.build(PushApplier.layer(hourly))
        yield* until(
          Effect.map(orders.get(first.storeId, first.orderId), (detail) => detail.shipment!.status),
          (status) => status === "out_for_delivery",
          "the waiting event swept at start"
        )

        // An hour before its next look, a receive wakes it.
        yield* intake.receive(
          second.accountId,
          post([{ id: "w-2", tracking: second.trackingNumber, status: "DELIVERED", at }])
        )
        yield* until(
          Effect.map(orders.get(second.storeId, second.orderId), (detail) => detail.status),
          (status) => status === "delivered",
          "the received event applied at once"
        )

        // An event for a parcel nobody shipped waits for it: the gauges show it waiting, nothing pending.
        yield* intake.receive(first.accountId, post([{ id: "w-3", tracking: "NOT-OURS", status: "OUT", at }]))
        const gauges = Effect.all([
          Metric.value(ShipmentMetrics.pushPending),
          Metric.value(ShipmentMetrics.pushWaiting)
        ])
        const [pending, waiting] = yield* until(
          gauges,
          ([pending, waiting]) => pending.value === 0 && waiting.value === 1,
          "the backlog gauges"
        )
        assert.deepStrictEqual([pending.value, waiting.value], [0, 1])
        assert.deepStrictEqual(yield* tracking.pushBacklog, { pending: 0, waiting: 1, lagSeconds: 0 })
      })
    )
  )
})
