/**
 * Ids of the store API, each a positive integer under its own brand so one cannot be passed for another, and
 * the request id we echo from a caller's `X-Request-Id`.
 */
import { Schema } from "effect"
import { integer } from "./internal/integer.ts"

const Id = integer({ minimum: 1 }, "Expected an id, a positive integer")

export const StoreId = Id.pipe(Schema.brand("StoreId"))
export type StoreId = typeof StoreId.Type

export const OrderId = Id.pipe(Schema.brand("OrderId"))
export type OrderId = typeof OrderId.Type

export const CustomerId = Id.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type

export const ProductId = Id.pipe(Schema.brand("ProductId"))
export type ProductId = typeof ProductId.Type

export const LandingPageId = Id.pipe(Schema.brand("LandingPageId"))
export type LandingPageId = typeof LandingPageId.Type

/** 1 to 128 characters a log line and a header can carry unescaped. */
export const RequestId = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9._:-]{1,128}$/, {
    message: "Expected a request id, 1 to 128 characters among letters, digits and . _ : -"
  })
).pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
