/**
 * The three storefront choices as data (spec "Themes"; docs/storefront.md has the tables): storefront themes (the
 * list `GET /v1/themes` shows), fast-checkout form themes and variant picker styles (which no endpoint lists), each
 * with the lowest plan that opens it and whether it can still be chosen; and the digital palette rule.
 */
import type { Plans } from "@tawsil/domain"

export interface StorefrontTheme {
  readonly key: string
  readonly title: { readonly ar: string; readonly fr: string }
  readonly plan: Plans.Plan
  /** False for a retired theme: it stays listed (stores may still use it) and cannot be chosen. */
  readonly active: boolean
  readonly colorMode: "light" | "dark"
  /** The theme of digital-products stores: choosing it makes the store digital. */
  readonly digitalOnly: boolean
}

export interface Choice {
  readonly key: string
  readonly plan: Plans.Plan
  readonly active: boolean
}

export const STOREFRONT_THEMES: ReadonlyArray<StorefrontTheme> = [
  {
    key: "classic",
    title: { ar: "كلاسيكي", fr: "Classique" },
    plan: "free",
    active: true,
    colorMode: "light",
    digitalOnly: false
  },
  { key: "souk", title: { ar: "سوق", fr: "Souk" }, plan: "free", active: true, colorMode: "light", digitalOnly: false },
  {
    key: "atlas",
    title: { ar: "أطلس", fr: "Atlas" },
    plan: "pro",
    active: true,
    colorMode: "light",
    digitalOnly: false
  },
  {
    key: "medina",
    title: { ar: "المدينة", fr: "Médina" },
    plan: "pro",
    active: true,
    colorMode: "light",
    digitalOnly: false
  },
  {
    key: "digital",
    title: { ar: "رقمي", fr: "Numérique" },
    plan: "pro",
    active: true,
    colorMode: "dark",
    digitalOnly: true
  },
  {
    key: "sahara",
    title: { ar: "الصحراء", fr: "Sahara" },
    plan: "unlimited",
    active: true,
    colorMode: "light",
    digitalOnly: false
  },
  {
    key: "casbah",
    title: { ar: "القصبة", fr: "Casbah" },
    plan: "unlimited",
    active: true,
    colorMode: "dark",
    digitalOnly: false
  },
  {
    key: "noir",
    title: { ar: "ليل", fr: "Noir" },
    plan: "enterprise",
    active: true,
    colorMode: "dark",
    digitalOnly: false
  },
  {
    key: "bazaar",
    title: { ar: "بازار", fr: "Bazar" },
    plan: "free",
    active: false,
    colorMode: "light",
    digitalOnly: false
  }
]

/** Fast-checkout form themes (spec table, plus `express`, retired). */
export const FAST_CHECKOUT_THEMES: ReadonlyArray<Choice> = [
  { key: "classic", plan: "free", active: true },
  { key: "commerce", plan: "pro", active: true },
  { key: "editorial", plan: "unlimited", active: true },
  { key: "compact", plan: "enterprise", active: true },
  { key: "stepper", plan: "enterprise", active: true },
  { key: "express", plan: "free", active: false }
]

const styles = (plan: Plans.Plan, keys: ReadonlyArray<string>): ReadonlyArray<Choice> =>
  keys.map((key) => ({ key, plan, active: true }))

/** Variant picker styles (spec table, plus `retro`, retired). */
export const VARIANT_STYLES: ReadonlyArray<Choice> = [
  ...styles("free", ["default"]),
  ...styles("pro", ["minimal", "clay", "softplay", "stacked"]),
  ...styles("unlimited", ["editorial", "material", "offer"]),
  ...styles("enterprise", ["brutal", "glass", "lux", "mashrabiya", "pixel"]),
  { key: "retro", plan: "pro", active: false }
]

/** Where every store starts. */
export const DEFAULTS = { theme: "classic", fastCheckoutTheme: "classic", variantStyle: "default" } as const

export interface Colors {
  readonly primary_color: string
  readonly secondary_color: string
  readonly background_color: string
}

/** The stock light colours every store starts with (storage migration 0003's default theme). */
export const LIGHT_PALETTE: Colors = {
  primary_color: "#1f2937",
  secondary_color: "#f59e0b",
  background_color: "#ffffff"
}

/** The dark palette of digital-products stores. */
export const DIGITAL_PALETTE: Colors = {
  primary_color: "#a78bfa",
  secondary_color: "#22d3ee",
  background_color: "#0b1020"
}

const KEYS = ["primary_color", "secondary_color", "background_color"] as const

/**
 * The colours after a switch (spec rule 2): becoming digital, each colour still holding its stock light value takes
 * the digital palette's; becoming physical again, each colour still holding the digital palette's value goes back
 * to the stock light one. Colours the merchant chose are kept either way; hex case does not matter. Colours not
 * given (a design change's record names only those it changed) stay not given.
 */
export const switchColors = <C extends Partial<Record<keyof Colors, string | null>>>(
  colors: C,
  from: Colors,
  to: Colors
): C => {
  const next: Record<string, unknown> = { ...colors }
  for (const key of KEYS) {
    const color = colors[key]
    if (typeof color === "string" && color.toLowerCase() === from[key].toLowerCase()) next[key] = to[key]
  }
  return next as C
}
