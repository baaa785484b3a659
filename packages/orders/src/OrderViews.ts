/**
 * The JSON the store API answers with for orders and customers (spec "Order summary", "Order detail", "Customer"),
 * as schemas (for the OpenAPI document) and as the functions that render stored records into them. Values are
 * plain JSON: amounts are numbers, except a variant's `price_adjustment`, a decimal string ("150.00");
 * `created_at`/`updated_at` are `YYYY-MM-DD HH:MM:SS` in Algiers time. `notes` of an order is never shown.
 */
import { AlgiersTime, StoreAmount } from "@tawsil/domain"
import { Schema } from "effect"
import * as FraudScore from "./FraudScore.ts"
import { DeliveryType, PaymentMethod } from "./OrderCreate.ts"
import * as OrderShipment from "./OrderShipment.ts"
import { OrderStatus } from "./OrderStatus.ts"
import { type CustomerRecord, type OrderRecord, type OrderSummaryRecord, PaymentStatus } from "./OrderStore.ts"

const Id = Schema.Int
const Amount = Schema.Number.annotate({ description: "An exact decimal amount, as a JSON number" })
const Timestamp = Schema.String.annotate({ description: "YYYY-MM-DD HH:MM:SS, Algiers time (UTC+01:00)" })

export const OrderSummary = Schema.Struct({
  id: Id,
  order_number: Schema.String,
  status: OrderStatus,
  payment_status: PaymentStatus,
  payment_method: PaymentMethod,
  total: Amount,
  customer_name: Schema.String,
  customer_phone: Schema.String,
  wilaya_id: Schema.Int,
  commune: Schema.String,
  delivery_type: DeliveryType,
  created_at: Timestamp,
  /** Who carries the order's parcel and where it is; null until it is shipped (docs/cod-loop.md). */
  shipment: Schema.NullOr(OrderShipment.Summary)
}).annotate({ identifier: "OrderSummary" })
export type OrderSummary = typeof OrderSummary.Type

export const OrderVariant = Schema.Struct({
  order_item_id: Id,
  group_name: Schema.String,
  option_name: Schema.String,
  color_code: Schema.NullOr(Schema.String),
  price_adjustment: Schema.String.annotate({ description: 'An exact decimal amount as a string, such as "150.00"' })
})

export const OrderItem = Schema.Struct({
  id: Id,
  product_id: Id,
  price: Amount,
  quantity: Schema.Int,
  variants: Schema.Array(OrderVariant)
})

export const OrderDetail = Schema.Struct({
  id: Id,
  order_number: Schema.String,
  status: OrderStatus,
  payment_status: PaymentStatus,
  payment_method: PaymentMethod,
  customer: Schema.Struct({
    id: Id,
    name: Schema.String,
    phone: Schema.String,
    email: Schema.NullOr(Schema.String),
    wilaya_id: Schema.Int,
    commune: Schema.String,
    address: Schema.String
  }),
  delivery: Schema.Struct({
    type: DeliveryType,
    desk_id: Schema.NullOr(Schema.Int),
    desk_name: Schema.NullOr(Schema.String)
  }),
  amounts: Schema.Struct({
    subtotal: Amount,
    shipping_cost: Amount,
    discount: Amount,
    payment_fee: Amount,
    total: Amount
  }),
  items: Schema.Array(OrderItem),
  /** The order's parcel with its timeline; null until it is shipped (docs/cod-loop.md). */
  shipment: Schema.NullOr(OrderShipment.View),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "OrderDetail" })
export type OrderDetail = typeof OrderDetail.Type

/** An order as `GET /v1/customers/{id}/orders` lists it. */
export const CustomerOrder = Schema.Struct({
  id: Id,
  order_number: Schema.String,
  status: OrderStatus,
  payment_status: PaymentStatus,
  total: Amount,
  created_at: Timestamp
}).annotate({ identifier: "CustomerOrder" })
export type CustomerOrder = typeof CustomerOrder.Type

export const CustomerSummary = Schema.Struct({
  id: Id,
  first_name: Schema.String,
  last_name: Schema.String,
  phone: Schema.String,
  email: Schema.NullOr(Schema.String),
  wilaya_id: Schema.Int,
  commune: Schema.String,
  total_orders: Schema.Int,
  total_spent: Amount,
  is_banned: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotate({ identifier: "CustomerSummary" })
export type CustomerSummary = typeof CustomerSummary.Type

/** The customer detail: the spec's field list, which has no email (the list item has it). */
export const CustomerDetail = Schema.Struct({
  id: Id,
  first_name: Schema.String,
  last_name: Schema.String,
  phone: Schema.String,
  wilaya_id: Schema.Int,
  commune: Schema.String,
  address: Schema.String,
  notes: Schema.NullOr(Schema.String),
  total_orders: Schema.Int,
  total_spent: Amount,
  /** The return risk, 0 to 100 (docs/risk.md): `fraud_factors` says what made it. */
  fraud_score: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  is_banned: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp,
  /** `safe`, `low`, `medium`, `high` or `critical`, by `fraud_score` (docs/risk.md). */
  fraud_level: FraudScore.Level,
  /** Every factor of the score, with the count it read and the points it added. */
  fraud_factors: Schema.Array(FraudScore.Factor)
}).annotate({ identifier: "CustomerDetail" })
export type CustomerDetail = typeof CustomerDetail.Type

const amount = StoreAmount.toJsonNumber
const time = AlgiersTime.formatSql

export const orderSummary = (order: OrderSummaryRecord): OrderSummary => ({
  id: order.id,
  order_number: order.order_number,
  status: order.status,
  payment_status: order.payment_status,
  payment_method: order.payment_method,
  total: amount(order.total),
  customer_name: order.customer_name,
  customer_phone: order.customer_phone,
  wilaya_id: order.wilaya_id,
  commune: order.commune,
  delivery_type: order.delivery_type,
  created_at: time(order.created_at),
  shipment: order.shipment
})

export const orderDetail = (order: OrderRecord): OrderDetail => ({
  id: order.id,
  order_number: order.order_number,
  status: order.status,
  payment_status: order.payment_status,
  payment_method: order.payment_method,
  customer: {
    id: order.customer_id,
    name: order.customer_name,
    phone: order.customer_phone,
    email: order.customer_email,
    wilaya_id: order.wilaya_id,
    commune: order.commune,
    address: order.address
  },
  delivery: { type: order.delivery_type, desk_id: order.desk_id, desk_name: order.desk_name },
  amounts: {
    subtotal: amount(order.subtotal),
    shipping_cost: amount(order.shipping_cost),
    discount: amount(order.discount),
    payment_fee: amount(order.payment_fee),
    total: amount(order.total)
  },
  items: order.items.map((item) => ({
    id: item.id,
    product_id: item.product_id,
    price: amount(item.price),
    quantity: item.quantity,
    variants: item.variants.map((variant) => ({
      order_item_id: item.id,
      group_name: variant.group_name,
      option_name: variant.option_name,
      color_code: variant.color_code,
      price_adjustment: StoreAmount.format(variant.price_adjustment)
    }))
  })),
  shipment: order.shipment === null ? null : OrderShipment.view(order.id, order.shipment),
  created_at: time(order.created_at),
  updated_at: time(order.updated_at)
})

export const customerOrder = (order: OrderSummaryRecord): CustomerOrder => ({
  id: order.id,
  order_number: order.order_number,
  status: order.status,
  payment_status: order.payment_status,
  total: amount(order.total),
  created_at: time(order.created_at)
})

export const customerSummary = (customer: CustomerRecord): CustomerSummary => ({
  id: customer.id,
  first_name: customer.first_name,
  last_name: customer.last_name,
  phone: customer.phone,
  email: customer.email,
  wilaya_id: customer.wilaya_id,
  commune: customer.commune,
  total_orders: customer.total_orders,
  total_spent: amount(customer.total_spent),
  is_banned: customer.is_banned,
  created_at: time(customer.created_at),
  updated_at: time(customer.updated_at)
})

export const customerDetail = (customer: CustomerRecord, risk: FraudScore.Score = FraudScore.none): CustomerDetail => ({
  id: customer.id,
  first_name: customer.first_name,
  last_name: customer.last_name,
  phone: customer.phone,
  wilaya_id: customer.wilaya_id,
  commune: customer.commune,
  address: customer.address,
  notes: customer.notes,
  total_orders: customer.total_orders,
  total_spent: amount(customer.total_spent),
  fraud_score: risk.score,
  is_banned: customer.is_banned,
  created_at: time(customer.created_at),
  updated_at: time(customer.updated_at),
  fraud_level: risk.level,
  fraud_factors: risk.factors
})
