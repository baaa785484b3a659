/**
 * What happens to orders, told to whoever listens — in the store app, the webhooks' outbox — inside the unit of work
 * that makes it happen (`OrderStore.transaction`, the caller's transaction when there is one). A listener that
 * writes to the same database therefore commits or rolls back with the change itself: a rolled-back create tells
 * nothing, a committed one cannot be missed. By default nobody listens.
 *
 * `Orders` tells two things: an order was created (`POST /v1/orders`), and an order's status moved (PATCH or
 * cancel; a PATCH to the current status moves nothing). Which of them become webhook events is the listener's rule.
 */
import { Ids } from "@tawsil/domain"
import { Context, Effect, Schema } from "effect"
import { OrderStatus } from "./OrderStatus.ts"
import { OrderDetail } from "./OrderViews.ts"

/** An order was created; `order` as the API answered it. */
export class OrderCreated extends Schema.TaggedClass<OrderCreated>()("OrderCreated", {
  storeId: Ids.StoreId,
  order: OrderDetail
}) {}

/** An order's status moved from `from` to `order.status`; `order` as the API answered it. */
export class OrderStatusChanged extends Schema.TaggedClass<OrderStatusChanged>()("OrderStatusChanged", {
  storeId: Ids.StoreId,
  from: OrderStatus,
  order: OrderDetail
}) {}

export type OrderEvent = OrderCreated | OrderStatusChanged

export interface Listener {
  /** Records `event` in the current unit of work; a failure is a defect that undoes the change with it. */
  readonly record: (event: OrderEvent) => Effect.Effect<void>
}

/** Who hears `Orders`' events: nobody unless a layer provides a listener (`Layer.succeed(OrderEvents, …)`). */
export const OrderEvents = Context.Reference<Listener>("@tawsil/orders/OrderEvents", {
  defaultValue: () => ({ record: () => Effect.void })
})
