/**
 * Why an `Orders` operation failed: one error, `OrderError`, whose `reason` says what went wrong and whose message is
 * the spec's sentence for it. Transport-agnostic: an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** The create body breaks a rule (spec "Order create body"), in the spec's order of precedence. */
export class InvalidOrder extends Schema.TaggedError<InvalidOrder>()("InvalidOrder", { message: Schema.String }) {}

/** The status change body is missing its status or names no status. */
export class InvalidStatusChange extends Schema.TaggedError<InvalidStatusChange>()("InvalidStatusChange", {
  message: Schema.String
}) {}

/** The state machine forbids the move (`pending → delivered`, a cancel from `shipped`). */
export class IllegalTransition extends Schema.TaggedError<IllegalTransition>()("IllegalTransition", {
  message: Schema.String
}) {}

/** Another write moved the order between our read and our write; a retry reads it again. */
export class ConcurrentChange extends Schema.TaggedError<ConcurrentChange>()("ConcurrentChange", {
  message: Schema.String
}) {}

/** The store's plan caps its orders per month and the month's are used up. */
export class MonthlyCapReached extends Schema.TaggedError<MonthlyCapReached>()("MonthlyCapReached", {
  message: Schema.String
}) {}

/** No order with that id in the store. */
export class OrderNotFound extends Schema.TaggedError<OrderNotFound>()("OrderNotFound", { message: Schema.String }) {}

/** No customer with that id in the store. */
export class CustomerNotFound extends Schema.TaggedError<CustomerNotFound>()("CustomerNotFound", {
  message: Schema.String
}) {}

/** A shipment asked of an order that is not `confirmed` or `processing`. */
export class NotShippable extends Schema.TaggedError<NotShippable>()("NotShippable", { message: Schema.String }) {}

/** The order has a shipment already (one parcel per order; a cancelled order is final). */
export class ShipmentExists extends Schema.TaggedError<ShipmentExists>()("ShipmentExists", {
  message: Schema.String
}) {}

/** A shipment operation (label, cancel, dispatch) on an order that has none. */
export class NoShipment extends Schema.TaggedError<NoShipment>()("NoShipment", { message: Schema.String }) {}

/** A dispatch of a shipment that was dispatched already. */
export class AlreadyDispatched extends Schema.TaggedError<AlreadyDispatched>()("AlreadyDispatched", {
  message: Schema.String
}) {}

/** The customer's phone is banned and the store refuses its orders (docs/risk.md). */
export class CustomerBanned extends Schema.TaggedError<CustomerBanned>()("CustomerBanned", {
  message: Schema.String
}) {}

export const OrderErrorReason = Schema.Union([
  InvalidOrder,
  InvalidStatusChange,
  IllegalTransition,
  ConcurrentChange,
  MonthlyCapReached,
  OrderNotFound,
  CustomerNotFound,
  NotShippable,
  ShipmentExists,
  NoShipment,
  AlreadyDispatched,
  CustomerBanned
])
export type OrderErrorReason = typeof OrderErrorReason.Type

export class OrderError extends Schema.TaggedError<OrderError>()("OrderError", { reason: OrderErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

/** `new OrderError({ reason })`, for the places that raise one. */
export const fail = (reason: OrderErrorReason) => new OrderError({ reason })
