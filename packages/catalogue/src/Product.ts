/**
 * A product of the store's catalogue as the store API shows it, and the bodies that create and change one.
 *
 * The spec fixes only the variant model (groups of options, each option with its colour, image, stock); the rest
 * is ours (docs/store-api.md, "Decisions"): the detail `{ id, name, description, sku, price, compare_at_price,
 * status, digital, stock, sales_count, category_ids, variant_groups, created_at, updated_at }`, the list item
 * without `variant_groups`. Amounts are exact (`BigDecimal`) and JSON numbers on the wire; times are Algiers
 * `YYYY-MM-DD HH:MM:SS`. `stock: null` means stock is not tracked.
 *
 * The bodies decode untrusted JSON into what the store writes, each failure with a message in the spec's style
 * (`name is required (1-255 chars)`, `variant_groups[0].options[2].value must be unique per group`); unknown
 * fields are ignored.
 */
import { AlgiersTime, BodyFields, Ids, StoreAmount } from "@tawsil/domain"
import { Schema } from "effect"
import { CategoryId } from "./Category.ts"
import {
  amount,
  integer,
  nonNegativeAmount,
  nullable,
  required,
  storable,
  text,
  uniqueBy,
  withDefault
} from "./internal/fields.ts"

export const ProductStatus = Schema.Literals(["active", "draft"])
export type ProductStatus = typeof ProductStatus.Type

export const VariantType = Schema.Literals(["color", "text", "image_text"])
export type VariantType = typeof VariantType.Type

export const MAX_VARIANT_GROUPS = 20
export const MAX_OPTIONS_PER_GROUP = 100
export const MAX_CATEGORIES = 50

// ---------------------------------------------------------------------------------------------------------------
// Shapes

export class VariantOption extends Schema.Class<VariantOption>("VariantOption")({
  id: Schema.Int,
  value: Schema.String,
  /** `#rgb` or `#rrggbb`; colour groups only. */
  color_code: Schema.NullOr(Schema.String),
  image_id: Schema.NullOr(Schema.Int),
  /** Added to the product's price when this option is chosen; may be negative. */
  price_adjustment: StoreAmount.FromNumber,
  /** Per-option stock, or null when not tracked. */
  stock: Schema.NullOr(Schema.Int)
}) {}

export class VariantGroup extends Schema.Class<VariantGroup>("VariantGroup")({
  id: Schema.Int,
  name: Schema.String,
  type: VariantType,
  options: Schema.Array(VariantOption)
}) {}

const head = {
  id: Ids.ProductId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  sku: Schema.NullOr(Schema.String),
  price: StoreAmount.FromNumber,
  compare_at_price: Schema.NullOr(StoreAmount.FromNumber),
  status: ProductStatus,
  digital: Schema.Boolean,
  stock: Schema.NullOr(Schema.Int),
  sales_count: Schema.Int,
  /** The categories the product is in, ascending. */
  category_ids: Schema.Array(CategoryId)
}

const times = { created_at: AlgiersTime.SqlTimestamp, updated_at: AlgiersTime.SqlTimestamp }

/** A product in a list. */
export class ProductSummary extends Schema.Class<ProductSummary>("ProductSummary")({ ...head, ...times }) {}

/** A product with its variant groups, in position order. */
export class Product extends Schema.Class<Product>("Product")({
  ...head,
  variant_groups: Schema.Array(VariantGroup),
  ...times
}) {}

/** The list item of a product. */
export const toSummary = ({ variant_groups: _, ...summary }: Product): ProductSummary => new ProductSummary(summary)

/** The answer of a delete. */
export const ProductDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: Ids.ProductId }).annotate({
  identifier: "ProductDeleted"
})
export type ProductDeleted = typeof ProductDeleted.Type

// ---------------------------------------------------------------------------------------------------------------
// Bodies

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/

const stockOrNull = nullable(
  integer(0, Ids.MAX_ID, "must be null or an integer >= 0"),
  "must be null or an integer >= 0"
)

const OptionBody = Schema.Struct({
  value: required(text(1, 255, "is required (1-255 chars)"), "is required (1-255 chars)"),
  color_code: nullable(
    Schema.String.annotate({ message: "must be a hex color (#rgb or #rrggbb) or null" }).check(
      Schema.isPattern(HEX_COLOR, { message: "must be a hex color (#rgb or #rrggbb) or null" })
    ),
    "must be a hex color (#rgb or #rrggbb) or null"
  ).pipe(withDefault(null)),
  image_id: nullable(
    integer(1, Ids.MAX_ID, "must be null or a positive integer"),
    "must be null or a positive integer"
  ).pipe(withDefault(null)),
  price_adjustment: amount("must be a number").pipe(withDefault(0)),
  stock: stockOrNull.pipe(withDefault(null))
}).annotate({ identifier: "VariantOptionBody", message: "must be an object" })

const optionsMessage = `must be an array of at most ${MAX_OPTIONS_PER_GROUP} options`

const GroupBody = Schema.Struct({
  name: required(text(1, 100, "is required (1-100 chars)"), "is required (1-100 chars)"),
  type: required(
    VariantType.annotate({ message: "must be color, text, or image_text" }),
    "is required (color, text, or image_text)"
  ),
  options: Schema.Array(OptionBody)
    .annotate({ message: optionsMessage })
    .check(
      Schema.isMaxLength(MAX_OPTIONS_PER_GROUP, { message: optionsMessage }),
      uniqueBy("value", (option: typeof OptionBody.Type) => option.value, "must be unique per group")
    )
    .pipe(withDefault([]))
})
  .annotate({ identifier: "VariantGroupBody", message: "must be an object" })
  .check(
    // A colour swatch means nothing on a text or picture option.
    Schema.makeFilter((group) => {
      if (group.type === "color") return undefined
      const index = group.options.findIndex((option) => option.color_code !== null)
      return index < 0
        ? undefined
        : { path: ["options", index, "color_code"], issue: "is only allowed in color groups" }
    })
  )

const groupsMessage = `must be an array of at most ${MAX_VARIANT_GROUPS} groups`

const Groups = Schema.Array(GroupBody)
  .annotate({ message: groupsMessage })
  .check(
    Schema.isMaxLength(MAX_VARIANT_GROUPS, { message: groupsMessage }),
    uniqueBy("name", (group: typeof GroupBody.Type) => group.name, "must be unique per product")
  )

const categoriesMessage = `must be an array of at most ${MAX_CATEGORIES} category ids`

/** Category ids, each once; whether they name categories of the store is `Products`' check. */
const CategoryIds = Schema.Array(integer(1, Ids.MAX_ID, "must be a category id (a positive integer)"))
  .annotate({ message: categoriesMessage })
  .check(
    Schema.isMaxLength(MAX_CATEGORIES, { message: categoriesMessage }),
    Schema.makeFilter((ids: ReadonlyArray<number>) => {
      const index = ids.findIndex((id, at) => ids.indexOf(id) !== at)
      return index < 0 ? undefined : { path: [index], issue: "must be unique" }
    })
  )

export type VariantGroupInput = typeof GroupBody.Type
export type VariantOptionInput = typeof OptionBody.Type

const fields = {
  description: nullable(storable("must be a string or null"), "must be a string or null"),
  sku: nullable(text(1, 100, "must be a string of 1-100 chars or null"), "must be a string of 1-100 chars or null"),
  compare_at_price: nullable(nonNegativeAmount("must be null or >= 0"), "must be null or >= 0"),
  status: ProductStatus.annotate({ message: "must be active or draft" }),
  digital: Schema.Boolean.annotate({ message: "must be a boolean" }),
  stock: stockOrNull
}

/**
 * `POST /v1/products`: `name` and `price` required; `status` defaults to `active`, `digital` to false, the
 * nullable fields to null, `variant_groups` and `category_ids` (the store's categories the product is in) to none.
 * Amounts are at most `StoreAmount.MAXIMUM` (100000000; an
 * option's `price_adjustment` within ±100000000); text holding a NUL character or a lone surrogate is refused with
 * the field's message (`StoreText`).
 */
export const ProductCreateBody = Schema.Struct({
  name: required(text(1, 255, "is required (1-255 chars)"), "is required (1-255 chars)"),
  description: fields.description.pipe(withDefault(null)),
  sku: fields.sku.pipe(withDefault(null)),
  price: required(nonNegativeAmount("must be >= 0"), "is required (>= 0)"),
  compare_at_price: fields.compare_at_price.pipe(withDefault(null)),
  status: fields.status.pipe(withDefault("active")),
  digital: fields.digital.pipe(withDefault(false)),
  stock: fields.stock.pipe(withDefault(null)),
  variant_groups: Groups.pipe(withDefault([])),
  category_ids: CategoryIds.pipe(withDefault([]))
}).annotate({ identifier: "ProductCreateBody", ...BodyFields.objectMessage })

/** What a create writes. */
export type ProductInput = typeof ProductCreateBody.Type

/**
 * `PATCH /v1/products/{id}`: any create field; absent fields stay as they are, `null` clears a nullable one,
 * `variant_groups` replaces every group (new ids) and `category_ids` every category the product is in.
 */
export const ProductUpdateBody = Schema.Struct({
  name: Schema.optionalKey(text(1, 255, "must be 1-255 chars")),
  description: Schema.optionalKey(fields.description),
  sku: Schema.optionalKey(fields.sku),
  price: Schema.optionalKey(nonNegativeAmount("must be >= 0")),
  compare_at_price: Schema.optionalKey(fields.compare_at_price),
  status: Schema.optionalKey(fields.status),
  digital: Schema.optionalKey(fields.digital),
  stock: Schema.optionalKey(fields.stock),
  variant_groups: Schema.optionalKey(Groups),
  category_ids: Schema.optionalKey(CategoryIds)
}).annotate({ identifier: "ProductUpdateBody", ...BodyFields.objectMessage })

/** What a PATCH changes. */
export type ProductPatch = typeof ProductUpdateBody.Type
