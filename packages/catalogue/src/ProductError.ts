/**
 * Why a `Products` operation failed: `ProductError`, whose `reason` carries the spec's message. Transport-agnostic:
 * an API decides which status each reason gets.
 */
import { Schema } from "effect"

/** The body breaks a rule of `ProductCreateBody` / `ProductUpdateBody` (the first one found, with its field). */
export class InvalidProduct extends Schema.TaggedError<InvalidProduct>()("InvalidProduct", {
  message: Schema.String
}) {}

/** No product with that id in the store (or a deleted one). */
export class ProductNotFound extends Schema.TaggedError<ProductNotFound>()("ProductNotFound", {
  message: Schema.String
}) {}

export const ProductErrorReason = Schema.Union([InvalidProduct, ProductNotFound])
export type ProductErrorReason = typeof ProductErrorReason.Type

export class ProductError extends Schema.TaggedError<ProductError>()("ProductError", { reason: ProductErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: ProductErrorReason) => new ProductError({ reason })
