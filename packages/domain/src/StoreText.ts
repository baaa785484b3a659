/**
 * Text on the store API: what a caller's string must be for PostgreSQL to keep it exactly as sent.
 *
 * PostgreSQL refuses the NUL character (U+0000) in `text` and in `jsonb` strings (the statement fails: a 500 if it
 * got that far), refuses a lone UTF-16 surrogate (`"\ud800"` without its pair, which JSON can carry) in `jsonb`, and
 * would keep one in `text` as U+FFFD, no longer what was sent. No other character is refused: the other control
 * characters (U+0001 to U+001F, U+007F) are stored and escaped in JSON like any other.
 *
 * So every text field of every store API body is checked with `isStorable` and refused with that field's own answer
 * (docs/store-api.md, "Text inputs"); a query filter matched exactly against stored text matches nothing for such a
 * value (`isStorable` tells), since no stored text holds one. `isStorableJson` is the same rule for a JSON value
 * bound for a `jsonb` column: its strings and its keys.
 */
import { Schema } from "effect"

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether PostgreSQL keeps `text` as sent: no NUL character, no lone surrogate. */
export const isStorable = (text: string): boolean => !text.includes("\u0000") && !LONE_SURROGATE.test(text)

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g")

/**
 * Text nobody can be asked to resend (what a courier reported, pushed or polled) made storable: each NUL character
 * and lone surrogate replaced with U+FFFD, then cut to at most `maxLength` UTF-16 units without splitting a pair (a
 * unique index holds it: PostgreSQL refuses an index entry over about 2.7 kB).
 */
export const toStorable = (text: string, maxLength: number): string => {
  const kept = isStorable(text) ? text : text.replaceAll("\u0000", "\ufffd").replace(LONE_SURROGATES, "\ufffd")
  if (kept.length <= maxLength) return kept
  const last = kept.charCodeAt(maxLength - 1)
  return kept.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLength - 1 : maxLength)
}

/** The check of a text field: `isStorable`, failing with the field's own message when one is given. */
export const storable = (annotations?: Schema.Annotations.Filter) =>
  Schema.makeFilter((text: string) => isStorable(text), {
    expected: "text without NUL characters or lone surrogates",
    ...annotations
  })

/** A string PostgreSQL keeps as sent. */
export const StoreText = Schema.String.check(storable())

/** Whether every string and every key of a JSON value is `isStorable` (a `jsonb` column keeps it as sent). */
export const isStorableJson = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const current = stack.pop()
    if (typeof current === "string") {
      if (!isStorable(current)) return false
    } else if (Array.isArray(current)) {
      for (const child of current) stack.push(child)
    } else if (typeof current === "object" && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (!isStorable(key)) return false
        stack.push(child)
      }
    }
  }
  return true
}
