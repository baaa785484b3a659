/**
 * A landing page as the store API shows it (spec "Landing page"), and the bodies that create and change one.
 *
 * The list item is `{ id, title, slug, status, language, product_id, views, is_purchased, created_at,
 * updated_at }`; the detail adds `meta_title`, `meta_description` and `section_count` (a live count of the
 * dashboard-managed sections). `views` and `is_purchased` are read-only: no body sets them.
 *
 * Create is lenient as the spec says (a `status` or `language` out of its set is coerced to `draft` / `ar`);
 * PATCH is strict (`status must be active or draft`, `language must be ar, fr, or en`).
 */
import { AlgiersTime, BodyFields, Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import { nullable, required, storable, text, withDefault } from "./internal/fields.ts"

export const LandingPageStatus = Schema.Literals(["active", "draft"])
export type LandingPageStatus = typeof LandingPageStatus.Type

export const LandingPageLanguage = Schema.Literals(["ar", "fr", "en"])
export type LandingPageLanguage = typeof LandingPageLanguage.Type

// ---------------------------------------------------------------------------------------------------------------
// Shapes

const head = {
  id: Ids.LandingPageId,
  title: Schema.String,
  slug: Schema.String,
  status: LandingPageStatus,
  language: LandingPageLanguage,
  /** The product the page sells; without one the page's order form cannot be priced. */
  product_id: Schema.NullOr(Ids.ProductId),
  views: Schema.Int,
  /** Bought outright (1000 DZD, lifetime); on the Free plan this makes the page visible. */
  is_purchased: Schema.Boolean,
  created_at: AlgiersTime.SqlTimestamp,
  updated_at: AlgiersTime.SqlTimestamp
}

/** A landing page in a list. */
export class LandingPageSummary extends Schema.Class<LandingPageSummary>("LandingPageSummary")(head) {}

/** A landing page read on its own. */
export class LandingPage extends Schema.Class<LandingPage>("LandingPage")({
  ...head,
  /** Null when not set: the public page falls back to the title. */
  meta_title: Schema.NullOr(Schema.String),
  meta_description: Schema.NullOr(Schema.String),
  section_count: Schema.Int
}) {}

/** The list item of a landing page. */
export const toSummary = ({ meta_title: _, meta_description: __, section_count: ___, ...summary }: LandingPage) =>
  new LandingPageSummary(summary)

/** The answer of a delete. */
export const LandingPageDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: Ids.LandingPageId }).annotate({
  identifier: "LandingPageDeleted"
})
export type LandingPageDeleted = typeof LandingPageDeleted.Type

// ---------------------------------------------------------------------------------------------------------------
// Bodies

const fields = {
  product_id: nullable(
    Schema.Number.annotate({ message: "must be an integer or null" }).check(
      Schema.isInt({ message: "must be an integer or null" })
    ),
    "must be an integer or null"
  ),
  meta_title: nullable(
    text(0, 255, "must be a string of at most 255 chars or null"),
    "must be a string of at most 255 chars or null"
  ),
  meta_description: nullable(storable("must be a string or null"), "must be a string or null")
}

const slugMessage = "must be a string of at most 255 chars"

/**
 * `POST /v1/landing-pages`: `title` required. `slug` is derived from the title when omitted (or null or empty) and
 * stored as sent otherwise; `status` defaults to `draft` and `language` to `ar`, and any other value is coerced to
 * those. `product_id` must name one of the store's products (checked by `LandingPages`).
 */
export const LandingPageCreateBody = Schema.Struct({
  title: required(text(1, 255, "is required (1-255 chars)"), "is required (1-255 chars)"),
  slug: nullable(text(0, 255, slugMessage), slugMessage).pipe(withDefault(null)),
  status: LandingPageStatus.pipe(
    Schema.catchDecoding(() => Effect.succeedSome("draft" as const)),
    withDefault("draft")
  ),
  language: LandingPageLanguage.pipe(
    Schema.catchDecoding(() => Effect.succeedSome("ar" as const)),
    withDefault("ar")
  ),
  product_id: fields.product_id.pipe(withDefault(null)),
  meta_title: fields.meta_title.pipe(withDefault(null)),
  meta_description: fields.meta_description.pipe(withDefault(null))
}).annotate({ identifier: "LandingPageCreateBody", ...BodyFields.objectMessage })

export type LandingPageCreate = typeof LandingPageCreateBody.Type

/**
 * `PATCH /v1/landing-pages/{id}`: any create field, validated strictly. A sent `slug` is normalised like a title;
 * a new `title` regenerates the slug only when no `slug` is sent.
 */
export const LandingPageUpdateBody = Schema.Struct({
  title: Schema.optionalKey(text(1, 255, "must be 1-255 chars")),
  slug: Schema.optionalKey(text(0, 255, slugMessage)),
  status: Schema.optionalKey(LandingPageStatus.annotate({ message: "must be active or draft" })),
  language: Schema.optionalKey(LandingPageLanguage.annotate({ message: "must be ar, fr, or en" })),
  product_id: Schema.optionalKey(fields.product_id),
  meta_title: Schema.optionalKey(fields.meta_title),
  meta_description: Schema.optionalKey(fields.meta_description)
}).annotate({ identifier: "LandingPageUpdateBody", ...BodyFields.objectMessage })

export type LandingPageUpdate = typeof LandingPageUpdateBody.Type
