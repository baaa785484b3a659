/**
 * A product's stock as the store API shows and sets it (`GET` and `POST /v1/products/{id}/stock`), and the form the
 * change history records it in (entity `stock`, entity id the product's id).
 *
 * A product has its own quantity (`stock`) and, where its variant groups track it, one per option (the spec's
 * variant model: "options[] … stock (when per-variant stock is enabled)"); null means not tracked. The body sets
 * quantities absolutely (`stock`) or by a difference (`adjust`, for a count made while orders keep arriving), for the
 * product and for options named by id or by group and option name, as orders name them. Pure: what a body comes to
 * against the current stock is `plan`, tested without a store.
 */
import { BodyFields, Ids } from "@tawsil/domain"
import { Schema } from "effect"
import { integer, nullable, text } from "./internal/fields.ts"
import type { Product } from "./Product.ts"

/** The most option entries one write may name: every option of the largest product. */
export const MAX_VARIANTS = 2000

// ---------------------------------------------------------------------------------------------------------------
// Shapes

/** One option's stock, with the names orders use for it. */
export class VariantStock extends Schema.Class<VariantStock>("VariantStock")({
  option_id: Schema.Int,
  group_name: Schema.String,
  option_name: Schema.String,
  /** Null when not tracked. */
  stock: Schema.NullOr(Schema.Int)
}) {}

/** `GET /v1/products/{id}/stock` and the answer of a write: the product's quantity and each option's, in order. */
export class ProductStock extends Schema.Class<ProductStock>("ProductStock")({
  product_id: Ids.ProductId,
  /** Null when not tracked. */
  stock: Schema.NullOr(Schema.Int),
  variants: Schema.Array(VariantStock)
}) {}

/** A product's stock as `GET /v1/products/{id}/stock` shows it: its options in group and option order. */
export const of = (product: Product): ProductStock =>
  new ProductStock({
    product_id: product.id,
    stock: product.stock,
    variants: product.variant_groups.flatMap((group) =>
      group.options.map(
        (option) =>
          new VariantStock({
            option_id: option.id,
            group_name: group.name,
            option_name: option.value,
            stock: option.stock
          })
      )
    )
  })

/**
 * The values a `stock` change records: the quantities it changed, before or after. `stock` is present only when the
 * product's own quantity changed; `variants` holds only the options whose quantity changed. An undo records the
 * quantities it set (`touched`), before and after.
 */
export const StockValues = Schema.Struct({
  product_id: Ids.ProductId,
  stock: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  variants: Schema.Array(VariantStock)
}).annotate({ identifier: "StockValues" })
export type StockValues = typeof StockValues.Type

// ---------------------------------------------------------------------------------------------------------------
// Body

const quantityMessage = `must be null or an integer from 0 to ${Ids.MAX_ID}`
const adjustMessage = `must be an integer from -${Ids.MAX_ID} to ${Ids.MAX_ID}`
const variantsMessage = `must be an array of at most ${MAX_VARIANTS} options`

const quantity = nullable(integer(0, Ids.MAX_ID, quantityMessage), quantityMessage)
const adjust = integer(-Ids.MAX_ID, Ids.MAX_ID, adjustMessage)

const exclusive = Schema.makeFilter((entry: { readonly stock?: unknown; readonly adjust?: unknown }) =>
  entry.stock !== undefined && entry.adjust !== undefined
    ? { path: ["adjust"], issue: "cannot be sent with stock: send one or the other" }
    : undefined
)

const VariantBody = Schema.Struct({
  option_id: Schema.optionalKey(integer(1, Ids.MAX_ID, "must be an option id (a positive integer)")),
  group_name: Schema.optionalKey(text(1, 100, "must be a string of 1-100 chars")),
  option_name: Schema.optionalKey(text(1, 255, "must be a string of 1-255 chars")),
  stock: Schema.optionalKey(quantity),
  adjust: Schema.optionalKey(adjust)
})
  .annotate({ identifier: "VariantStockBody", message: "must be an object" })
  .check(
    Schema.makeFilter((entry) => {
      const byId = entry.option_id !== undefined
      const byName = entry.group_name !== undefined || entry.option_name !== undefined
      if (byId && byName) return { path: ["option_id"], issue: "names the option: send option_id or the names" }
      if (!byId && (entry.group_name === undefined || entry.option_name === undefined)) {
        return "must name an option: option_id, or group_name and option_name"
      }
      if (entry.stock === undefined && entry.adjust === undefined) return "must set stock or adjust"
      return undefined
    }),
    exclusive
  )

/**
 * `POST /v1/products/{id}/stock`: `stock` (the product's quantity; null stops tracking it) or `adjust` (added to it,
 * tracked quantities only; the result stops at 0), and `variants`, each naming an option by `option_id` or by
 * `group_name` and `option_name` with its own `stock` or `adjust`. At least one of the three; each option once.
 */
export const StockBody = Schema.Struct({
  stock: Schema.optionalKey(quantity),
  adjust: Schema.optionalKey(adjust),
  variants: Schema.optionalKey(
    Schema.Array(VariantBody)
      .annotate({ message: variantsMessage })
      .check(Schema.isMaxLength(MAX_VARIANTS, { message: variantsMessage }))
  )
})
  .annotate({ identifier: "StockBody", ...BodyFields.objectMessage })
  .check(
    exclusive,
    Schema.makeFilter((body) =>
      body.stock === undefined && body.adjust === undefined && (body.variants ?? []).length === 0
        ? "Body must set stock, adjust or variants"
        : undefined
    )
  )
export type StockBody = typeof StockBody.Type

// ---------------------------------------------------------------------------------------------------------------
// What a body comes to

/** The quantities a write sets: the product's when present, and options' by id. */
export interface StockWrite {
  readonly stock?: number | null
  readonly options: ReadonlyArray<{ readonly id: number; readonly stock: number | null }>
}

/** A body applied to the current stock: what to write and what the change records, or why it cannot be. */
export type Plan =
  | {
      readonly _tag: "Write"
      readonly write: StockWrite
      readonly before: StockValues
      readonly after: StockValues
    }
  | { readonly _tag: "Invalid"; readonly message: string }

type Applied = { readonly ok: true; readonly value: number | null } | { readonly ok: false; readonly message: string }

const applied = (
  current: number | null,
  set: { readonly stock?: number | null; readonly adjust?: number },
  at: string
): Applied => {
  if (set.stock !== undefined) return { ok: true, value: set.stock }
  if (current === null) return { ok: false, message: `${at}adjust needs a tracked quantity: set stock first` }
  const next = current + (set.adjust ?? 0)
  if (next > Ids.MAX_ID) return { ok: false, message: `${at}adjust would take the quantity above ${Ids.MAX_ID}` }
  // As an order's commit does, a decrement stops at 0.
  return { ok: true, value: Math.max(0, next) }
}

/**
 * What `body` does to `current`: each named option found (by id, else by group and option name), each once; the
 * quantities that change, before and after. Nothing changed is a write of nothing.
 */
export const plan = (current: ProductStock, body: StockBody): Plan => {
  const before: { stock?: number | null; variants: Array<VariantStock> } = { variants: [] }
  const after: { stock?: number | null; variants: Array<VariantStock> } = { variants: [] }
  const write: { stock?: number | null; options: Array<{ id: number; stock: number | null }> } = { options: [] }
  if (body.stock !== undefined || body.adjust !== undefined) {
    const result = applied(current.stock, body, "")
    if (!result.ok) return { _tag: "Invalid", message: result.message }
    if (result.value !== current.stock) {
      before.stock = current.stock
      after.stock = result.value
      write.stock = result.value
    }
  }
  const seen = new Map<number, number>()
  for (const [index, entry] of (body.variants ?? []).entries()) {
    const at = `variants[${index}].`
    const option = current.variants.find((variant) =>
      entry.option_id !== undefined
        ? variant.option_id === entry.option_id
        : variant.group_name === entry.group_name && variant.option_name === entry.option_name
    )
    if (option === undefined) return { _tag: "Invalid", message: `variants[${index}] names no option of this product` }
    const earlier = seen.get(option.option_id)
    if (earlier !== undefined) {
      return { _tag: "Invalid", message: `variants[${index}] names the same option as variants[${earlier}]` }
    }
    seen.set(option.option_id, index)
    const result = applied(option.stock, entry, at)
    if (!result.ok) return { _tag: "Invalid", message: result.message }
    if (result.value !== option.stock) {
      before.variants.push(option)
      after.variants.push(new VariantStock({ ...option, stock: result.value }))
      write.options.push({ id: option.option_id, stock: result.value })
    }
  }
  return {
    _tag: "Write",
    write,
    before: { product_id: current.product_id, ...before },
    after: { product_id: current.product_id, ...after }
  }
}

/** How `stock` changes lay out their values: the product and its list of options, always. */
export const LAYOUT = { kept: ["product_id", "variants"] }

/** Whether a plan writes anything. */
export const writesNothing = (write: StockWrite) => write.stock === undefined && write.options.length === 0

/**
 * What an undo writes back: each recorded quantity onto the product as it is now — an option by its id, else (the
 * product's variant groups were replaced since) by its group and option name; an option gone since is skipped.
 */
export const restore = (current: Pick<ProductStock, "variants">, values: StockValues): StockWrite => ({
  ...(values.stock === undefined ? {} : { stock: values.stock }),
  options: values.variants.flatMap((recorded) => {
    const option = optionOf(current, recorded)
    return option === undefined ? [] : [{ id: option.option_id, stock: recorded.stock }]
  })
})

/** The product's option a recorded one names now: by its id, else by its group and option name. */
const optionOf = (current: Pick<ProductStock, "variants">, recorded: VariantStock) =>
  current.variants.find((variant) => variant.option_id === recorded.option_id) ??
  current.variants.find(
    (variant) => variant.group_name === recorded.group_name && variant.option_name === recorded.option_name
  )

/**
 * Of the product's stock now, the quantities an undo writing `values` sets (`restore`'s): what it records of the
 * stock before it wrote, and after.
 */
export const touched = (current: StockValues, values: StockValues): StockValues => ({
  product_id: current.product_id,
  ...(values.stock === undefined || current.stock === undefined ? {} : { stock: current.stock }),
  variants: values.variants.flatMap((recorded) => {
    const option = optionOf(current, recorded)
    return option === undefined ? [] : [option]
  })
})

/** The one-line summary of a change: the quantities it moved, the first few by name. */
export const summary = (before: StockValues, after: StockValues): string => {
  const show = (value: number | null | undefined) =>
    value === null || value === undefined ? "untracked" : String(value)
  const parts: Array<string> = []
  if (after.stock !== undefined) parts.push(`${show(before.stock)} → ${show(after.stock)}`)
  for (const [index, option] of after.variants.entries()) {
    parts.push(
      `${option.group_name} ${option.option_name} ${show(before.variants[index]?.stock)} → ${show(option.stock)}`
    )
  }
  const shown = parts.slice(0, 5).join(", ")
  const more = parts.length > 5 ? ` and ${parts.length - 5} more` : ""
  return `Set stock of product #${after.product_id}: ${shown}${more}`
}
