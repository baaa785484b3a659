/**
 * The sections of a store's home page, as data: each type, its settings with their rules and defaults. The theme's
 * standard home page (`HomeSections`) has one of each standard type, shown or hidden; the merchant's own layout
 * (`HomeLayout`) places any number of sections of every type, in order.
 *
 * | type | settings | where |
 * |---|---|---|
 * | `hero` | `title`, `subtitle`, `image`, `button_text`, `button_link` | both |
 * | `categories` | `title`, `limit` (1 to 24, default 8) | both |
 * | `featured_products` | `title`, `source` (`newest`, `best_selling`), `limit` (1 to 48, default 8) | both |
 * | `testimonials` | `title`, `items` (up to 20: `name`, `text`, `rating` 1 to 5, `wilaya_id`) | both |
 * | `faq` | `title`, `items` (up to 30: `question`, `answer`) | both |
 * | `trust_badges` | `title`, `badges` (of `TRUST_BADGES`, each once) | both |
 * | `banner` | `image` (required), `link`, `alt` | layout |
 * | `rich_text` | `title`, `text` (required, up to 5000) | layout |
 *
 * Settings are read key by key over the current ones (a list is replaced whole); unknown keys are ignored. Texts
 * are trimmed, `StoreText`, and null or `""` clears an optional one; `image` is a path on the store's CDN, a link a
 * storefront path (`/products/12`) or an `https` URL.
 */
import { BodyFields } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import * as Fields from "./internal/Fields.ts"

export const STANDARD_TYPES = [
  "hero",
  "categories",
  "featured_products",
  "testimonials",
  "faq",
  "trust_badges"
] as const
export const SECTION_TYPES = [...STANDARD_TYPES, "banner", "rich_text"] as const
export type SectionType = (typeof SECTION_TYPES)[number]
export type StandardType = (typeof STANDARD_TYPES)[number]

/** The reassurances Algerian cash-on-delivery buyers look for; the storefront words them in the store's language. */
export const TRUST_BADGES = [
  "cash_on_delivery",
  "delivery_58_wilayas",
  "easy_returns",
  "quality_guarantee",
  "customer_support"
] as const

export const TITLE_MAX = 100
export const TESTIMONIALS_MAX = 20
export const FAQ_MAX = 30
export const RICH_TEXT_MAX = 5000

const text = (max: number) => Schema.NullOr(Schema.String).annotate({ description: `Up to ${max} characters.` })
const title = text(TITLE_MAX)

export const Testimonial = Schema.Struct({
  /** 1 to 60 characters. */
  name: Schema.String,
  /** 1 to 500 characters. */
  text: Schema.String,
  /** 1 to 5 stars. */
  rating: Schema.Int,
  wilaya_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "HomeTestimonial" })

export const Question = Schema.Struct({
  /** 1 to 200 characters. */
  question: Schema.String,
  /** 1 to 1000 characters. */
  answer: Schema.String
}).annotate({ identifier: "HomeQuestion" })

/** Each type's settings, as shown and recorded. */
export const SettingsSchemas = {
  hero: Schema.Struct({
    title,
    subtitle: text(200),
    /** A path on the store's CDN. */
    image: Schema.NullOr(Schema.String),
    button_text: text(40),
    /** A storefront path (`/products/12`) or an `https` URL. */
    button_link: Schema.NullOr(Schema.String)
  }).annotate({ identifier: "HeroSettings" }),
  categories: Schema.Struct({ title, limit: Schema.Int }).annotate({ identifier: "CategoriesSettings" }),
  featured_products: Schema.Struct({
    title,
    source: Schema.Literals(["newest", "best_selling"]),
    limit: Schema.Int
  }).annotate({ identifier: "FeaturedProductsSettings" }),
  testimonials: Schema.Struct({ title, items: Schema.Array(Testimonial) }).annotate({
    identifier: "TestimonialsSettings"
  }),
  faq: Schema.Struct({ title, items: Schema.Array(Question) }).annotate({ identifier: "FaqSettings" }),
  trust_badges: Schema.Struct({ title, badges: Schema.Array(Schema.Literals(TRUST_BADGES)) }).annotate({
    identifier: "TrustBadgesSettings"
  }),
  banner: Schema.Struct({
    image: Schema.String,
    link: Schema.NullOr(Schema.String),
    alt: text(120)
  }).annotate({ identifier: "BannerSettings" }),
  rich_text: Schema.Struct({ title, text: Schema.String }).annotate({ identifier: "RichTextSettings" })
} as const

export type SectionSettings = { readonly [K in SectionType]: (typeof SettingsSchemas)[K]["Type"] }
export type AnySettings = SectionSettings[SectionType]

/** The settings a section starts with; `banner.image` and `rich_text.text` have none (they must be sent). */
export const DEFAULTS: { readonly [K in SectionType]: Partial<SectionSettings[K]> } = {
  hero: { title: null, subtitle: null, image: null, button_text: null, button_link: null },
  categories: { title: null, limit: 8 },
  featured_products: { title: null, source: "newest", limit: 8 },
  testimonials: { title: null, items: [] },
  faq: { title: null, items: [] },
  trust_badges: { title: null, badges: ["cash_on_delivery", "delivery_58_wilayas"] },
  banner: { link: null, alt: null },
  rich_text: { title: null }
}

type Reader = (value: unknown, path: string) => Effect.Effect<unknown, string>

const optionalText =
  (max: number): Reader =>
  (value, path) =>
    Fields.optionalText(value, max, `${path} must be a string of at most ${max} characters, or null`)

const requiredText =
  (max: number): Reader =>
  (value, path) =>
    Fields.text(value, max, `${path} must be 1 to ${max} characters`)

const optionalImage: Reader = (value, path) =>
  Fields.optionalPath(value, `${path} must be a path such as stores/12/hero.jpg (at most 500 characters), or null`)

const requiredImage: Reader = (value, path) =>
  value === null || value === ""
    ? Effect.fail(`${path} is required: a path such as stores/12/banner.jpg (at most 500 characters)`)
    : Fields.optionalPath(value, `${path} is required: a path such as stores/12/banner.jpg (at most 500 characters)`)

const link: Reader = (value, path) =>
  Fields.optionalLink(
    value,
    `${path} must be a storefront path such as /products/12 (not //) or an https URL of a public host ` +
      "(at most 500 characters), or null"
  )

const integer =
  (minimum: number, maximum: number): Reader =>
  (value, path) =>
    Fields.integer(value, minimum, maximum, `${path} must be a whole number from ${minimum} to ${maximum}`)

/** A list of up to `max` objects, each read key by key (every key required unless its reader accepts undefined). */
const list =
  (max: number, item: Readonly<Record<string, Reader>>): Reader =>
  (value, path) =>
    Effect.gen(function* () {
      if (!Array.isArray(value) || value.length > max) {
        return yield* Effect.fail(`${path} must be a list of at most ${max} items`)
      }
      const items: Array<Record<string, unknown>> = []
      for (const [index, raw] of value.entries()) {
        const fields = yield* Fields.object(raw, `${path}[${index}] must be an object`)
        const read: Record<string, unknown> = {}
        for (const [name, reader] of Object.entries(item)) {
          read[name] = yield* reader(fields[name], `${path}[${index}].${name}`)
        }
        items.push(read)
      }
      return items
    })

const wilaya: Reader = (value, path) =>
  value === undefined ? Effect.succeed(null) : Fields.optionalInteger(value, 1, 58, `${path} must be 1-58, or null`)

const badges: Reader = (value, path) => {
  const message = `${path} must be a list of distinct badges among ${TRUST_BADGES.join(", ")}`
  return Array.isArray(value) &&
    value.every((badge) => TRUST_BADGES.includes(badge)) &&
    new Set(value).size === value.length
    ? Effect.succeed(value)
    : Effect.fail(message)
}

/** Each type's settings and how each is read. */
const READERS: { readonly [K in SectionType]: Readonly<Record<keyof SectionSettings[K], Reader>> } = {
  hero: {
    title: optionalText(TITLE_MAX),
    subtitle: optionalText(200),
    image: optionalImage,
    button_text: optionalText(40),
    button_link: link
  },
  categories: { title: optionalText(TITLE_MAX), limit: integer(1, 24) },
  featured_products: {
    title: optionalText(TITLE_MAX),
    source: (value, path) =>
      Fields.oneOf(value, ["newest", "best_selling"] as const, `${path} must be newest or best_selling`),
    limit: integer(1, 48)
  },
  testimonials: {
    title: optionalText(TITLE_MAX),
    items: list(TESTIMONIALS_MAX, {
      name: requiredText(60),
      text: requiredText(500),
      rating: integer(1, 5),
      wilaya_id: wilaya
    })
  },
  faq: {
    title: optionalText(TITLE_MAX),
    items: list(FAQ_MAX, { question: requiredText(200), answer: requiredText(1000) })
  },
  trust_badges: { title: optionalText(TITLE_MAX), badges },
  banner: { image: requiredImage, link, alt: optionalText(120) },
  rich_text: { title: optionalText(TITLE_MAX), text: requiredText(RICH_TEXT_MAX) }
}

/**
 * The settings of a section of `type` after `raw`, read key by key over `current` (the type's defaults for a new
 * section), or the message of the first key that breaks its rule; `path` names the object in messages
 * (`settings`, `faq`). A key with no default that is still missing (`banner.image`, `rich_text.text`) is refused.
 */
export const readSettings = Effect.fnUntraced(function* <T extends SectionType>(
  type: T,
  current: Partial<SectionSettings[T]> | undefined,
  raw: unknown,
  path: string
) {
  const readers = READERS[type] as Readonly<Record<string, Reader>>
  const next: Record<string, unknown> = { ...(DEFAULTS[type] as object), ...(current as object | undefined) }
  if (raw !== undefined) {
    const fields = yield* Fields.object(raw, `${path} must be an object`)
    for (const [name, reader] of Object.entries(readers)) {
      if (BodyFields.sent(fields, name)) next[name] = yield* reader(fields[name], `${path}.${name}`)
    }
  }
  for (const [name, reader] of Object.entries(readers)) {
    // A required setting never sent: its reader refuses the absence with its own message.
    if (next[name] === undefined) next[name] = yield* reader(null, `${path}.${name}`)
  }
  // In the readers' order, so a section's settings always read and record alike.
  return Object.fromEntries(Object.keys(readers).map((name) => [name, next[name]])) as SectionSettings[T]
})

/** A type's settings with their keys in the order the API shows them (`jsonb` keeps its own). */
export const ordered = <T extends SectionType>(type: T, settings: SectionSettings[T]): SectionSettings[T] => {
  const kept = settings as unknown as Readonly<Record<string, unknown>>
  return Object.fromEntries(Object.keys(READERS[type]).map((name) => [name, kept[name]])) as SectionSettings[T]
}

export const isSectionType = (value: unknown): value is SectionType => SECTION_TYPES.includes(value as SectionType)
