/** The store's customers, matched by phone (spec store-api-core "Customer"); refusals as orders answer them. */
import { OrderViews } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"

const { Data, Id, ListOf, listQuery } = Endpoint
const { reads } = Errors

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("listCustomers", "/v1/customers", {
      query: { ...listQuery, phone: Schema.optionalKey(Schema.String), email: Schema.optionalKey(Schema.String) },
      success: ListOf(OrderViews.CustomerSummary),
      error: reads
    }),
    HttpApiEndpoint.get("getCustomer", "/v1/customers/:id", {
      params: Id,
      success: Data(OrderViews.CustomerDetail),
      error: reads
    }),
    HttpApiEndpoint.get("customerOrders", "/v1/customers/:id/orders", {
      params: Id,
      query: listQuery,
      success: ListOf(OrderViews.CustomerOrder),
      error: reads
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({ title: "customers", description: "The store's customers, matched by phone." })
  ) {}
