/** Order pricing rules of the store API: catalogue prices and variant adjustments, subtotal and total, exact decimals. */
export * as Pricing from "./Pricing.ts"
