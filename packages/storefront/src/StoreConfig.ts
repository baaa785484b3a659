/**
 * A store's own configuration as the port keeps it and the services read and write it: its settings, its theme
 * choices, its design, the theme's standard home sections and its own home layout. The values sit here, beside the
 * port (`StorefrontStore`), so the port and the services that apply the rules (`Settings`, `Themes`, `Design`,
 * `HomeSections`, `HomeLayout`, which re-export them) each import these and not one another.
 */
import { Schema } from "effect"
import * as HomeSection from "./HomeSection.ts"
import { Contact, CurrencyDisplay, SocialLinks, StoreLanguage } from "./Store.ts"
import type { Colors } from "./ThemeCatalogue.ts"

/** The store's settings as `GET /v1/store` shows them. */
export const SettingsState = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  language: StoreLanguage,
  logo: Schema.NullOr(Schema.String),
  favicon: Schema.NullOr(Schema.String),
  banner: Schema.NullOr(Schema.String),
  contact: Contact,
  social_links: SocialLinks,
  currency: CurrencyDisplay
})
export type SettingsState = typeof SettingsState.Type

/** A store's three choices, whether it sells digital products, and its colours. */
export interface ThemeState {
  readonly theme: string
  readonly fast_checkout_theme: string
  readonly variant_card_style: string
  readonly is_digital: boolean
  readonly colors: Colors
}

/** The fonts the storefront loads: Arabic and Latin ones first, then Latin only. */
export const FONTS = [
  "Cairo",
  "Tajawal",
  "Almarai",
  "Changa",
  "El Messiri",
  "IBM Plex Sans Arabic",
  "Noto Kufi Arabic",
  "Noto Sans Arabic",
  "Readex Pro",
  "Rubik",
  "Amiri",
  "Inter",
  "Poppins",
  "Montserrat",
  "Roboto",
  "Open Sans",
  "Lato"
] as const
export type Font = (typeof FONTS)[number]

export const BUTTON_STYLES = ["filled", "outline", "soft"] as const
export const IMAGE_RATIOS = ["square", "portrait", "landscape"] as const

export const DesignColors = Schema.Struct({
  /** Links, highlights, the price. */
  primary_color: Schema.String,
  /** Badges and accents. */
  secondary_color: Schema.String,
  background_color: Schema.String,
  /** Body text; null: the theme's. */
  text_color: Schema.NullOr(Schema.String),
  /** The order button and the other buttons; null: the primary colour. */
  button_color: Schema.NullOr(Schema.String),
  button_text_color: Schema.NullOr(Schema.String),
  /** The header bar; null: the background. */
  header_color: Schema.NullOr(Schema.String),
  /** The footer; null: the theme's. */
  footer_color: Schema.NullOr(Schema.String)
}).annotate({ identifier: "DesignColors" })
export type DesignColors = typeof DesignColors.Type

/** What the design holds (and what the port keeps). */
export const DesignState = Schema.Struct({
  colors: DesignColors,
  /** The text font, one of `FONTS`. */
  font_family: Schema.Literals(FONTS),
  /** The headings' font; null: `font_family`. */
  heading_font: Schema.NullOr(Schema.Literals(FONTS)),
  /** Corners of cards, pictures, fields and buttons, in pixels: 0 to 24. */
  border_radius: Schema.Int,
  button_style: Schema.Literals(BUTTON_STYLES),
  /** The shape of product pictures in lists. */
  product_image_ratio: Schema.Literals(IMAGE_RATIOS)
})
export type DesignState = typeof DesignState.Type

/** A standard section as the page shows it: whether it shows, and its settings. */
export const standardSection = <T extends HomeSection.StandardType>(type: T) =>
  Schema.Struct({
    /** Shown on the home page. */
    enabled: Schema.Boolean,
    ...HomeSection.SettingsSchemas[type].fields
  })

/** The theme's standard sections, each shown or not with its settings (`GET /v1/store/home-sections`). */
export const HomeSectionsValues = Schema.Struct({
  hero: standardSection("hero"),
  categories: standardSection("categories"),
  featured_products: standardSection("featured_products"),
  testimonials: standardSection("testimonials"),
  faq: standardSection("faq"),
  trust_badges: standardSection("trust_badges")
}).annotate({ identifier: "HomeSections" })
export type HomeSectionsValues = typeof HomeSectionsValues.Type

const sectionOf = <T extends HomeSection.SectionType>(type: T) =>
  Schema.Struct({
    /** The section's id in the store's layout; used in paths. */
    id: Schema.Int,
    type: Schema.Literal(type),
    /** Shown on the home page. */
    enabled: Schema.Boolean,
    settings: HomeSection.SettingsSchemas[type]
  }).annotate({ identifier: `${type.replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase())}Section` })

/** A section of the layout: its id, type, whether it shows and its type's settings. */
export const LayoutSection = Schema.Union(HomeSection.SECTION_TYPES.map(sectionOf)).annotate({
  identifier: "LayoutSection"
})
export type LayoutSection = {
  readonly id: number
  readonly type: HomeSection.SectionType
  readonly enabled: boolean
  readonly settings: HomeSection.AnySettings
}

/** A layout as the port keeps it. */
export interface LayoutState {
  readonly sections: ReadonlyArray<LayoutSection>
  /** The last section id given in the store. */
  readonly last_section_id: number
}
