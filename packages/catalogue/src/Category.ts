/**
 * A category of the store's catalogue as the store API shows it, the bodies that create and change one, and the form
 * the change history records it in (entity `category`).
 *
 * The spec names the resource and its undo rule only; the rest is ours (docs/store-api-config.md, "Categories"): the
 * item `{ id, name, slug, description, image, parent_id, position, product_count, created_at, updated_at }`.
 * Categories nest one level: a category's parent is a top-level category of the same store. The slug is derived from
 * the name and unique per store; `image` is a path to prepend with the store's CDN base, like the store's logo;
 * `position` orders the storefront's menu (lowest first) and is the one field the change history does not record.
 */
import { AlgiersTime, BodyFields, Ids } from "@tawsil/domain"
import { Schema, Struct } from "effect"
import { integer, nullable, required, text, withDefault } from "./internal/fields.ts"

export const CategoryId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.brand("CategoryId"))
export type CategoryId = typeof CategoryId.Type

export const NAME_MAX = 255
export const DESCRIPTION_MAX = 5000
export const IMAGE_MAX = 255

// ---------------------------------------------------------------------------------------------------------------
// Shapes

const fields = {
  id: CategoryId,
  name: Schema.String,
  /** Derived from the name (`Robes kabyles` → `robes-kabyles`), unique per store. */
  slug: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** A path to prepend with the store's CDN base, or null. */
  image: Schema.NullOr(Schema.String),
  /** The top-level category this one is under; null for a top-level category. */
  parent_id: Schema.NullOr(CategoryId)
}

const times = { created_at: AlgiersTime.SqlTimestamp, updated_at: AlgiersTime.SqlTimestamp }

/** A category as every answer shows it. */
export class Category extends Schema.Class<Category>("Category")({
  ...fields,
  /** The storefront menu's order, lowest first (ties by id). */
  position: Schema.Int,
  /** How many of the store's products are in it (deleted products not counted). */
  product_count: Schema.Int,
  ...times
}) {}

/**
 * A category as the change history records it: its answer without `position` (category order is not recorded) and
 * `product_count`, with `product_ids` (the products in it, ascending), which a deleted category's undo puts back.
 */
export class CategoryValues extends Schema.Class<CategoryValues>("CategoryValues")({
  ...fields,
  product_ids: Schema.Array(Schema.Int),
  ...times
}) {}

/** A category's recorded fields as a struct (what a create and a delete record whole). */
export const CategoryFields = Schema.Struct(CategoryValues.fields)

/**
 * What a `category` change records: the whole category (a create, a delete), or the fields an update changed with
 * the category's `id` (never `updated_at`, which every write moves).
 */
export const RecordedCategory = CategoryFields.mapFields((all) => ({
  ...Struct.map(all, Schema.optionalKey),
  id: CategoryId
}))
export type RecordedCategory = typeof RecordedCategory.Type

/** How `category` changes lay out their values: `id` always; `updated_at` never. */
export const LAYOUT = { kept: ["id"], ignored: ["updated_at"] }

/** The answer of a delete. */
export const CategoryDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: CategoryId }).annotate({
  identifier: "CategoryDeleted"
})
export type CategoryDeleted = typeof CategoryDeleted.Type

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** `categories/robes.webp`: letters, digits and `. _ - /`, no empty or `..` segment, no leading `/`. */
const IMAGE_PATH = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))(?!.*\/\/)[A-Za-z0-9_-][A-Za-z0-9._/-]*$/

const messages = {
  name: `is required (1-${NAME_MAX} chars)`,
  nameUpdate: `must be 1-${NAME_MAX} chars`,
  description: `must be a string of at most ${DESCRIPTION_MAX} chars or null`,
  image: `must be null or a path of 1-${IMAGE_MAX} chars (letters, digits, . _ - /)`,
  parent: "must be null or a category id (a positive integer)",
  position: `must be an integer from 0 to ${Ids.MAX_ID}`
}

const bodyFields = {
  description: nullable(text(0, DESCRIPTION_MAX, messages.description), messages.description),
  image: nullable(
    text(1, IMAGE_MAX, messages.image).check(Schema.isPattern(IMAGE_PATH, { message: messages.image })),
    messages.image
  ),
  parent_id: nullable(integer(1, Ids.MAX_ID, messages.parent), messages.parent),
  position: integer(0, Ids.MAX_ID, messages.position)
}

/**
 * `POST /v1/categories`: `name` required; `description`, `image` and `parent_id` default to null; `position` to
 * after every category of the store. The slug is derived from the name (a sent `slug` is ignored, like any unknown
 * field). Text holding a NUL character or a lone surrogate is refused with the field's message (`StoreText`).
 */
export const CategoryCreateBody = Schema.Struct({
  name: required(text(1, NAME_MAX, messages.name), messages.name),
  description: bodyFields.description.pipe(withDefault(null)),
  image: bodyFields.image.pipe(withDefault(null)),
  parent_id: bodyFields.parent_id.pipe(withDefault(null)),
  position: Schema.optionalKey(bodyFields.position)
}).annotate({ identifier: "CategoryCreateBody", ...BodyFields.objectMessage })

export type CategoryInput = typeof CategoryCreateBody.Type

/**
 * `PATCH /v1/categories/{id}`: any create field; absent fields stay as they are, `null` clears a nullable one. A new
 * name derives a new slug.
 */
export const CategoryUpdateBody = Schema.Struct({
  name: Schema.optionalKey(text(1, NAME_MAX, messages.nameUpdate)),
  description: Schema.optionalKey(bodyFields.description),
  image: Schema.optionalKey(bodyFields.image),
  parent_id: Schema.optionalKey(bodyFields.parent_id),
  position: Schema.optionalKey(bodyFields.position)
}).annotate({ identifier: "CategoryUpdateBody", ...BodyFields.objectMessage })

export type CategoryPatch = typeof CategoryUpdateBody.Type
