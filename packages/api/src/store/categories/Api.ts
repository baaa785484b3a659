/**
 * The store's categories (docs/store-api-config.md, "Categories"): one level deep, a slug per store, the storefront
 * menu's order; products name theirs with `category_ids`. Recorded as `category`; the order is not.
 */
import { Category, CategoryError } from "@tawsil/catalogue"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** `HasSubcategories` is named after its code (`has_subcategories`). */
export const reasons = Reasons.of(CategoryError.CategoryErrorReason, {
  InvalidCategory: "bad_request",
  CategoryNotFound: "not_found"
})

const { Data, Id, ListOf, listQuery } = Endpoint
const writes = [...Errors.writes, ...reasons.classes]
const scope = "products:write"

export class CategoriesGroup extends HttpApiGroup.make("categories")
  .add(
    /** Newest first, in cursor pages; `position` gives the storefront's order. Not cached. */
    HttpApiEndpoint.get("listCategories", "/v1/categories", {
      query: listQuery,
      success: ListOf(Category.Category),
      error: Errors.reads
    }).annotate(Endpoint.RequiredScope, "products:read"),
    HttpApiEndpoint.get("getCategory", "/v1/categories/:id", {
      params: Id,
      success: Data(Category.Category),
      error: [...Errors.reads, ...reasons.classes]
    }).annotate(Endpoint.RequiredScope, "products:read"),
    Endpoint.post("createCategory", "/v1/categories", {
      payload: Category.CategoryCreateBody,
      success: Data(Category.Category).pipe(HttpApiSchema.status(201)),
      error: writes,
      scope
    }),
    /** Only sent fields change; a new name derives a new slug. Moving a category (`position`) is not recorded. */
    Endpoint.patch("updateCategory", "/v1/categories/:id", {
      params: Id,
      payload: Category.CategoryUpdateBody,
      success: Data(Category.Category),
      error: writes,
      scope
    }),
    /** Takes its products out of it (they stay); 409 `has_subcategories` while it has any. */
    Endpoint.del("deleteCategory", "/v1/categories/:id", {
      params: Id,
      success: Data(Category.CategoryDeleted),
      error: writes,
      scope
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "categories",
      description:
        "The store's categories, one level deep; products name theirs with category_ids. Recorded as category " +
        "(the order, position, is not)."
    })
  ) {}
