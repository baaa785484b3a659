/**
 * What happens to orders, told to whoever listens — in the store app, the webhooks' outbox — inside the unit of work
 * that makes it happen (`OrderStore.transaction`, the caller's transaction when there is one). A listener that
 * writes to the same database therefore commits or rolls back with the change itself: a rolled-back create tells
 * nothing, a committed one cannot be missed. By default nobody listens.
 *
 * `Orders` tells four things: an order was created (`POST /v1/orders`), an order's status moved (PATCH, cancel, or
 * its shipment; a PATCH to the current status moves nothing), an order's shipment changed status (docs/cod-loop.md),
 * and its cash on delivery was remitted (docs/cod-ledger.md).
 * Which of them become webhook events is the listener's rule.
 */

import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import type { Ids } from "@tawsil/domain"
import { Context, Data, Effect } from "effect"
import type { Payment } from "./OrderShipment.ts"
import type { OrderStatus } from "./OrderStatus.ts"
import type { OrderDetail } from "./OrderViews.ts"

// Plain data, not schema classes: an event is made from values `Orders` has just built and typed, and checking the
// whole order detail again on every create cost more than the event's own statement (issue 22).

/** An order was created; `order` as the API answered it. */
export class OrderCreated extends Data.TaggedClass("OrderCreated")<{
  readonly storeId: Ids.StoreId
  readonly order: OrderDetail
}> {}

/** An order's status moved from `from` to `order.status`; `order` as the API answered it. */
export class OrderStatusChanged extends Data.TaggedClass("OrderStatusChanged")<{
  readonly storeId: Ids.StoreId
  readonly from: OrderStatus
  readonly order: OrderDetail
}> {}

/**
 * An order's shipment changed its canonical status (or its cash status): `order` as it stands after the change,
 * its `shipment` holding the new status; `previous` the shipment's status before.
 */
export class ShipmentUpdated extends Data.TaggedClass("ShipmentUpdated")<{
  readonly storeId: Ids.StoreId
  readonly previous: CanonicalStatus | null
  readonly order: OrderDetail
}> {}

/**
 * An order's cash on delivery was remitted to the merchant (its shipment's COD status became `remitted`: a courier's
 * payment event, pushed or polled, or a line of an imported payout statement; docs/cod-ledger.md): `order` as it
 * stands after, `payment` what the source said of the money (the amount paid, the courier's fee, the statement).
 */
export class PaymentReceived extends Data.TaggedClass("PaymentReceived")<{
  readonly storeId: Ids.StoreId
  readonly order: OrderDetail
  readonly payment: Payment | undefined
}> {}

export type OrderEvent = OrderCreated | OrderStatusChanged | ShipmentUpdated | PaymentReceived

export interface Listener {
  /** Records `event` in the current unit of work; a failure is a defect that undoes the change with it. */
  readonly record: (event: OrderEvent) => Effect.Effect<void>
}

/** Who hears `Orders`' events: nobody unless a layer provides a listener (`Layer.succeed(OrderEvents, …)`). */
export const OrderEvents = Context.Reference<Listener>("@tawsil/orders/OrderEvents", {
  defaultValue: () => ({ record: () => Effect.void })
})
