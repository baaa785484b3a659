/**
 * The store API's order pricing (spec "Pricing rules"), as pure functions over exact amounts. A line is priced from
 * the catalogue, not from what the caller sent: the product's current price, and for every chosen
 * (group_name, option_name) pair the product has, the catalogue's adjustment; a pair the catalogue does not know
 * keeps the sent adjustment. subtotal = Σ quantity × (price + Σ adjustments); total = subtotal + shipping_cost −
 * discount + payment_fee, clamped to 0. Nothing is rounded: amounts keep the precision they arrived with.
 */
import { StoreAmount } from "@tawsil/domain"
import { BigDecimal, Schema } from "effect"

// ---------------------------------------------------------------------------------------------------------------
// Bounds: the largest order priced, and what its amounts can reach.

/** Lines of an order (spec "Limits": 1 to 50). */
export const MAX_LINES = 50
/** A line's quantity (spec "Limits": 1 to 9999). */
export const MAX_QUANTITY = 9999
/** Variants of a line: one per variant group of the product, which has at most 20 (the catalogue's bound). */
export const MAX_VARIANTS_PER_LINE = 20

/**
 * What |subtotal| and total can reach when the order stays within the bounds above and every amount (price,
 * adjustment, shipping cost, discount, fee) within ±`StoreAmount.MAXIMUM`: 50 lines × 9 999 × (price + 20
 * adjustments) + shipping cost + fee = 1 049 895 200 000 000 DZD. Below 2^53, so every computed amount is a finite
 * JSON number, exact to the dinar (the test proves it at the maxima).
 */
export const MAX_TOTAL: StoreAmount.StoreAmount = StoreAmount.times(
  StoreAmount.MAXIMUM,
  MAX_LINES * MAX_QUANTITY * (1 + MAX_VARIANTS_PER_LINE) + 2
)

/** A variant option of a catalogue product, with the adjustment it adds to the product's price. */
export const CatalogueOption = Schema.Struct({
  group_name: Schema.String,
  option_name: Schema.String,
  price_adjustment: StoreAmount.StoreAmount
})
export type CatalogueOption = typeof CatalogueOption.Type

/** A product as the catalogue prices it now: its price and every option of every variant group. */
export const CatalogueProduct = Schema.Struct({
  price: StoreAmount.StoreAmount,
  options: Schema.Array(CatalogueOption)
})
export type CatalogueProduct = typeof CatalogueProduct.Type

/** A variant as the caller chose it; its names and colour are kept as sent. */
export const ChosenVariant = Schema.Struct({
  group_name: Schema.String,
  option_name: Schema.String,
  color_code: Schema.NullOr(Schema.String),
  price_adjustment: StoreAmount.StoreAmount
})
export type ChosenVariant = typeof ChosenVariant.Type

/** A line to price: the catalogue's product, the quantity (an integer), the variants chosen. */
export interface Line {
  readonly product: CatalogueProduct
  readonly quantity: number
  readonly variants: ReadonlyArray<ChosenVariant>
}

export interface Input {
  readonly lines: ReadonlyArray<Line>
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
}

/** A priced line: the unit price from the catalogue and the variants with the adjustments that were applied. */
export interface PricedLine {
  readonly price: StoreAmount.StoreAmount
  readonly quantity: number
  readonly variants: ReadonlyArray<ChosenVariant>
}

export interface PricedOrder {
  readonly lines: ReadonlyArray<PricedLine>
  readonly subtotal: StoreAmount.StoreAmount
  readonly total: StoreAmount.StoreAmount
}

// Group and option names may hold any character, so the key separates them with one no name can contain unescaped.
const keyOf = (group: string, option: string) => JSON.stringify([group, option])

/** The chosen variants with the catalogue's adjustment wherever the product has the (group, option) pair. */
export const applyCatalogue = (
  product: CatalogueProduct,
  variants: ReadonlyArray<ChosenVariant>
): ReadonlyArray<ChosenVariant> => {
  if (variants.length === 0) return variants
  const catalogue = new Map(product.options.map((o) => [keyOf(o.group_name, o.option_name), o.price_adjustment]))
  return variants.map((variant) => {
    const adjustment = catalogue.get(keyOf(variant.group_name, variant.option_name))
    return adjustment === undefined ? variant : { ...variant, price_adjustment: adjustment }
  })
}

/** One line: the catalogue price and adjustments. */
export const priceLine = (line: Line): PricedLine => ({
  price: line.product.price,
  quantity: line.quantity,
  variants: applyCatalogue(line.product, line.variants)
})

/** quantity × (price + Σ adjustments) of a priced line. */
export const lineTotal = (line: PricedLine): StoreAmount.StoreAmount =>
  StoreAmount.times(StoreAmount.sum([line.price, ...line.variants.map((v) => v.price_adjustment)]), line.quantity)

/** subtotal + shipping_cost − discount + payment_fee, never below 0. */
export const totalOf = (amounts: {
  readonly subtotal: StoreAmount.StoreAmount
  readonly shipping_cost: StoreAmount.StoreAmount
  readonly discount: StoreAmount.StoreAmount
  readonly payment_fee: StoreAmount.StoreAmount
}): StoreAmount.StoreAmount =>
  StoreAmount.clampAtZero(
    StoreAmount.subtract(
      StoreAmount.sum([amounts.subtotal, amounts.shipping_cost, amounts.payment_fee]),
      amounts.discount
    )
  )

/**
 * Whether a priced order's amounts are within `MAX_TOTAL`: always, for an order within the bounds; a product priced
 * before the maximum existed could break them, and such an order is refused rather than answered as `Infinity`.
 */
export const isWithinBounds = (order: Pick<PricedOrder, "subtotal" | "total">): boolean =>
  BigDecimal.isLessThanOrEqualTo(BigDecimal.abs(order.subtotal), MAX_TOTAL) &&
  BigDecimal.isLessThanOrEqualTo(order.total, MAX_TOTAL)

/** Prices an order. Throws a `RangeError` when a quantity is not an integer (the order body only lets integers in). */
export const priceOrder = (input: Input): PricedOrder => {
  const lines = input.lines.map(priceLine)
  const subtotal = StoreAmount.sum(lines.map(lineTotal))
  return { lines, subtotal, total: totalOf({ ...input, subtotal }) }
}
