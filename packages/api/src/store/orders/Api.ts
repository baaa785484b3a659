/** Create, list, read and move orders (spec store-api-core "Order create body", "Order status"). */
import { ConfirmationViews, OrderCreate, OrderError, OrderStatus, OrderViews } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/**
 * The spec answers every refused order write with 400 (a transition, a concurrent change, the monthly cap too). The
 * shipment reasons never reach these endpoints (`../shipments/Api.ts` answers them); here they keep to the codes
 * these endpoints declare.
 */
export const reasons = Reasons.of(OrderError.OrderErrorReason, {
  InvalidOrder: "bad_request",
  InvalidStatusChange: "bad_request",
  IllegalTransition: "bad_request",
  ConcurrentChange: "bad_request",
  MonthlyCapReached: "bad_request",
  OrderNotFound: "not_found",
  CustomerNotFound: "not_found",
  NotShippable: "bad_request",
  ShipmentExists: "bad_request",
  NoShipment: "not_found",
  AlreadyDispatched: "bad_request"
})

/**
 * The reads' mapping (orders and customers): the same, with the create's ban refusal (`customer_banned`, 422,
 * docs/risk.md) kept to the codes a read declares; no read raises it.
 */
export const readReasons = Reasons.of(OrderError.OrderErrorReason, { ...reasons.codes, CustomerBanned: "bad_request" })

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
        customer_phone: Schema.optionalKey(Schema.String),
        /** Orders whose parcel this courier carries (a key of `GET /v1/couriers` of the shipping API). */
        courier: Schema.optionalKey(Schema.String),
        /** Orders whose parcel is in this canonical status (`delivered`, `in_transit`…); an unknown one is ignored. */
        shipment_status: Schema.optionalKey(Schema.String)
      },
      success: ListOf(OrderViews.OrderSummary),
      error: reads
    }),
    /** The order detail, with its confirmation (`confirmation`, docs/confirmation.md) after the order's fields. */
    HttpApiEndpoint.get("getOrder", "/v1/orders/:id", {
      params: Id,
      success: Data(ConfirmationViews.OrderWithConfirmation),
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
