/**
 * Commune resolution: the commune a person meant, from the spelling they typed, within one wilaya. Folding
 * (`NameFolding`) already meets case, accents, hyphens and Arabic letter variants; people also write names the way
 * they hear them, in French or English transliteration (Bordj El Kifan, Bachdjarrah, Bir Mourad Rays, Harache),
 * drop or add the article (Bordj Kiffan, Es Senia / Senia, برج كيفان), and slip a letter.
 *
 * Each name gets sound keys (transliteration variants brought to one spelling, doubled letters collapsed, the
 * article with and without), and the resolver ranks the wilaya's communes by edit distance between keys. It answers
 * a commune only when it is confident: the best candidate is close enough and clearly ahead of the next; otherwise
 * it answers ranked suggestions and never a guess. It never looks outside the wilaya it is given.
 * docs/decisions/0021-commune-resolution.md
 */
import { distance } from "fastest-levenshtein"
import { fold } from "./NameFolding.ts"

/** A candidate and how close its best key is to the input's: 1 is the same key, 0 nothing in common. */
/** What the resolver reads of a commune: its wilaya and its two names (the dataset's, or a courier's list). */
export interface Named {
  readonly wilayaCode: number
  readonly name: string
  readonly nameAr: string
}

export interface Candidate<C extends Named = Named> {
  readonly commune: C
  readonly score: number
}

export type Resolution<C extends Named = Named> =
  /** One commune, confidently: `exact` when the folded names are equal (not only their sound). */
  | { readonly _tag: "Matched"; readonly commune: C; readonly exact: boolean; readonly score: number }
  /** Several communes are about as close: the caller must choose. */
  | { readonly _tag: "Ambiguous"; readonly suggestions: ReadonlyArray<Candidate<C>> }
  /** No commune is close enough; the nearest ones, if any come near. */
  | { readonly _tag: "Unknown"; readonly suggestions: ReadonlyArray<Candidate<C>> }

/** The best score a candidate needs to be answered. */
export const CONFIDENT = 0.75
/** How far ahead of the next candidate the best one must be. */
export const MARGIN = 0.1
/** The least score a suggestion needs. */
export const SUGGESTION = 0.45
export const MAX_SUGGESTIONS = 5

/** Articles and particles that people drop or add: Latin (with the sun letters' assimilated forms) and Arabic. */
const ARTICLES = new Set([
  "el",
  "al",
  "l",
  "le",
  "la",
  "les",
  "es",
  "ech",
  "ez",
  "ed",
  "et",
  "er",
  "en",
  "eth",
  "d",
  "de"
])

/** Latin transliteration variants brought to one spelling, in order. */
const LATIN: ReadonlyArray<readonly [RegExp, string]> = [
  [/tch/g, "ch"],
  [/sh/g, "ch"],
  [/dj/g, "j"],
  [/ou/g, "u"],
  [/oo/g, "u"],
  [/w/g, "u"],
  [/ph/g, "f"],
  [/th/g, "t"],
  [/dh/g, "d"],
  [/ck/g, "k"],
  [/q/g, "k"],
  // c before e, i, y sounds s; elsewhere (but in ch) k.
  [/c(?=[eiy])/g, "s"],
  [/c(?!h)/g, "k"],
  [/y/g, "i"],
  [/ee/g, "i"]
]

const isArabic = (token: string) => /[\u0600-\u06ff]/.test(token)

/** A token's sound: folded, transliteration variants unified, trailing mute `e`/`h` dropped. */
const soundOf = (token: string): string => {
  const folded = fold(token)
  if (isArabic(folded)) return folded
  let sound = folded
  for (const [pattern, replacement] of LATIN) sound = sound.replace(pattern, replacement)
  return sound.length > 3 ? sound.replace(/[eh]+$/, "") : sound
}

const collapse = (key: string) => key.replace(/(.)\1+/gu, "$1")

const tokensOf = (name: string): ReadonlyArray<string> =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((token) => fold(token) !== "")

/** An Arabic token without its article `ال` (kept on short words, where it may be the word). */
const withoutArabicArticle = (token: string) => {
  const folded = fold(token)
  return folded.startsWith("\u0627\u0644") && folded.length > 4 ? folded.slice(2) : folded
}

/**
 * The sound keys of a name: with every word, and without its articles (Bordj El Kiffan → borjelkifan, borjkifan).
 * Empty for a name with no letter or digit.
 */
export const soundKeys = (name: string): ReadonlyArray<string> => {
  const tokens = tokensOf(name)
  if (tokens.length === 0) return []
  const full = collapse(tokens.map(soundOf).join(""))
  const kept = tokens.filter((token) => !ARTICLES.has(fold(token)))
  const bare = collapse(
    (kept.length > 0 ? kept : tokens)
      .map((token) => (isArabic(fold(token)) ? withoutArabicArticle(token) : soundOf(token)))
      .join("")
  )
  return full === bare ? [full] : [full, bare]
}

const similarity = (a: string, b: string) => 1 - distance(a, b) / Math.max(a.length, b.length)

/** The score of a key of four letters or more that starts a commune's key: a truncated name (Birkh, Bordj El). */
export const TRUNCATED = 0.8
/** The score of a three-letter key that starts a commune's key (Bir, Bab, Ain): suggested, never answered alone. */
export const SHORT_PREFIX = 0.7

/**
 * How close two sets of keys are: their closest pair; a key that starts the other counts as fairly close. `prefix`
 * says whether the name as typed, every word kept (the input's first key), begins this commune's name: `Bab Ez`
 * begins Bab Ezzouar's, not Bab El Oued's, though without its article it is `Bab`.
 */
const closeness = (
  input: ReadonlyArray<string>,
  candidate: ReadonlyArray<string>
): { readonly score: number; readonly prefix: boolean } => {
  let best = 0
  let prefix = false
  input.forEach((a, index) => {
    for (const b of candidate) {
      let score = similarity(a, b)
      if (a.length >= 4 && b.startsWith(a)) score = Math.max(score, TRUNCATED)
      if (index === 0 && a.length >= 3 && b.length > a.length && b.startsWith(a)) {
        prefix = true
        score = Math.max(score, SHORT_PREFIX)
      }
      if (score > best) best = score
    }
  })
  return { score: best, prefix }
}

interface Indexed<C extends Named> {
  readonly commune: C
  readonly folded: ReadonlyArray<string>
  readonly keys: ReadonlyArray<string>
}

/** A resolver over one set of communes, keyed once: `resolve(wilaya, name)`. */
export const make = <C extends Named>(communes: ReadonlyArray<C>) => {
  const byWilaya = new Map<number, Array<Indexed<C>>>()
  for (const commune of communes) {
    const indexed: Indexed<C> = {
      commune,
      folded: [fold(commune.name), fold(commune.nameAr)],
      keys: [...soundKeys(commune.name), ...soundKeys(commune.nameAr)]
    }
    const list = byWilaya.get(commune.wilayaCode)
    if (list === undefined) byWilaya.set(commune.wilayaCode, [indexed])
    else list.push(indexed)
  }

  /** Every commune of the wilaya with its score against `name`, best first (ties in dataset order). */
  const scored = (wilaya: number, name: string) => {
    const keys = soundKeys(name)
    if (keys.length === 0) return []
    return (byWilaya.get(wilaya) ?? [])
      .map((entry) => ({ commune: entry.commune, ...closeness(keys, entry.keys) }))
      .sort((a, b) => b.score - a.score)
  }

  const rank = (wilaya: number, name: string): ReadonlyArray<Candidate<C>> =>
    scored(wilaya, name).map(({ commune, score }) => ({ commune, score }))

  const resolve = (wilaya: number, name: string): Resolution<C> => {
    const key = fold(name)
    const exact = (byWilaya.get(wilaya) ?? []).find((entry) => entry.folded.includes(key))
    if (key !== "" && exact !== undefined) return { _tag: "Matched", commune: exact.commune, exact: true, score: 1 }
    const ranked = scored(wilaya, name)
    const [best, next] = ranked
    const suggestions = ranked
      .filter((candidate) => candidate.score >= SUGGESTION)
      .slice(0, MAX_SUGGESTIONS)
      .map(({ commune, score }) => ({ commune, score }))
    // A name that begins several communes' names (Bir: Bir Mourad Raïs, Bir Touta, Birkhadem), or another commune's
    // than the one that sounds closest (Bir: El Biar), is not one of them: the caller chooses. A name that sounds
    // exactly like a commune's (score 1) is that commune, even when a longer name begins with it.
    const prefixed = ranked.filter((candidate) => candidate.prefix)
    const prefixAmbiguous =
      best !== undefined && best.score < 1 && (prefixed.length >= 2 || prefixed.some((candidate) => candidate !== best))
    if (prefixAmbiguous) return { _tag: "Ambiguous", suggestions }
    if (best === undefined || best.score < CONFIDENT) return { _tag: "Unknown", suggestions }
    if (next !== undefined && best.score - next.score < MARGIN) return { _tag: "Ambiguous", suggestions }
    return { _tag: "Matched", commune: best.commune, exact: false, score: best.score }
  }

  return { resolve, rank }
}

export type CommuneResolver = ReturnType<typeof make>
