/**
 * Why a `Categories` operation failed: `CategoryError`, whose `reason` carries the message. Transport-agnostic: an API
 * decides which status each reason gets.
 */
import { Schema } from "effect"

/** The body breaks a rule of `CategoryCreateBody` / `CategoryUpdateBody`, or names a parent that cannot be one. */
export class InvalidCategory extends Schema.TaggedError<InvalidCategory>()("InvalidCategory", {
  message: Schema.String
}) {}

/** No category with that id in the store. */
export class CategoryNotFound extends Schema.TaggedError<CategoryNotFound>()("CategoryNotFound", {
  message: Schema.String
}) {}

/** A category with subcategories cannot be deleted: its subcategories would lose their parent. */
export class HasSubcategories extends Schema.TaggedError<HasSubcategories>()("HasSubcategories", {
  message: Schema.String
}) {}

export const CategoryErrorReason = Schema.Union([InvalidCategory, CategoryNotFound, HasSubcategories])
export type CategoryErrorReason = typeof CategoryErrorReason.Type

export class CategoryError extends Schema.TaggedError<CategoryError>()("CategoryError", {
  reason: CategoryErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: CategoryErrorReason) => new CategoryError({ reason })
