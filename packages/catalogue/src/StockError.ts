/**
 * Why an `Inventory` operation failed: `StockError`, whose `reason` carries the message. Transport-agnostic: an API
 * decides which status each reason gets.
 */
import { Schema } from "effect"
import { ProductNotFound } from "./ProductError.ts"

/** The body breaks a rule of `StockBody`, names an option the product does not have, or adjusts untracked stock. */
export class InvalidStock extends Schema.TaggedError<InvalidStock>()("InvalidStock", {
  message: Schema.String
}) {}

/** `ProductNotFound` (the products' own reason): no such product in the store, or a deleted one. */
export const StockErrorReason = Schema.Union([InvalidStock, ProductNotFound])
export type StockErrorReason = typeof StockErrorReason.Type

export class StockError extends Schema.TaggedError<StockError>()("StockError", { reason: StockErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: StockErrorReason) => new StockError({ reason })
