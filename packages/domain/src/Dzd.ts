/**
 * Money on the shipping service: a whole number of Algerian dinars (DZD), never negative (`codAmount`).
 */
import { Schema } from "effect"
import { integer } from "./internal/integer.ts"

export const Dzd = integer({ minimum: 0 }, "Expected an amount in DZD, a non-negative integer").pipe(
  Schema.brand("Dzd")
)
export type Dzd = typeof Dzd.Type
