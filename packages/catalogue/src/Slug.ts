/**
 * Landing page slugs (spec "Landing page create body"), and category slugs by the same rules: a slug derived from a
 * title is lowercase ASCII letters, digits and hyphens; a title with none of those (an Arabic-only title) gives
 * `landing-` (`category-`) and 6 random hex characters; a slug already taken in the store gets the first free suffix
 * `-2`, `-3`, …
 *
 * Latin letters lose their accents rather than disappear (`Crème brûlée` → `creme-brulee`). A derived slug is cut
 * to `MAX_DERIVED_LENGTH` characters so a 255-character title still gives a usable URL.
 */
import { Effect, Random } from "effect"

export const MAX_DERIVED_LENGTH = 100

/** The slug a text gives: possibly empty, when it has no ASCII letter or digit. */
export const fromText = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, MAX_DERIVED_LENGTH)
    .replace(/-+$/, "")

/** `<prefix>-` and 6 random lowercase hex characters, for a text that gives no slug. */
export const fallbackOf = (prefix: string): Effect.Effect<string> =>
  Effect.map(Random.nextIntBetween(0, 0xffffff), (n) => `${prefix}-${n.toString(16).padStart(6, "0")}`)

/** `landing-` and 6 random lowercase hex characters: a landing page's slug when its title gives none. */
export const fallback: Effect.Effect<string> = fallbackOf("landing")

/** The slug of `text`, or the fallback (`landing-…`, or `<prefix>-…`) when it gives none. */
export const derive = (text: string, prefix = "landing"): Effect.Effect<string> => {
  const slug = fromText(text)
  return slug === "" ? fallbackOf(prefix) : Effect.succeed(slug)
}

/** `base` when it is free, else `base-2`, `base-3`, … whichever comes first. */
export const firstFree = (base: string, isTaken: (slug: string) => boolean): string => {
  if (!isTaken(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!isTaken(candidate)) return candidate
  }
}
