/**
 * A product's stock (docs/store-api-config.md, "Stock"): its own quantity and each option's, read and set absolutely
 * or by a difference. Recorded as `stock`; orders keep committing and restoring stock as they do.
 */
import { Stock, StockError } from "@tawsil/catalogue"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

export const reasons = Reasons.of(StockError.StockErrorReason, {
  InvalidStock: "bad_request",
  ProductNotFound: "not_found"
})

const { Data, Id } = Endpoint

export class StockGroup extends HttpApiGroup.make("stock")
  .add(
    /** Not cached: what the stock is now. */
    HttpApiEndpoint.get("getStock", "/v1/products/:id/stock", {
      params: Id,
      success: Data(Stock.ProductStock),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, "products:read"),
    /**
     * Sets quantities: `stock` or `adjust` for the product, and `variants` (each option by `option_id`, or by
     * `group_name` and `option_name`) with its own `stock` or `adjust`. Answers the product's stock after the write.
     */
    Endpoint.post("setStock", "/v1/products/:id/stock", {
      params: Id,
      payload: Stock.StockBody,
      success: Data(Stock.ProductStock),
      error: [...Errors.writes, ...reasons.classes],
      scope: "products:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "stock",
      description:
        "A product's stock: its own quantity and each option's, set absolutely or by a difference. Recorded as stock."
    })
  ) {}
