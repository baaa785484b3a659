/** The catalogue orders are priced from (spec store-api-core "Product variant model"); the list is cached 30 s. */
import { Product, ProductError } from "@tawsil/catalogue"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

export const reasons = Reasons.of(ProductError.ProductErrorReason, {
  InvalidProduct: "bad_request",
  ProductNotFound: "not_found"
})

const { Data, Id, ListOf, listQuery } = Endpoint
const { reads, writes } = Errors

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("listProducts", "/v1/products", {
      query: {
        ...listQuery,
        status: Schema.optionalKey(Schema.String),
        /** Only products in this category (`GET /v1/categories`); a value not all digits is ignored. */
        category_id: Schema.optionalKey(Schema.String)
      },
      success: ListOf(Product.ProductSummary),
      error: reads
    }).annotate(Endpoint.ReadCached, true),
    HttpApiEndpoint.get("getProduct", "/v1/products/:id", { params: Id, success: Data(Product.Product), error: reads }),
    Endpoint.post("createProduct", "/v1/products", {
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes,
      scope: "products:write"
    }),
    Endpoint.patch("updateProduct", "/v1/products/:id", {
      params: Id,
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes,
      scope: "products:write"
    }),
    Endpoint.del("deleteProduct", "/v1/products/:id", {
      params: Id,
      success: Data(Product.ProductDeleted),
      error: writes,
      scope: "products:write"
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({ title: "products", description: "The catalogue orders are priced from (list cached 30 s)." })
  ) {}
