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
import { Ids, Pagination, StoreText } from "@tawsil/domain"
import { Pricing } from "@tawsil/pricing"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, type DateTime, Effect, Layer, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as CustomerMatch from "./CustomerMatch.ts"
import { parseInstant } from "./internal/instant.ts"
import * as MonthlyOrderCap from "./MonthlyOrderCap.ts"
import * as OrderCreate from "./OrderCreate.ts"
import * as OrderError from "./OrderError.ts"
import { OrderCreated, OrderEvents, OrderStatusChanged } from "./OrderEvents.ts"
import * as OrderNumber from "./OrderNumber.ts"
import * as OrderStatus from "./OrderStatus.ts"
import { type NewOrder, type OrderRecord, OrderStore } from "./OrderStore.ts"
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
  }
>()("@tawsil/orders/Orders") {}

/** Order numbers are 32 random bits per store and day: a retry past this many collisions is a broken `Random`. */
const NUMBER_ATTEMPTS = 8

const orderNotFound = (id: number) =>
  OrderError.fail(new OrderError.OrderNotFound({ message: `Order ${id} not found` }))
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

export const layer: Layer.Layer<Orders, never, OrderStore> = Layer.effect(
  Orders,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* OrderStore
    const events = yield* OrderEvents

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

    const move = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number, to: OrderStatus.OrderStatus) {
      const order = yield* findOrder(storeId, id)
      const decision = yield* Effect.fromResult(OrderStatus.decide(order, to)).pipe(Effect.mapError(OrderError.fail))
      if (decision._tag === "Unchanged") return OrderViews.orderDetail(order)
      // The compare-and-set and the event it tells are one unit: both happen or neither.
      return yield* store.transaction(
        Effect.gen(function* () {
          const updated_at = yield* store.moveOrder(storeId, order.id, decision)
          if (updated_at === undefined) {
            return yield* OrderError.fail(new OrderError.ConcurrentChange({ message: OrderStatus.messages.concurrent }))
          }
          const moved: OrderRecord = {
            ...order,
            status: to,
            stock_committed: OrderStatus.stockCommittedAfter(decision.stock, order.stock_committed),
            updated_at
          }
          const detail = OrderViews.orderDetail(moved)
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
            customerPhone: phone === undefined ? undefined : CustomerMatch.phoneKey(phone)
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
        return OrderViews.customerDetail(customer)
      }),

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
