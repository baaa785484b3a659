/**
 * The contract of an order's shipment through `Orders` (docs/cod-loop.md): shipping an order, attaching its parcel,
 * following what the courier reports, dispatching it later, finding it by the names couriers use, listing by it, and
 * what each of these tells (`OrderEvents`). Run over every `OrderStore`: memory, and SQL on the embedded database and
 * (with `DATABASE_URL`) the real server.
 */
import { assert, type Vitest } from "@effect/vitest"
import { AlgiersTime, type Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer } from "effect"
import * as OrderError from "../src/OrderError.ts"
import type { OrderEvent } from "../src/OrderEvents.ts"
import * as OrderShipment from "../src/OrderShipment.ts"
import { OrderStore } from "../src/OrderStore.ts"
import * as OrdersModule from "../src/Orders.ts"
import { type OrderListQuery, Orders } from "../src/Orders.ts"
import { Fixture, Heard } from "./Fixture.ts"

const at = (minute: number) => DateTime.makeUnsafe(Date.UTC(2025, 4, 1, 9, 0) + minute * 60_000)

let parcels = 0

/** A parcel as a courier created it: picked up soon, dispatched unless said. */
const parcel = (overrides: Partial<OrderShipment.NewShipment> = {}): OrderShipment.NewShipment => {
  parcels++
  return {
    accountId: 7,
    courier: "sandbox",
    trackingNumber: `SBX-${process.pid}-${parcels}`,
    courierReference: `REF-${process.pid}-${parcels}`,
    status: "pending_pickup",
    rawStatus: "ready_for_pickup",
    dispatched: true,
    at: at(0),
    ...overrides
  }
}

const event = (
  status: OrderShipment.ShipmentEvent["status"],
  minute: number,
  overrides: Partial<OrderShipment.ShipmentEvent> = {}
): OrderShipment.ShipmentEvent => ({
  kind: "movement",
  status,
  rawStatus: `raw ${status}`,
  occurredAt: at(minute),
  source: "poll",
  ...overrides
})

/** What was told, in words: `order <from> -> <to>` or `shipment <previous> -> <status>`. */
const words = (events: ReadonlyArray<OrderEvent>) =>
  events.map((told) =>
    told._tag === "OrderStatusChanged"
      ? `order ${told.from} -> ${told.order.status}`
      : told._tag === "ShipmentUpdated"
        ? `shipment ${told.previous} -> ${told.order.shipment?.status}`
        : "created"
  )

const reasonOf = <A, R>(effect: Effect.Effect<A, OrderError.OrderError, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

export const OrderShipmentsSuite = <R>(it: Vitest.MethodsNonLive<Orders | Fixture | OrderStore | Heard | R>) => {
  /** A store with a t-shirt (10 in stock, sizes tracked) and an order of 2 XL and 1 M, moved to `status`. */
  const anOrder = (status: "pending" | "confirmed" | "processing" = "confirmed") =>
    Effect.gen(function* () {
      const fixture = yield* Fixture
      const orders = yield* Orders
      const store = yield* fixture.store()
      const tshirt = yield* fixture.product(store.id, {
        name: "Robe kabyle",
        price: "2500",
        stock: 10,
        groups: [
          {
            name: "Taille",
            options: [
              { value: "M", stock: 5 },
              { value: "XL", stock: 5 }
            ]
          }
        ]
      })
      const order = yield* orders.create(store, {
        customer: { name: "Nadia", phone: "0661 22 33 44", wilaya_id: 16, commune: "Hydra", address: "Rue 1" },
        items: [
          { product_id: tshirt, quantity: 2, variants: [{ group_name: "Taille", option_name: "XL" }] },
          { product_id: tshirt, quantity: 1, variants: [{ group_name: "Taille", option_name: "M" }] }
        ]
      })
      if (status !== "pending") yield* orders.setStatus(store.id, order.id, { status })
      yield* (yield* Heard).take(order.id)
      return { store: store.id, order, tshirt }
    })

  /** An order shipped with `shipment`, what that told forgotten. */
  const shipped = (shipment: OrderShipment.NewShipment = parcel(), from: "confirmed" | "processing" = "confirmed") =>
    Effect.gen(function* () {
      const made = yield* anOrder(from)
      const detail = yield* (yield* Orders).attachShipment(made.store, made.order.id, shipment)
      yield* (yield* Heard).take(made.order.id)
      return { ...made, shipment, detail }
    })

  const told = (orderId: number) => Effect.flatMap(Heard, (heard) => Effect.map(heard.take(orderId), words))

  it.effect("toShip: answers a confirmed or processing order without a shipment, with its products' names", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      for (const status of ["confirmed", "processing"] as const) {
        const { store, order, tshirt } = yield* anOrder(status)
        const toShip = yield* orders.toShip(store, order.id)
        assert.deepStrictEqual(toShip.order, yield* orders.get(store, order.id))
        assert.deepStrictEqual([...toShip.productNames], [[tshirt, "Robe kabyle"]])
      }
    })
  )

  it.effect("toShip: refuses a pending, shipped or cancelled order, one with a shipment, and an unknown one", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const pending = yield* anOrder("pending")
      assert.deepStrictEqual(
        yield* reasonOf(orders.toShip(pending.store, pending.order.id)),
        new OrderError.NotShippable({
          message: `Order ${pending.order.id} is pending: only a confirmed or processing order can be shipped`
        })
      )
      const byHand = yield* anOrder()
      yield* orders.setStatus(byHand.store, byHand.order.id, { status: "shipped" })
      assert.strictEqual((yield* reasonOf(orders.toShip(byHand.store, byHand.order.id)))._tag, "NotShippable")
      const cancelled = yield* anOrder()
      yield* orders.cancel(cancelled.store, cancelled.order.id)
      assert.strictEqual((yield* reasonOf(orders.toShip(cancelled.store, cancelled.order.id)))._tag, "NotShippable")

      const { store, order, shipment } = yield* shipped(parcel(), "processing")
      assert.deepStrictEqual(
        yield* reasonOf(orders.toShip(store, order.id)),
        new OrderError.ShipmentExists({
          message: `Order ${order.id} has a shipment already (sandbox ${shipment.trackingNumber})`
        })
      )
      assert.strictEqual((yield* reasonOf(orders.toShip(store, 2_000_000_000)))._tag, "OrderNotFound")
      // Another store's order is not found either.
      assert.strictEqual((yield* reasonOf(orders.toShip(pending.store, order.id)))._tag, "OrderNotFound")
    })
  )

  it.effect("attachShipment: a dispatched parcel ships the order, told as order.shipped then shipment.updated", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, order, tshirt } = yield* anOrder()
      const stock = yield* fixture.stock(tshirt)
      const shipment = parcel({ courierReference: undefined })
      const detail = yield* orders.attachShipment(store, order.id, shipment)
      assert.strictEqual(detail.status, "shipped")
      const view = detail.shipment!
      assert.deepStrictEqual(
        { ...view, created_at: "", updated_at: "" },
        {
          courier: "sandbox",
          account_id: 7,
          tracking_number: shipment.trackingNumber,
          courier_reference: null,
          status: "pending_pickup",
          raw_status: "ready_for_pickup",
          reason: null,
          status_at: AlgiersTime.formatSql(at(0)),
          cod_status: null,
          dispatched: true,
          label_url: `/v1/orders/${order.id}/shipment/label`,
          created_at: "",
          updated_at: "",
          timeline: [
            {
              kind: "movement",
              status: "pending_pickup",
              raw_status: "ready_for_pickup",
              reason: null,
              at: AlgiersTime.formatSql(at(0)),
              source: "create"
            }
          ]
        }
      )
      assert.deepStrictEqual(yield* orders.get(store, order.id), detail)
      assert.deepStrictEqual(yield* told(order.id), ["order confirmed -> shipped", "shipment null -> pending_pickup"])
      // The stock was taken at confirmation; shipping takes none.
      assert.deepStrictEqual(yield* fixture.stock(tshirt), stock)
    })
  )

  it.effect("attachShipment: an undispatched parcel moves the order to processing (or leaves it there)", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const confirmed = yield* anOrder("confirmed")
      const fromConfirmed = yield* orders.attachShipment(
        confirmed.store,
        confirmed.order.id,
        parcel({ dispatched: false, status: "created", rawStatus: "order_created" })
      )
      assert.deepStrictEqual(
        [fromConfirmed.status, fromConfirmed.shipment?.dispatched, fromConfirmed.shipment?.status],
        ["processing", false, "created"]
      )
      assert.deepStrictEqual(yield* told(confirmed.order.id), [
        "order confirmed -> processing",
        "shipment null -> created"
      ])
      const processing = yield* anOrder("processing")
      const kept = yield* orders.attachShipment(
        processing.store,
        processing.order.id,
        parcel({ dispatched: false, status: "created", rawStatus: "order_created" })
      )
      assert.strictEqual(kept.status, "processing")
      assert.deepStrictEqual(yield* told(processing.order.id), ["shipment null -> created"])
    })
  )

  it.effect("attachShipment: refuses a second parcel and an order that moved, storing and telling nothing", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order, detail } = yield* shipped()
      assert.strictEqual((yield* reasonOf(orders.attachShipment(store, order.id, parcel())))._tag, "ShipmentExists")
      assert.deepStrictEqual(yield* orders.get(store, order.id), detail)
      const cancelled = yield* anOrder()
      yield* orders.cancel(cancelled.store, cancelled.order.id)
      yield* told(cancelled.order.id)
      assert.strictEqual(
        (yield* reasonOf(orders.attachShipment(cancelled.store, cancelled.order.id, parcel())))._tag,
        "NotShippable"
      )
      const after = yield* orders.get(cancelled.store, cancelled.order.id)
      assert.deepStrictEqual([after.status, after.shipment], ["cancelled", null])
      assert.deepStrictEqual(yield* told(order.id), [])
      assert.deepStrictEqual(yield* told(cancelled.order.id), [])
    })
  )

  it.effect("attachShipment: fails, attaching nothing, when the order was cancelled after it was read", () =>
    Effect.gen(function* () {
      const real = yield* OrderStore
      const orders = yield* Orders
      const { store, order } = yield* anOrder("processing")
      // A cancel commits between the attach's read of the order and its write, for an undispatched parcel too
      // (the order stays in processing: no move of its own to lose the race).
      let raced = false
      const racing = OrderStore.of({
        ...real,
        findOrder: (storeId, id) =>
          Effect.tap(real.findOrder(storeId, id), () => {
            if (raced) return Effect.void
            raced = true
            return real.moveOrder(storeId, id, { from: "processing", to: "cancelled", stock: "restore" })
          })
      })
      const refused = yield* reasonOf(
        Effect.flatMap(Orders, (o) =>
          o.attachShipment(
            store,
            order.id,
            parcel({ dispatched: false, status: "created", rawStatus: "order_created" })
          )
        ).pipe(Effect.provide(Layer.fresh(OrdersModule.layer).pipe(Layer.provide(Layer.succeed(OrderStore, racing)))))
      )
      assert.strictEqual(refused._tag, "ConcurrentChange")
      // Nothing attached (on SQL the simulated cancel, made inside the attach's own unit, is undone with it).
      assert.isNull((yield* orders.get(store, order.id)).shipment)
    })
  )

  it.effect("followShipment: keeps an event once, by the courier's id and by kind, raw status and time", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      const pushed = event("in_transit", 20, { eventId: "evt-1", source: "push" })
      const first = yield* orders.followShipment(store, order.id, [pushed])
      assert.strictEqual(first.shipment!.status, "in_transit")
      assert.strictEqual(first.shipment!.timeline.length, 2)
      assert.deepStrictEqual(yield* told(order.id), ["shipment pending_pickup -> in_transit"])

      const repeats = [
        // The same id again, even with other words and time.
        { ...pushed, rawStatus: "autre", occurredAt: at(25) },
        // The same event read by a poll: no id, same kind, raw status and time.
        { ...pushed, eventId: undefined, source: "poll" as const }
      ]
      for (const repeat of repeats) {
        const again = yield* orders.followShipment(store, order.id, [repeat])
        assert.deepStrictEqual(again, first)
        assert.deepStrictEqual(yield* told(order.id), [])
      }
      // Kind counts: cash of the same raw status and time is another event.
      const cash = yield* orders.followShipment(store, order.id, [
        { ...pushed, eventId: undefined, kind: "cod", status: "collected" }
      ])
      assert.strictEqual(cash.shipment!.timeline.length, 3)
      assert.strictEqual(cash.shipment!.cod_status, "collected")
    })
  )

  it.effect("followShipment: keeps what a courier sent as it can be stored, once, whatever its text and length", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      const odd = [
        event("in_transit", 20, { rawStatus: "En\u0000route \ud800", reason: `${"r".repeat(600)}\u0000` }),
        event("out_for_delivery", 30, { rawStatus: "S".repeat(3000), eventId: "e".repeat(3000) }),
        event("on_hold", 10, { rawStatus: "\udc00", eventId: "\u0000" })
      ]
      const detail = yield* orders.followShipment(store, order.id, odd)
      const shipment = detail.shipment!
      assert.deepStrictEqual(
        [shipment.status, shipment.raw_status],
        ["out_for_delivery", "S".repeat(OrderShipment.RAW_STATUS_MAX)]
      )
      assert.deepStrictEqual(
        shipment.timeline.map((step) => [
          step.raw_status.slice(0, 12),
          step.raw_status.length,
          step.reason?.length ?? null
        ]),
        [
          ["ready_for_pi", 16, null],
          ["\ufffd", 1, null],
          ["En\ufffdroute \ufffd", 10, OrderShipment.REASON_MAX],
          ["SSSSSSSSSSSS", OrderShipment.RAW_STATUS_MAX, null]
        ]
      )
      assert.deepStrictEqual(yield* orders.followShipment(store, order.id, odd), detail)
    })
  )

  it.effect("followShipment: a delivered parcel delivers the order, told as shipment.updated then the move", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      const detail = yield* orders.followShipment(store, order.id, [
        event("out_for_delivery", 30),
        event("delivered", 45, { reason: "Remis au client" })
      ])
      assert.strictEqual(detail.status, "delivered")
      assert.deepStrictEqual(
        [detail.shipment!.status, detail.shipment!.raw_status, detail.shipment!.reason, detail.shipment!.status_at],
        ["delivered", "raw delivered", "Remis au client", AlgiersTime.formatSql(at(45))]
      )
      assert.deepStrictEqual(yield* told(order.id), [
        "shipment pending_pickup -> delivered",
        "order shipped -> delivered"
      ])
      assert.deepStrictEqual(yield* orders.get(store, order.id), detail)
    })
  )

  it.effect("followShipment: a returned parcel returns the order and gives its stock back", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, order, tshirt } = yield* shipped()
      assert.deepStrictEqual(yield* fixture.stock(tshirt), {
        stock: 7,
        sales_count: 3,
        options: { "Taille/M": 4, "Taille/XL": 3 }
      })
      const detail = yield* orders.followShipment(store, order.id, [
        event("failed_attempt", 40, { reason: "Client injoignable" }),
        event("returning", 50),
        event("returned", 60)
      ])
      assert.strictEqual(detail.status, "returned")
      assert.deepStrictEqual(yield* told(order.id), [
        "shipment pending_pickup -> returned",
        "order shipped -> returned"
      ])
      assert.deepStrictEqual(yield* fixture.stock(tshirt), {
        stock: 10,
        sales_count: 0,
        options: { "Taille/M": 5, "Taille/XL": 5 }
      })
    })
  )

  it.effect("followShipment: a parcel the courier cancelled cancels a shipped order, which PATCH may not", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const { store, order, tshirt } = yield* shipped()
      const refused = yield* reasonOf(orders.setStatus(store, order.id, { status: "cancelled" }))
      assert.deepStrictEqual(
        refused,
        new OrderError.IllegalTransition({
          message: "Transition shipped -> cancelled not allowed; allowed: delivered, returned"
        })
      )
      assert.strictEqual((yield* reasonOf(orders.cancel(store, order.id)))._tag, "IllegalTransition")
      const detail = yield* orders.followShipment(store, order.id, [event("cancelled", 3, { source: "cancel" })])
      assert.strictEqual(detail.status, "cancelled")
      assert.deepStrictEqual(yield* told(order.id), [
        "shipment pending_pickup -> cancelled",
        "order shipped -> cancelled"
      ])
      assert.strictEqual((yield* fixture.stock(tshirt)).stock, 10)
    })
  )

  it.effect("followShipment: an undispatched parcel picked up ships the order; a delivered one takes both moves", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const undispatched = () => parcel({ dispatched: false, status: "created", rawStatus: "order_created" })
      const picked = yield* shipped(undispatched())
      assert.strictEqual(picked.detail.status, "processing")
      const moved = yield* orders.followShipment(picked.store, picked.order.id, [event("picked_up", 5)])
      assert.strictEqual(moved.status, "shipped")
      assert.deepStrictEqual(yield* told(picked.order.id), [
        "shipment created -> picked_up",
        "order processing -> shipped"
      ])

      const delivered = yield* shipped(undispatched())
      const detail = yield* orders.followShipment(delivered.store, delivered.order.id, [
        event("picked_up", 5),
        event("delivered", 45)
      ])
      assert.strictEqual(detail.status, "delivered")
      assert.deepStrictEqual(yield* told(delivered.order.id), [
        "shipment created -> delivered",
        "order processing -> shipped",
        "order shipped -> delivered"
      ])
      // An undispatched parcel the courier cancelled cancels the order from processing.
      const cancelled = yield* shipped(undispatched())
      const gone = yield* orders.followShipment(cancelled.store, cancelled.order.id, [event("cancelled", 1)])
      assert.strictEqual(gone.status, "cancelled")
    })
  )

  it.effect(
    "followShipment: repeats and late events change nothing and tell nothing; late ones join the timeline",
    () =>
      Effect.gen(function* () {
        const orders = yield* Orders
        const { store, order } = yield* shipped()
        const events = [event("in_transit", 20), event("out_for_delivery", 30)]
        const first = yield* orders.followShipment(store, order.id, events)
        yield* told(order.id)
        assert.deepStrictEqual(yield* orders.followShipment(store, order.id, events), first)
        assert.deepStrictEqual(yield* orders.followShipment(store, order.id, []), first)
        assert.deepStrictEqual(yield* told(order.id), [])

        // A late event (older than the status) is kept in the timeline, in its place, and moves nothing.
        const late = yield* orders.followShipment(store, order.id, [event("picked_up", 10)])
        assert.strictEqual(late.status, "shipped")
        assert.deepStrictEqual(
          [late.shipment!.status, late.shipment!.status_at],
          ["out_for_delivery", AlgiersTime.formatSql(at(30))]
        )
        assert.deepStrictEqual(
          late.shipment!.timeline.map((step) => [step.status, step.at]),
          [
            ["pending_pickup", AlgiersTime.formatSql(at(0))],
            ["picked_up", AlgiersTime.formatSql(at(10))],
            ["in_transit", AlgiersTime.formatSql(at(20))],
            ["out_for_delivery", AlgiersTime.formatSql(at(30))]
          ]
        )
        assert.deepStrictEqual(yield* told(order.id), [])
      })
  )

  it.effect("followShipment: a cash event sets the COD status only, and is told as shipment.updated", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      yield* orders.followShipment(store, order.id, [event("delivered", 45)])
      yield* told(order.id)
      const detail = yield* orders.followShipment(store, order.id, [
        event("collected", 50, { kind: "cod", rawStatus: "cash_collected" })
      ])
      assert.deepStrictEqual(
        [detail.status, detail.shipment!.status, detail.shipment!.cod_status],
        ["delivered", "delivered", "collected"]
      )
      assert.deepStrictEqual(yield* told(order.id), ["shipment delivered -> delivered"])
    })
  )

  it.effect("get: events of one time are in the order they came, movement before cash within one report", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      // A raw status both tables list (the sandbox's cash_collected): cash first in the batch, one time for both.
      yield* orders.followShipment(store, order.id, [
        event("collected", 50, { kind: "cod", rawStatus: "cash_collected" }),
        event("delivered", 50, { rawStatus: "cash_collected" }),
        event("remitted", 40, { kind: "cod", rawStatus: "cash_remitted_early" })
      ])
      yield* orders.followShipment(store, order.id, [event("on_hold", 50, { rawStatus: "late_same_time" })])
      const timeline = (yield* orders.get(store, order.id)).shipment!.timeline
      assert.deepStrictEqual(
        timeline.map((step) => `${step.kind} ${step.raw_status}`),
        [
          "movement ready_for_pickup",
          "cod cash_remitted_early",
          "movement cash_collected",
          "cod cash_collected",
          "movement late_same_time"
        ]
      )
    })
  )

  it.effect("followShipment: a move the order's state does not allow is not forced; no shipment is NoShipment", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      yield* orders.setStatus(store, order.id, { status: "delivered" })
      yield* told(order.id)
      const detail = yield* orders.followShipment(store, order.id, [event("cancelled", 10)])
      assert.deepStrictEqual([detail.status, detail.shipment!.status], ["delivered", "cancelled"])
      assert.deepStrictEqual(yield* told(order.id), ["shipment pending_pickup -> cancelled"])

      const bare = yield* anOrder()
      assert.deepStrictEqual(
        yield* reasonOf(orders.followShipment(bare.store, bare.order.id, [event("delivered", 1)])),
        new OrderError.NoShipment({ message: `Order ${bare.order.id} has no shipment` })
      )
    })
  )

  it.effect("markDispatched: the parcel handed over ships the order; a second time or no shipment is refused", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped(
        parcel({ dispatched: false, status: "created", rawStatus: "order_created" })
      )
      const detail = yield* orders.markDispatched(store, order.id, {
        at: at(3),
        status: "pending_pickup",
        rawStatus: "ready_for_pickup"
      })
      assert.deepStrictEqual(
        [detail.status, detail.shipment!.dispatched, detail.shipment!.status, detail.shipment!.raw_status],
        ["shipped", true, "pending_pickup", "ready_for_pickup"]
      )
      assert.deepStrictEqual(
        detail.shipment!.timeline.map((step) => [step.status, step.source]),
        [
          ["created", "create"],
          ["pending_pickup", "dispatch"]
        ]
      )
      assert.deepStrictEqual(yield* told(order.id), [
        "order processing -> shipped",
        "shipment created -> pending_pickup"
      ])
      assert.deepStrictEqual(
        yield* reasonOf(
          orders.markDispatched(store, order.id, { at: at(4), status: "pending_pickup", rawStatus: "x" })
        ),
        new OrderError.AlreadyDispatched({ message: `Order ${order.id}'s parcel was dispatched already` })
      )
      assert.deepStrictEqual(yield* orders.get(store, order.id), detail)
      const bare = yield* anOrder()
      assert.strictEqual(
        (yield* reasonOf(
          orders.markDispatched(bare.store, bare.order.id, { at: at(1), status: "created", rawStatus: "x" })
        ))._tag,
        "NoShipment"
      )
    })
  )

  it.effect("findByParcel: by tracking number, the courier's reference or the order number, within the account", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const one = yield* shipped(parcel({ accountId: 41 }))
      const two = yield* shipped(parcel({ accountId: 41 }))
      const found = (storeId: Ids.StoreId, orderId: number) => ({ storeId, orderId })
      assert.deepStrictEqual(
        yield* orders.findByParcel(41, { trackingNumber: one.shipment.trackingNumber }),
        found(one.store, one.order.id)
      )
      assert.deepStrictEqual(
        yield* orders.findByParcel(41, { courierReference: two.shipment.courierReference }),
        found(two.store, two.order.id)
      )
      assert.deepStrictEqual(
        yield* orders.findByParcel(41, { reference: two.order.order_number }),
        found(two.store, two.order.id)
      )
      // The tracking number wins over the other names, wherever they point.
      assert.deepStrictEqual(
        yield* orders.findByParcel(41, {
          trackingNumber: one.shipment.trackingNumber,
          courierReference: two.shipment.courierReference,
          reference: two.order.order_number
        }),
        found(one.store, one.order.id)
      )
      assert.deepStrictEqual(
        yield* orders.findByParcel(41, { trackingNumber: "nope", courierReference: one.shipment.courierReference }),
        found(one.store, one.order.id)
      )
      // Another account's parcel, or no name that matches: none.
      assert.isUndefined(yield* orders.findByParcel(42, { trackingNumber: one.shipment.trackingNumber }))
      assert.isUndefined(yield* orders.findByParcel(41, { trackingNumber: "nope", reference: "ORD-nope" }))
      assert.isUndefined(yield* orders.findByParcel(41, {}))
    })
  )

  it.effect("list: filters by courier and shipment status, and sums the shipment up", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const fixture = yield* Fixture
      const store = yield* fixture.store()
      const product = yield* fixture.product(store.id, { price: "100" })
      const place = (courier: string | undefined, status?: OrderShipment.ShipmentEvent["status"]) =>
        Effect.gen(function* () {
          const order = yield* orders.create(store, {
            customer: { name: "Sami", phone: "0550 11 22 33", wilaya_id: 31, commune: "Oran" },
            items: [{ product_id: product, quantity: 1 }]
          })
          yield* orders.setStatus(store.id, order.id, { status: "confirmed" })
          if (courier === undefined) return { id: order.id, tracking: undefined }
          const shipment = parcel({ courier })
          yield* orders.attachShipment(store.id, order.id, shipment)
          if (status !== undefined) yield* orders.followShipment(store.id, order.id, [event(status, 30)])
          return { id: order.id, tracking: shipment.trackingNumber }
        })
      const unshipped = yield* place(undefined)
      const a = yield* place("sandbox", "delivered")
      const b = yield* place("yalidine", "delivered")
      const c = yield* place("sandbox")
      const ids = (query: OrderListQuery) =>
        Effect.map(orders.list(store.id, query), (page) => page.items.map((item) => item.id))
      assert.deepStrictEqual(yield* ids({ courier: "sandbox" }), [c.id, a.id])
      assert.deepStrictEqual(yield* ids({ courier: " SANDBOX " }), [c.id, a.id])
      assert.deepStrictEqual(yield* ids({ shipment_status: "delivered" }), [b.id, a.id])
      assert.deepStrictEqual(yield* ids({ courier: "sandbox", shipment_status: "delivered" }), [a.id])
      assert.deepStrictEqual(yield* ids({ courier: "sandbox", status: "shipped" }), [c.id])
      assert.deepStrictEqual(yield* ids({ courier: "maystro" }), [])
      // An unknown shipment status is ignored, as an unknown order status is.
      assert.deepStrictEqual(yield* ids({ shipment_status: "lost" }), [c.id, b.id, a.id, unshipped.id])
      const summaries = (yield* orders.list(store.id, {})).items.map((item) => item.shipment)
      assert.deepStrictEqual(summaries, [
        { courier: "sandbox", tracking_number: c.tracking!, status: "pending_pickup" },
        { courier: "yalidine", tracking_number: b.tracking!, status: "delivered" },
        { courier: "sandbox", tracking_number: a.tracking!, status: "delivered" },
        null
      ])
    })
  )

  it.effect("get: the order's shipment with its timeline oldest first, whatever order its events came in", () =>
    Effect.gen(function* () {
      const orders = yield* Orders
      const { store, order } = yield* shipped()
      yield* orders.followShipment(store, order.id, [event("out_for_delivery", 30)])
      yield* orders.followShipment(store, order.id, [
        event("in_transit", 20, { source: "push", eventId: "e-20" }),
        event("picked_up", 5, { reason: "Ramassé" })
      ])
      const shipment = (yield* orders.get(store, order.id)).shipment!
      assert.deepStrictEqual(shipment.timeline, [
        {
          kind: "movement",
          status: "pending_pickup",
          raw_status: "ready_for_pickup",
          reason: null,
          at: AlgiersTime.formatSql(at(0)),
          source: "create"
        },
        {
          kind: "movement",
          status: "picked_up",
          raw_status: "raw picked_up",
          reason: "Ramassé",
          at: AlgiersTime.formatSql(at(5)),
          source: "poll"
        },
        {
          kind: "movement",
          status: "in_transit",
          raw_status: "raw in_transit",
          reason: null,
          at: AlgiersTime.formatSql(at(20)),
          source: "push"
        },
        {
          kind: "movement",
          status: "out_for_delivery",
          raw_status: "raw out_for_delivery",
          reason: null,
          at: AlgiersTime.formatSql(at(30)),
          source: "poll"
        }
      ])
      assert.strictEqual(shipment.status, "out_for_delivery")
    })
  )
}
