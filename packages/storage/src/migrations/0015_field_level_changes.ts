import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The change history records what a change replaced and wrote, field by field (`@tawsil/changes`, `Fields`): an
 * update the fields it changed, an undo the fields it wrote. Rows written before recorded whole items (settings,
 * design, theme, home sections and layout, promo codes, pixels, categories, landing page sections, shipping
 * settings) or, for an undo of stock or rates, the product's every quantity and the whole rate table. This rewrites
 * every recorded update of those into the new form — the fields whose values differ between its `before` and its
 * `after`, which is exactly what it changed — so that one form is left in the table and an old change's undo writes
 * back only what that change wrote, as a new one's does. Creates, deletes, a sync's `before` and changes whose
 * values were not recorded are left as they are (their form has not changed).
 *
 * The rules are written out here, as they are at this migration, rather than imported: a migration must mean the
 * same thing whenever it runs. (`shipping_rate_sync_undos` and `shipping_settings.rates_revision` are no longer used
 * from this release on; they stay, so that an instance of the previous release still running beside a newer one
 * keeps working, and a later migration drops them.)
 */

type Json = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const same = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && same(a[key], b[key]))
  }
  return false
}

interface Layout {
  readonly kept?: ReadonlyArray<string>
  readonly nested?: ReadonlyArray<string>
  readonly ignored?: ReadonlyArray<string>
}

/** The fields whose values differ (nested objects key by key), the kept ones, never the ignored ones. */
const changed = (before: Json, after: Json, layout: Layout): { before: Json; after: Json } => {
  const replaced: Record<string, unknown> = {}
  const written: Record<string, unknown> = {}
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (layout.ignored?.includes(key)) continue
    const was = before[key]
    const is = after[key]
    const kept = layout.kept?.includes(key) === true
    if (!kept && same(was, is)) continue
    if (!kept && layout.nested?.includes(key) && isObject(was) && isObject(is)) {
      const inner = changed(was, is, {})
      replaced[key] = inner.before
      written[key] = inner.after
      continue
    }
    if (was !== undefined) replaced[key] = was
    if (is !== undefined) written[key] = is
  }
  return { before: replaced, after: written }
}

const LAYOUTS: Readonly<Record<string, Layout>> = {
  "store.settings": { nested: ["contact", "social_links", "currency"] },
  "store.design": { kept: ["is_digital"], nested: ["colors"] },
  "store.theme": { nested: ["colors"] },
  "store.home_sections": {
    nested: ["hero", "categories", "featured_products", "testimonials", "faq", "trust_badges"]
  },
  "store.home_layout": {},
  promo_code: { kept: ["id"], ignored: ["updated_at"] },
  pixels: { kept: ["id", "default_pixel_id"], ignored: ["updated_at"] },
  category: { kept: ["id"], ignored: ["updated_at"] },
  "lp.section": { kept: ["id", "landing_page_id"], ignored: ["updated_at"] },
  "shipping.settings": { ignored: ["updated_at"] }
}

interface Option {
  readonly option_id: number
  readonly stock: number | null
}

/** Stock: the product's quantity when it differs, and the options (by id) whose quantity differs. */
const stockChanged = (before: Json, after: Json) => {
  const options = (values: Json) => (Array.isArray(values.variants) ? (values.variants as Array<Option>) : [])
  const moved = options(after).filter(
    (option) => !same(options(before).find((was) => was.option_id === option.option_id)?.stock, option.stock)
  )
  const ids = new Set(moved.map((option) => option.option_id))
  const side = (values: Json) => ({
    product_id: values.product_id,
    ...("stock" in before && "stock" in after && !same(before.stock, after.stock) ? { stock: values.stock } : {}),
    variants: options(values).filter((option) => ids.has(option.option_id))
  })
  return { before: side(before), after: side(after) }
}

interface Rate {
  readonly wilaya_id: number
  readonly home_price: number | null
  readonly desk_price: number | null
}

/** Rates: the wilayas whose prices differ, priced in `rates`, the others `absent`; no `revision`. */
const ratesChanged = (before: Json, after: Json) => {
  const prices = (values: Json) => {
    const byWilaya = new Map<number, Rate>()
    for (const rate of Array.isArray(values.rates) ? (values.rates as Array<Rate>) : []) {
      byWilaya.set(rate.wilaya_id, rate)
    }
    return byWilaya
  }
  const was = prices(before)
  const is = prices(after)
  const listed = (values: Json) => [
    ...(Array.isArray(values.rates) ? (values.rates as Array<Rate>).map((rate) => rate.wilaya_id) : []),
    ...(Array.isArray(values.absent) ? (values.absent as Array<number>) : [])
  ]
  const wilayas = [...new Set([...listed(before), ...listed(after)])]
    .filter((wilaya) => !same(was.get(wilaya) ?? null, is.get(wilaya) ?? null))
    .sort((a, b) => a - b)
  const side = (byWilaya: ReadonlyMap<number, Rate>) => ({
    rates: wilayas.flatMap((wilaya) => {
      const rate = byWilaya.get(wilaya)
      return rate === undefined ? [] : [rate]
    }),
    absent: wilayas.filter((wilaya) => !byWilaya.has(wilaya))
  })
  return { before: side(was), after: side(is) }
}

/** An update's values in the field-level form; undefined for an entity whose form did not change. */
export const fieldLevel = (
  entity: string,
  before: unknown,
  after: unknown
): { readonly before: Json; readonly after: Json } | undefined => {
  if (!isObject(before) || !isObject(after)) return undefined
  if (entity === "stock") return stockChanged(before, after)
  if (entity === "shipping.rates") return ratesChanged(before, after)
  const layout = LAYOUTS[entity]
  return layout === undefined ? undefined : changed(before, after, layout)
}

const BATCH = 500

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let last = 0
  while (true) {
    const rows = yield* sql<{
      readonly id: number
      readonly entity: string
      readonly before: unknown
      readonly after: unknown
    }>`
      SELECT id, entity, before, after FROM changes
      WHERE id > ${last} AND action = 'update' AND values_recorded AND before IS NOT NULL AND after IS NOT NULL
      ORDER BY id
      LIMIT ${BATCH}`
    if (rows.length === 0) return
    for (const row of rows) {
      const values = fieldLevel(row.entity, row.before, row.after)
      if (values === undefined || (same(values.before, row.before) && same(values.after, row.after))) continue
      yield* sql`
        UPDATE changes SET before = ${JSON.stringify(values.before)}::jsonb, after = ${JSON.stringify(values.after)}::jsonb
        WHERE id = ${row.id}`
    }
    last = rows[rows.length - 1]!.id
  }
})
