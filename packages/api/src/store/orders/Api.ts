/** Create, list, read and move orders (spec store-api-core "Order create body", "Order status"). */
import { OrderCreate, OrderError, OrderStatus, OrderViews } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** The spec answers every refused order write with 400 (a transition, a concurrent change, the monthly cap too). */
export const reasons = Reasons.of(OrderError.OrderErrorReason, {
  InvalidOrder: "bad_request",
  InvalidStatusChange: "bad_request",
  IllegalTransition: "bad_request",
  ConcurrentChange: "bad_request",
  MonthlyCapReached: "bad_request",
  OrderNotFound: "not_found",
  CustomerNotFound: "not_found"
})

const OrderStatusBody = Schema.Struct({ status: OrderStatus.OrderStatus }).annotate({ identifier: "OrderStatusChange" })

const { Data, Id, ListOf, listQuery } = Endpoint
const { reads, writes } = Errors

export class OrdersGroup extends HttpApiGroup.make("orders")
  .add(
    Endpoint.post("createOrder", "/v1/orders", {
      payload: OrderCreate.OrderCreateBody,
      success: Data(OrderViews.OrderDetail),
      error: writes,
      scope: "orders:write"
    }).annotate(Endpoint.CarriesClaim, true),
    HttpApiEndpoint.get("listOrders", "/v1/orders", {
      query: {
        ...listQuery,
        status: Schema.optionalKey(Schema.String),
        since: Schema.optionalKey(Schema.String),
        customer_phone: Schema.optionalKey(Schema.String)
      },
      success: ListOf(OrderViews.OrderSummary),
      error: reads
    }),
    HttpApiEndpoint.get("getOrder", "/v1/orders/:id", {
      params: Id,
      success: Data(OrderViews.OrderDetail),
      error: reads
    }),
    Endpoint.patch("updateOrderStatus", "/v1/orders/:id", {
      params: Id,
      payload: OrderStatusBody,
      success: Data(OrderViews.OrderDetail),
      error: writes,
      scope: "orders:write"
    }),
    Endpoint.post("cancelOrder", "/v1/orders/:id/cancel", {
      params: Id,
      success: Data(OrderViews.OrderDetail),
      error: writes,
      scope: "orders:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(OpenApi.annotations({ title: "orders", description: "Create, list, read and move orders." })) {}
