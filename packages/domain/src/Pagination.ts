/**
 * Cursor pagination of the store API's lists (spec "Pagination rules"): newest first, `limit` 1 to 200 (default
 * 50) adjusted rather than refused, an opaque cursor passed back unchanged, and a malformed cursor silently
 * dropped so the list restarts at the newest record. Every list pages by a descending integer id; the cursor is
 * the last id of the page, base64url-encoded so callers treat it as opaque.
 */
import { Schema, SchemaTransformation } from "effect"
import { MAX_ID } from "./Ids.ts"

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 200

/** The page size a `limit` query value asks for: non-numeric → 50, out of range → clamped to 1..200. */
export const limitOf = (raw: string | number | undefined): number => {
  if (raw === undefined || (typeof raw === "string" && raw.trim() === "")) return DEFAULT_LIMIT
  const parsed = Number(raw)
  if (!Number.isFinite(parsed)) return DEFAULT_LIMIT
  return Math.min(MAX_LIMIT, Math.max(1, Math.trunc(parsed)))
}

/**
 * A list's `limit` query parameter: any text is read (never refused, as the spec asks) and decoded to the page size
 * it asks for, so a caller and the API reference see the integer it is.
 */
export const Limit = Schema.String.pipe(
  Schema.decodeTo(Schema.Int, SchemaTransformation.transform({ decode: limitOf, encode: String }))
)

const PREFIX = "id:"

/** The cursor after a record with this id. */
export const cursorAfter = (id: number): string => Buffer.from(`${PREFIX}${id}`, "utf8").toString("base64url")

/** The id a cursor continues after; `undefined` for an absent or malformed cursor (start at the newest). */
export const afterIdOf = (raw: string | undefined): number | undefined => {
  if (raw === undefined || raw === "" || !/^[A-Za-z0-9_-]+$/.test(raw)) return undefined
  const text = Buffer.from(raw, "base64url").toString("utf8")
  if (!text.startsWith(PREFIX)) return undefined
  const digits = text.slice(PREFIX.length)
  if (!/^[1-9][0-9]{0,9}$/.test(digits)) return undefined
  const id = Number(digits)
  return id <= MAX_ID ? id : undefined
}

/** The list envelope's `data`. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/**
 * A page from the rows of a query that asked for `limit + 1` rows, newest first: the extra row only tells that
 * more exist.
 */
export const page = <Row, A>(
  rows: ReadonlyArray<Row>,
  limit: number,
  idOf: (row: Row) => number,
  render: (row: Row) => A
): Page<A> => {
  const hasMore = rows.length > limit
  const kept = hasMore ? rows.slice(0, limit) : rows
  const last = kept[kept.length - 1]
  return {
    items: kept.map(render),
    next_cursor: hasMore && last !== undefined ? cursorAfter(idOf(last)) : null,
    has_more: hasMore
  }
}
