/**
 * The store as `GET /v1/store` shows it (spec core "Store"), with its public address and the settings
 * `PATCH /v1/store` writes (`Settings`): contact, social links and how prices show.
 *
 * `public_url` is the verified custom domain (`https://<custom_domain>`), else the store's subdomain of the
 * platform's storefront domain (`https://<subdomain>.tawsil.store`, `STOREFRONT_DOMAIN`), else null. A custom domain
 * whose DNS and TLS are not done yet is never the public URL. `created_at` is ISO 8601 in Algiers time
 * (`2026-11-21T12:30:00+01:00`).
 */
import { AlgiersTime, Ids } from "@tawsil/domain"
import { Schema } from "effect"

/** The platform's storefront domain: a store's `subdomain` is a label under it. */
export const STOREFRONT_DOMAIN = "tawsil.store"

export const StoreLanguage = Schema.Literals(["ar", "fr"])
export type StoreLanguage = typeof StoreLanguage.Type

/** The spec's `theme` object: three of the design's colours and its font (the whole design: `GET /v1/store/design`). */
export class Theme extends Schema.Class<Theme>("StoreTheme")({
  primary_color: Schema.String,
  secondary_color: Schema.String,
  background_color: Schema.String,
  font_family: Schema.String
}) {}

/** How buyers reach the store: shown on the storefront (footer, contact page, the WhatsApp button). */
export const Contact = Schema.Struct({
  /** Digits, with a leading `+` when sent with one (spaces removed). */
  phone: Schema.NullOr(Schema.String),
  /** The number the storefront's WhatsApp button opens; digits, with a leading `+` when sent with one. */
  whatsapp: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  /** The store's wilaya, 1 to 58. */
  wilaya_id: Schema.NullOr(Schema.Int)
}).annotate({ identifier: "StoreContact" })
export type Contact = typeof Contact.Type

export const SOCIAL_NETWORKS = ["facebook", "instagram", "tiktok", "youtube"] as const
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number]

/** The store's pages on social networks (`https` URLs), linked from the storefront's footer. */
export const SocialLinks = Schema.Struct({
  facebook: Schema.NullOr(Schema.String),
  instagram: Schema.NullOr(Schema.String),
  tiktok: Schema.NullOr(Schema.String),
  youtube: Schema.NullOr(Schema.String)
}).annotate({ identifier: "StoreSocialLinks" })
export type SocialLinks = typeof SocialLinks.Type

export const CURRENCY_SYMBOLS = ["DA", "DZD", "د.ج"] as const

/** How the storefront writes a price: `2 500 DA`, `DZD 2 500.00`, `2 500 د.ج`. Amounts are always dinars. */
export const CurrencyDisplay = Schema.Struct({
  symbol: Schema.Literals(CURRENCY_SYMBOLS),
  /** The symbol before or after the amount. */
  position: Schema.Literals(["before", "after"]),
  /** Decimals shown: 0 (`2 500 DA`) or 2 (`2 500.00 DA`). */
  decimals: Schema.Literals([0, 2])
}).annotate({ identifier: "StoreCurrencyDisplay" })
export type CurrencyDisplay = typeof CurrencyDisplay.Type

export const emptyContact: Contact = { phone: null, whatsapp: null, email: null, address: null, wilaya_id: null }
export const emptySocialLinks: SocialLinks = { facebook: null, instagram: null, tiktok: null, youtube: null }
export const defaultCurrency: CurrencyDisplay = { symbol: "DA", position: "after", decimals: 0 }

const head = {
  id: Ids.StoreId,
  name: Schema.String,
  slug: Schema.String,
  language: StoreLanguage,
  description: Schema.NullOr(Schema.String),
  /** Paths to prepend with a CDN base. */
  logo: Schema.NullOr(Schema.String),
  favicon: Schema.NullOr(Schema.String),
  banner: Schema.NullOr(Schema.String),
  theme: Theme,
  contact: Contact,
  social_links: SocialLinks,
  currency: CurrencyDisplay,
  subdomain: Schema.NullOr(Schema.String),
  custom_domain: Schema.NullOr(Schema.String),
  /** True when DNS and TLS are done. */
  custom_domain_verified: Schema.Boolean
}

const tail = {
  hide_branding: Schema.Boolean,
  created_at: AlgiersTime.IsoTimestamp
}

/** A store as kept: everything the API shows but `public_url`, which follows from it. */
export class StoreRecord extends Schema.Class<StoreRecord>("StoreRecord")({ ...head, ...tail }) {}

export class Store extends Schema.Class<Store>("Store")({
  ...head,
  public_url: Schema.NullOr(Schema.String),
  ...tail
}) {}

/** Verified custom domain, else subdomain, else null. */
export const publicUrl = (
  store: Pick<StoreRecord, "custom_domain" | "custom_domain_verified" | "subdomain">
): string | null => {
  if (store.custom_domain !== null && store.custom_domain_verified) return `https://${store.custom_domain}`
  if (store.subdomain !== null) return `https://${store.subdomain}.${STOREFRONT_DOMAIN}`
  return null
}

export const fromRecord = (record: StoreRecord): Store => new Store({ ...record, public_url: publicUrl(record) })
