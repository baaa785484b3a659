/**
 * Field-level values (spec "Change record": `before` is the values replaced, `after` the values written). An update
 * records the fields it changed, not the whole item, so undoing it writes back those fields only and leaves every
 * later change to another field as it is; an undo records the fields it wrote, so the undo of that undo applies them
 * again (undo rule 8).
 *
 * Values are the JSON objects an entity records. A `Layout` says how to read them: which keys stay on both sides
 * whatever changed (the item's identity, context an undo needs), and which keys hold objects written key by key
 * (a design's `colors`, a store's `contact`), of which only the changed keys are recorded. Every other value — a
 * list, a free-form object written whole — is one field.
 */

/** How an entity's recorded values are laid out. */
export interface Layout {
  /** Keys kept on both sides of an update whatever changed: the item's identity, context its undo needs. */
  readonly kept?: ReadonlyArray<string> | undefined
  /** Keys whose values are objects written key by key: only their changed keys are recorded. */
  readonly nested?: ReadonlyArray<string> | undefined
  /** Keys an update never records: a time every write moves (`updated_at`), nothing an undo writes back. */
  readonly ignored?: ReadonlyArray<string> | undefined
}

type Json = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether two JSON values are equal: objects whatever the order of their keys. */
export const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined)
    return (
      keys.length === Object.keys(b).filter((key) => b[key] !== undefined).length &&
      keys.every((key) => key in b && same(a[key], b[key]))
    )
  }
  return false
}

/**
 * What an update replaced and wrote: of its whole `before` and `after`, the fields whose values differ (in a nested
 * object, its keys whose values differ), and the kept ones; never the ignored ones. Values that are not objects are
 * returned as they are.
 */
export const changed = (
  before: unknown,
  after: unknown,
  layout: Layout = {}
): { readonly before: unknown; readonly after: unknown } => {
  if (!isObject(before) || !isObject(after)) return { before, after }
  const replaced: Record<string, unknown> = {}
  const written: Record<string, unknown> = {}
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key]
    const is = after[key]
    if (layout.ignored?.includes(key)) continue
    const kept = layout.kept?.includes(key) === true
    if (!kept && same(was, is)) continue
    if (!kept && layout.nested?.includes(key) && isObject(was) && isObject(is)) {
      const inner = changed(was, is)
      replaced[key] = inner.before
      written[key] = inner.after
      continue
    }
    if (was !== undefined) replaced[key] = was
    if (is !== undefined) written[key] = is
  }
  return { before: replaced, after: written }
}

/**
 * The fields of `whole` that `like` has (in a nested object, the keys it has there): what an undo writing `like`
 * replaced, read before it, and what it wrote, read after. Not an object: `whole` as it is.
 */
export const pick = (whole: unknown, like: unknown, layout: Layout = {}): unknown => {
  if (!isObject(whole) || !isObject(like)) return whole
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(like)) {
    if (!(key in whole)) continue
    picked[key] =
      layout.nested?.includes(key) && isObject(like[key]) ? pick(whole[key], like[key]) : (whole[key] as unknown)
  }
  return picked
}
