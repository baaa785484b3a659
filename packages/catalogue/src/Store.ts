/**
 * The store profile as the store API shows it (spec "Store"), with its public address.
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

export class Theme extends Schema.Class<Theme>("StoreTheme")({
  primary_color: Schema.String,
  secondary_color: Schema.String,
  background_color: Schema.String,
  font_family: Schema.String
}) {}

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
