/**
 * The orders and customers of the store API, as the HTTP layer calls them: create an order from its body, read and
 * list orders, move an order's status (PATCH and cancel), read and list customers and a customer's orders.
 * Everything is scoped by the calling store's id and answers JSON-ready values (`OrderViews`); failures are the
 * `OrderError`s whose reasons carry the spec's messages.
 *
 * An order create checks the body (`OrderCreate`), then in one `OrderStore` transaction reads the products (and,
 * for a capped plan, the month's order count under a lock), finishes the check, applies the monthly cap
 * (`MonthlyOrderCap`), prices the order from the catalogue (`@tawsil/pricing`) and inserts it under a fresh order
 * number. A status move checks the body and the transition table (`OrderStatus`), then compare-and-sets the status
 * with its stock effect; losing the race is the spec's "order status changed concurrently; retry".
 *
 * A create and a status move are told to `OrderEvents` in the same unit of work as the change (the webhooks' outbox
 * listens there), so what is told commits or rolls back with the change.
 */

import { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { Ids, Pagination, StoreText } from "@tawsil/domain"
import { Pricing } from "@tawsil/pricing"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, DateTime, Effect, Layer, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as CustomerMatch from "./CustomerMatch.ts"
import { parseInstant } from "./internal/instant.ts"
import * as MonthlyOrderCap from "./MonthlyOrderCap.ts"
import * as OrderCreate from "./OrderCreate.ts"
import * as OrderError from "./OrderError.ts"
import { OrderCreated, OrderEvents, OrderStatusChanged, PaymentReceived, ShipmentUpdated } from "./OrderEvents.ts"
import * as OrderNumber from "./OrderNumber.ts"
import * as OrderRisk from "./OrderRisk.ts"
import * as OrderShipment from "./OrderShipment.ts"
import * as OrderStatus from "./OrderStatus.ts"
import { type NewOrder, type OrderRecord, OrderStore, type ParcelName } from "./OrderStore.ts"
import * as OrderStoreSql from "./OrderStoreSql.ts"
import * as OrderViews from "./OrderViews.ts"

/** The calling store, as authentication found it. */
export interface Store {
  readonly id: Ids.StoreId
  readonly plan: string
}

/** The query of `GET /v1/orders`, raw. An invalid `status` or `since` is ignored (spec "Order rules" 3). */
export interface OrderListQuery {
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
  readonly status?: string | undefined
  /** ISO 8601; without an offset, Algiers time. */
  readonly since?: string | undefined
  /** Exact, spaces ignored (phones are kept without them). */
  readonly customer_phone?: string | undefined
  /** Orders whose parcel this courier carries (a key of `GET /v1/couriers`). */
  readonly courier?: string | undefined
  /** Orders whose parcel is in this canonical status; an unknown one is ignored, as `status` is. */
  readonly shipment_status?: string | undefined
}

/** An order as a shipment is built from it: its detail and the names of its lines' products. */
export interface ToShip {
  readonly order: OrderViews.OrderDetail
  readonly productNames: ReadonlyMap<number, string>
}

/** The query of `GET /v1/customers`, raw. `phone` and `email` match exactly, ignoring case. */
export interface CustomerListQuery {
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
  readonly phone?: string | undefined
  readonly email?: string | undefined
}

export interface PageQuery {
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
}

export class Orders extends Context.Service<
  Orders,
  {
    readonly create: (store: Store, body: unknown) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    readonly get: (storeId: Ids.StoreId, id: number) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    readonly list: (
      storeId: Ids.StoreId,
      query: OrderListQuery
    ) => Effect.Effect<Pagination.Page<OrderViews.OrderSummary>>
    /** PATCH `{ status }`: the body is checked before the order is looked up. */
    readonly setStatus: (
      storeId: Ids.StoreId,
      id: number,
      body: unknown
    ) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    /** The same as PATCH `{ "status": "cancelled" }`. */
    readonly cancel: (storeId: Ids.StoreId, id: number) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    readonly listCustomers: (
      storeId: Ids.StoreId,
      query: CustomerListQuery
    ) => Effect.Effect<Pagination.Page<OrderViews.CustomerSummary>>
    readonly getCustomer: (
      storeId: Ids.StoreId,
      id: number
    ) => Effect.Effect<OrderViews.CustomerDetail, OrderError.OrderError>
    readonly customerOrders: (
      storeId: Ids.StoreId,
      customerId: number,
      query: PageQuery
    ) => Effect.Effect<Pagination.Page<OrderViews.CustomerOrder>, OrderError.OrderError>
    /**
     * An order about to be shipped (docs/cod-loop.md): `confirmed` or `processing`, without a shipment; else
     * `NotShippable` or `ShipmentExists`. Read before the courier is asked; `attachShipment` checks again.
     */
    readonly toShip: (storeId: Ids.StoreId, id: number) => Effect.Effect<ToShip, OrderError.OrderError>
    /**
     * Records the parcel a courier created for an order and moves the order to `shipped` (to `processing` when the
     * parcel waits to be dispatched), in one unit with its events (`order.shipped`, `shipment.updated`).
     */
    readonly attachShipment: (
      storeId: Ids.StoreId,
      id: number,
      shipment: OrderShipment.NewShipment
    ) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    /**
     * Applies what a courier reported of an order's parcel (`OrderShipment.latest`, `orderMove`): the new events join
     * the timeline, the shipment takes the newest status, the order follows. Repeats change nothing.
     */
    readonly followShipment: (
      storeId: Ids.StoreId,
      id: number,
      events: ReadonlyArray<OrderShipment.ShipmentEvent>
    ) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    /**
     * `followShipment` for the poller and the push receiver: the same follow-up, answering only where the shipment
     * stands after it (no order is read when nothing was new).
     */
    readonly trackShipment: (
      storeId: Ids.StoreId,
      id: number,
      events: ReadonlyArray<OrderShipment.ShipmentEvent>
    ) => Effect.Effect<OrderShipment.Tracked, OrderError.OrderError>
    /**
     * An undispatched parcel handed to the courier at `at`, with the status it has now: the shipment says so, the
     * order goes to `shipped`.
     */
    readonly markDispatched: (
      storeId: Ids.StoreId,
      id: number,
      dispatched: {
        readonly at: DateTime.Utc
        readonly status: CanonicalStatus
        readonly rawStatus: string
      }
    ) => Effect.Effect<OrderViews.OrderDetail, OrderError.OrderError>
    /** The order a courier account's parcel belongs to (by tracking number, the courier's reference or ours). */
    readonly findByParcel: (
      accountId: number,
      parcel: ParcelName
    ) => Effect.Effect<{ readonly storeId: Ids.StoreId; readonly orderId: number } | undefined>
  }
>()("@tawsil/orders/Orders") {}

/** Order numbers are 32 random bits per store and day: a retry past this many collisions is a broken `Random`. */
const NUMBER_ATTEMPTS = 8

const orderNotFound = (id: number) =>
  OrderError.fail(new OrderError.OrderNotFound({ message: `Order ${id} not found` }))
const noShipment = (id: number) =>
  OrderError.fail(new OrderError.NoShipment({ message: `Order ${id} has no shipment` }))
const customerNotFound = (id: number) =>
  OrderError.fail(new OrderError.CustomerNotFound({ message: `Customer ${id} not found` }))

const nonEmpty = (text: string | undefined) => (text === undefined || text.trim() === "" ? undefined : text.trim())

/**
 * Whether an exact-match filter can match at all: no stored phone or email holds text PostgreSQL cannot keep (a NUL
 * character, a lone surrogate; `StoreText`), so such a filter matches nothing and is not sent to the database.
 */
const canMatch = (...filters: ReadonlyArray<string | undefined>) =>
  filters.every((filter) => filter === undefined || StoreText.isStorable(filter))

const emptyPage: Pagination.Page<never> = { items: [], next_cursor: null, has_more: false }

const isStatus = Schema.is(OrderStatus.OrderStatus)
const isShipmentStatus = Schema.is(CanonicalStatus)

/** The states an order may be shipped from. */
const shippable: ReadonlySet<OrderStatus.OrderStatus> = new Set(["confirmed", "processing"])

/** Why an order cannot be shipped, if it cannot. */
const shippingRefusal = (order: OrderRecord): OrderError.OrderErrorReason | undefined => {
  if (order.shipment !== null) {
    return new OrderError.ShipmentExists({
      message: `Order ${order.id} has a shipment already (${order.shipment.courier} ${order.shipment.tracking_number})`
    })
  }
  if (order.delivery_type === "digital") {
    return new OrderError.NotShippable({ message: `Order ${order.id} is a digital order: it has no parcel to ship` })
  }
  if (!shippable.has(order.status)) {
    return new OrderError.NotShippable({
      message: `Order ${order.id} is ${order.status}: only a confirmed or processing order can be shipped`
    })
  }
  return undefined
}

export const layer: Layer.Layer<Orders, never, OrderStore> = Layer.effect(
  Orders,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* OrderStore
    const events = yield* OrderEvents
    const risk = yield* OrderRisk.OrderRisk

    const findOrder = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      const order = Ids.isStorableId(id) ? yield* store.findOrder(storeId, id) : undefined
      return order ?? (yield* orderNotFound(id))
    })

    const insertNumbered = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      at: DateTime.Utc,
      order: Omit<NewOrder, "order_number">
    ) {
      for (let attempt = 0; attempt < NUMBER_ATTEMPTS; attempt++) {
        const order_number = yield* OrderNumber.make(storeId, at)
        const inserted = yield* store.insertOrder(storeId, { ...order, order_number })
        if (inserted !== undefined) return inserted
      }
      return yield* Effect.die(new Error(`no free order number after ${NUMBER_ATTEMPTS} attempts`))
    })

    /**
     * One compare-and-set move of a held order, its stock effect with it; `ConcurrentChange` when it moved meanwhile.
     * Answers the order after the move.
     */
    const moveHeld = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      order: OrderRecord,
      decision: Extract<OrderStatus.Decision, { readonly _tag: "Move" }>
    ) {
      const updated_at = yield* store.moveOrder(storeId, order.id, decision)
      if (updated_at === undefined) {
        return yield* OrderError.fail(new OrderError.ConcurrentChange({ message: OrderStatus.messages.concurrent }))
      }
      const moved: OrderRecord = {
        ...order,
        status: decision.to,
        stock_committed: OrderStatus.stockCommittedAfter(decision.stock, order.stock_committed),
        updated_at
      }
      return moved
    })

    /**
     * Applies a shipment's new state to its order, under the shipment's lock: the events the change is told as
     * (`shipment.updated` when `previous` differs, then each move the order makes following it).
     */
    const follow = Effect.fnUntraced(function* (
      storeId: Ids.StoreId,
      id: number,
      previous: CanonicalStatus | null,
      statusChanged: boolean
    ) {
      let order = yield* findOrder(storeId, id)
      const moves: Array<{ readonly from: OrderStatus.OrderStatus; readonly order: OrderRecord }> = []
      // A parcel can be further on than its order by more than one move (delivered while the order waited in
      // `processing`): the order takes each move in turn.
      for (let step = 0; step < 3 && order.shipment !== null; step++) {
        const to = OrderShipment.orderMove(order.status, order.shipment.status)
        if (to === undefined) break
        const decision = OrderStatus.decide(order, to, "courier")
        if (decision._tag === "Failure" || decision.success._tag === "Unchanged") break
        const from = order.status
        order = yield* moveHeld(storeId, order, decision.success)
        moves.push({ from, order })
      }
      const detail = OrderViews.orderDetail(order)
      if (statusChanged) yield* events.record(new ShipmentUpdated({ storeId, previous, order: detail }))
      for (const moved of moves) {
        yield* events.record(
          new OrderStatusChanged({
            storeId,
            from: moved.from,
            order: { ...detail, status: moved.order.status, updated_at: OrderViews.orderDetail(moved.order).updated_at }
          })
        )
      }
      return detail
    })

    /**
     * A follow-up under the shipment's lock: the new events recorded, the shipment's state written when it moved, and
     * the order following it (`follow`) when there was anything new. Answers the shipment's state after, and the
     * order's detail where it was read anyway: a poll that finds nothing new reads no order.
     */
    const applyTracking = (storeId: Ids.StoreId, id: number, reported: ReadonlyArray<OrderShipment.ShipmentEvent>) =>
      store.transaction(
        Effect.gen(function* () {
          const locked = yield* store.lockShipment(storeId, id)
          if (locked === undefined) return yield* noShipment(id)
          const fresh = yield* store.recordEvents(storeId, id, reported.map(OrderShipment.storable))
          const next = OrderShipment.latest(locked, fresh)
          const statusChanged = next.status !== locked.status || next.cod_status !== locked.cod_status
          const changed =
            statusChanged ||
            next.raw_status !== locked.raw_status ||
            next.reason !== locked.reason ||
            !DateTime.Equivalence(next.status_at, locked.status_at)
          if (changed) yield* store.updateShipment(storeId, id, next)
          const shipment: OrderShipment.Tracked = {
            courier: locked.courier,
            accountId: locked.account_id,
            trackingNumber: locked.tracking_number,
            status: next.status
          }
          if (fresh.length === 0) return { shipment, detail: undefined }
          const detail = yield* follow(storeId, id, locked.status, statusChanged)
          if (next.cod_status === "remitted" && locked.cod_status !== "remitted") {
            // What the newest remittance said of the money (an amount, a fee, a statement), where it said anything.
            const remittance = fresh.filter((event) => event.kind === "cod" && event.status === "remitted")
            const newest = remittance.sort(
              (a, b) => DateTime.toEpochMillis(b.occurredAt) - DateTime.toEpochMillis(a.occurredAt)
            )[0]
            yield* events.record(new PaymentReceived({ storeId, order: detail, payment: newest?.payment }))
          }
          return { shipment, detail }
        })
      )

    const move = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number, to: OrderStatus.OrderStatus) {
      const order = yield* findOrder(storeId, id)
      const decision = yield* Effect.fromResult(OrderStatus.decide(order, to)).pipe(Effect.mapError(OrderError.fail))
      if (decision._tag === "Unchanged") return OrderViews.orderDetail(order)
      // The compare-and-set and the event it tells are one unit: both happen or neither.
      return yield* store.transaction(
        Effect.gen(function* () {
          const detail = OrderViews.orderDetail(yield* moveHeld(storeId, order, decision))
          yield* events.record(new OrderStatusChanged({ storeId, from: order.status, order: detail }))
          return detail
        })
      )
    })

    return Orders.of({
      create: method("Orders.create")(function* (caller, body) {
        const parsed = yield* Effect.fromResult(OrderCreate.parse(body)).pipe(Effect.mapError(OrderError.fail))
        const cap = MonthlyOrderCap.of(caller.plan)
        const order = yield* store.transaction(
          Effect.gen(function* () {
            const snapshot = yield* store.prepareCreate(caller.id, OrderCreate.productIds(parsed), {
              countThisMonth: cap !== undefined
            })
            const valid = yield* Effect.fromResult(OrderCreate.resolve(parsed, snapshot.products)).pipe(
              Effect.mapError(OrderError.fail)
            )
            if (cap !== undefined && snapshot.ordersThisMonth >= cap) {
              return yield* OrderError.fail(new OrderError.MonthlyCapReached({ message: MonthlyOrderCap.message }))
            }
            const priced = Pricing.priceOrder(valid)
            // Only a product priced above the maximum before it existed can break the bounds.
            if (!Pricing.isWithinBounds(priced)) {
              return yield* OrderError.fail(new OrderError.InvalidOrder({ message: OrderCreate.messages.totalMax }))
            }
            // A banned phone (docs/risk.md): refused or flagged, as the store's setting says.
            const phone = CustomerMatch.phoneKey(valid.customer.phone)
            const admission = yield* risk.admit(caller.id, phone)
            if (admission === "refuse") {
              return yield* OrderError.fail(new OrderError.CustomerBanned({ message: OrderRisk.BANNED_MESSAGE }))
            }
            const inserted = yield* insertNumbered(caller.id, snapshot.now, {
              payment_method: valid.payment_method,
              customer: valid.customer,
              delivery: valid.delivery,
              subtotal: priced.subtotal,
              shipping_cost: valid.shipping_cost,
              discount: valid.discount,
              payment_fee: valid.payment_fee,
              total: priced.total,
              notes: valid.notes,
              items: priced.lines.map((line, index) => ({ ...line, product_id: valid.lines[index]!.product.id }))
            })
            if (admission === "flag") yield* risk.flagged(caller.id, inserted.id, phone)
            const detail = OrderViews.orderDetail(inserted)
            yield* events.record(new OrderCreated({ storeId: caller.id, order: detail }))
            return detail
          })
        )
        return order
      }),

      get: method("Orders.get")(function* (storeId, id) {
        return OrderViews.orderDetail(yield* findOrder(storeId, id))
      }),

      list: method("Orders.list")(function* (storeId, query) {
        const limit = Pagination.limitOf(query.limit)
        const phone = nonEmpty(query.customer_phone)
        if (!canMatch(phone)) return emptyPage
        const since = nonEmpty(query.since)
        const rows = yield* store.listOrders(
          storeId,
          {
            status: query.status !== undefined && isStatus(query.status) ? query.status : undefined,
            since: since === undefined ? undefined : parseInstant(since),
            customerPhone: phone === undefined ? undefined : CustomerMatch.phoneKey(phone),
            courier: nonEmpty(query.courier)?.toLowerCase(),
            shipmentStatus:
              query.shipment_status !== undefined && isShipmentStatus(query.shipment_status)
                ? query.shipment_status
                : undefined
          },
          { afterId: Pagination.afterIdOf(query.cursor), limit: limit + 1 }
        )
        return Pagination.page(rows, limit, (row) => row.id, OrderViews.orderSummary)
      }),

      setStatus: method("Orders.setStatus")(function* (storeId, id, body) {
        const to = yield* Effect.fromResult(OrderStatus.decodePatch(body)).pipe(Effect.mapError(OrderError.fail))
        return yield* move(storeId, id, to)
      }),

      cancel: method("Orders.cancel")(function* (storeId, id) {
        return yield* move(storeId, id, "cancelled")
      }),

      listCustomers: method("Orders.listCustomers")(function* (storeId, query) {
        const limit = Pagination.limitOf(query.limit)
        const phone = nonEmpty(query.phone)
        const email = nonEmpty(query.email)
        if (!canMatch(phone, email)) return emptyPage
        const rows = yield* store.listCustomers(
          storeId,
          { phone: phone === undefined ? undefined : CustomerMatch.phoneKey(phone), email },
          { afterId: Pagination.afterIdOf(query.cursor), limit: limit + 1 }
        )
        return Pagination.page(rows, limit, (row) => row.id, OrderViews.customerSummary)
      }),

      getCustomer: method("Orders.getCustomer")(function* (storeId, id) {
        const customer = Ids.isStorableId(id) ? yield* store.findCustomer(storeId, id) : undefined
        if (customer === undefined) return yield* customerNotFound(id)
        return OrderViews.customerDetail(customer, yield* risk.score(storeId, customer))
      }),

      toShip: method("Orders.toShip")(function* (storeId, id) {
        const order = yield* findOrder(storeId, id)
        const refusal = shippingRefusal(order)
        if (refusal !== undefined) return yield* OrderError.fail(refusal)
        const productNames = yield* store.productNames(
          storeId,
          order.items.map((item) => item.product_id)
        )
        return { order: OrderViews.orderDetail(order), productNames }
      }),

      attachShipment: method("Orders.attachShipment")(function* (storeId, id, shipment) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const order = yield* findOrder(storeId, id)
            const refusal = shippingRefusal(order)
            if (refusal !== undefined) return yield* OrderError.fail(refusal)
            const to: OrderStatus.OrderStatus = shipment.dispatched ? "shipped" : "processing"
            const decision = yield* Effect.fromResult(OrderStatus.decide(order, to)).pipe(
              Effect.mapError(OrderError.fail)
            )
            // A compare-and-set even to its own status (an undispatched parcel of a processing order): it holds the
            // order for the rest of the unit, so a concurrent cancel either fails or makes this attach fail, and a
            // shipment is never attached to an order cancelled meanwhile.
            yield* moveHeld(
              storeId,
              order,
              decision._tag === "Move"
                ? decision
                : { _tag: "Move", from: order.status, to: order.status, stock: "none" }
            )
            const first = OrderShipment.storable({
              kind: "movement",
              status: shipment.status,
              rawStatus: shipment.rawStatus,
              occurredAt: shipment.at,
              source: "create"
            })
            if (!(yield* store.insertShipment(storeId, id, { ...shipment, rawStatus: first.rawStatus }, first))) {
              return yield* OrderError.fail(
                new OrderError.ShipmentExists({ message: `Order ${id} has a shipment already` })
              )
            }
            const detail = OrderViews.orderDetail(yield* findOrder(storeId, id))
            if (decision._tag === "Move") {
              yield* events.record(new OrderStatusChanged({ storeId, from: order.status, order: detail }))
            }
            yield* events.record(new ShipmentUpdated({ storeId, previous: null, order: detail }))
            return detail
          })
        )
      }),

      followShipment: method("Orders.followShipment")(function* (storeId, id, reported) {
        const followed = yield* applyTracking(storeId, id, reported)
        return followed.detail ?? OrderViews.orderDetail(yield* findOrder(storeId, id))
      }),

      trackShipment: method("Orders.trackShipment")(function* (storeId, id, reported) {
        return (yield* applyTracking(storeId, id, reported)).shipment
      }),

      markDispatched: method("Orders.markDispatched")(function* (storeId, id, dispatched) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const locked = yield* store.lockShipment(storeId, id)
            if (locked === undefined) return yield* noShipment(id)
            if (locked.dispatched) {
              return yield* OrderError.fail(
                new OrderError.AlreadyDispatched({ message: `Order ${id}'s parcel was dispatched already` })
              )
            }
            const event = OrderShipment.storable({
              kind: "movement",
              status: dispatched.status,
              rawStatus: dispatched.rawStatus,
              occurredAt: dispatched.at,
              source: "dispatch"
            })
            const fresh = yield* store.recordEvents(storeId, id, [event])
            const next = OrderShipment.latest(locked, fresh)
            yield* store.updateShipment(storeId, id, { ...next, dispatched: true })
            const order = yield* findOrder(storeId, id)
            const decision = OrderStatus.decide(order, "shipped")
            const moved =
              decision._tag === "Success" && decision.success._tag === "Move"
                ? yield* moveHeld(storeId, order, decision.success)
                : order
            const detail = OrderViews.orderDetail(moved)
            if (moved !== order)
              yield* events.record(new OrderStatusChanged({ storeId, from: order.status, order: detail }))
            if (next.status !== locked.status) {
              yield* events.record(new ShipmentUpdated({ storeId, previous: locked.status, order: detail }))
            }
            return detail
          })
        )
      }),

      findByParcel: (accountId, parcel) => store.findByParcel(accountId, parcel),

      customerOrders: method("Orders.customerOrders")(function* (storeId, customerId, query) {
        const customer = Ids.isStorableId(customerId) ? yield* store.findCustomer(storeId, customerId) : undefined
        if (customer === undefined) return yield* customerNotFound(customerId)
        const limit = Pagination.limitOf(query.limit)
        const rows = yield* store.listOrders(
          storeId,
          { customerId: customer.id },
          { afterId: Pagination.afterIdOf(query.cursor), limit: limit + 1 }
        )
        return Pagination.page(rows, limit, (row) => row.id, OrderViews.customerOrder)
      })
    })
  })
)

/** The service on PostgreSQL (`OrderStoreSql`), needing only `SqlClient`. */
export const layerSql: Layer.Layer<Orders, never, SqlClient.SqlClient> = layer.pipe(Layer.provide(OrderStoreSql.layer))
