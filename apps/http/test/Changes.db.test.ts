/**
 * The change history and undo over a socket, on each database (spec store-api-config "Change history", "Undo
 * rules"): an undo that touches the database's own rows (a deleted pixel's assignments), 50 simultaneous undos of one
 * change, and two properties:
 *
 * - any sequence of writes of every recorded entity (promo codes, pixels, the store's settings, design, home sections
 *   and layout, categories, stock, landing page sections, shipping rates and settings, a courier rate sync), undone
 *   newest first, restores the exact starting state as the database keeps it;
 * - any sequence of writes, deletes, undos and undos of undos over the twelve recorded entities ends in the state a
 *   model of the spec's rules computes (`ChangeHistoryModel.ts`), every undo answering what the model says.
 *
 * Every other rule and code of the change endpoints is tested in memory (`store/Changes.test.ts`); each entity's
 * undo and the undo of its undo, with a later change between, in `UndoRules.db.test.ts`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { Model, type Outcome } from "./ChangeHistoryModel.ts"
import { type Client, codeOf, dashboardStore } from "./ConfigHarness.ts"
import * as CatalogueWrites from "./catalogue/CatalogueWrites.ts"
import * as SectionWrites from "./landing-page-sections/SectionWrites.ts"
import { backends, sql, storeServer } from "./StoreHarness.ts"
import * as ConfigWrites from "./store-config/ConfigWrites.ts"
import * as ShippingWrites from "./store-shipping/Writes.ts"

/** Runs a statement on the server's database (the dashboard's writes, a fixture). */
const exec = <A>(statement: (client: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(sql, (client) => Effect.orDie(statement(client)))

/** The newest change of the store. */
const newest = (c: Client) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

const promo = { code: "SPRING", discount_type: "fixed", discount_value: 400 }

/** What the API shows of a store's promo codes and pixels, without the times every write moves. */
const stateOf = (c: Client) =>
  Effect.gen(function* () {
    const strip = ({ updated_at: _, ...item }: Record<string, unknown>) => item
    const promos = (yield* c.get("/v1/promo-codes?limit=200")).body.data.items.map(strip)
    const pixels = (yield* c.get("/v1/pixels?limit=200")).body.data.items.map(strip)
    return { promos, pixels }
  })

// --- the property's writes ----------------------------------------------------------------------------------

type Write =
  | { readonly kind: "promo"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "promoDelete"; readonly index: number }
  | { readonly kind: "pixel"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "pixelDelete"; readonly index: number }
  | { readonly kind: "config"; readonly write: ConfigWrites.ConfigWrite }
  | { readonly kind: "catalogue"; readonly write: CatalogueWrites.CatalogueWrite }
  | { readonly kind: "section"; readonly write: SectionWrites.SectionWrite }
  | { readonly kind: "shipping"; readonly write: ShippingWrites.ShippingWrite }

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

const promoBody = fc
  .record(
    {
      code: fc.constantFrom("ALPHA", "BETA", "GAMMA", "DELTA"),
      discount: fc.oneof(
        fc.record({ discount_type: fc.constant("percentage"), discount_value: fc.integer({ min: 1, max: 99 }) }),
        fc.record({ discount_type: fc.constant("fixed"), discount_value: fc.integer({ min: 1, max: 5000 }) }),
        fc.constant({ discount_type: "percentage", discount_value: 100, confirm_full_discount: true })
      ),
      min_order_amount: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 10_000 })),
      max_uses: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 100 })),
      is_active: fc.boolean(),
      starts_at: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 30 }).map(inDays)),
      expires_at: fc.oneof(fc.constant(null), fc.integer({ min: 31, max: 365 }).map(inDays))
    },
    { requiredKeys: [] }
  )
  .filter((body) => Object.keys(body).length > 0)
  .map(({ discount, ...rest }) => ({ ...rest, ...(discount ?? {}) }))

const pixelBody = fc
  .record(
    {
      pixel_name: fc.oneof(fc.constant(null), fc.constantFrom("Main", "Retargeting", "")),
      ad_account_id: fc.oneof(fc.constant(null), fc.constantFrom("549755885175", "549755885176")),
      conversion_label: fc.oneof(fc.constant(null), fc.constantFrom("AbC-123", "purchase")),
      is_active: fc.boolean(),
      is_default: fc.boolean()
    },
    { requiredKeys: [] }
  )
  .filter((body) => Object.keys(body).length > 0)

const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("promo" as const), index: fc.nat(2), body: promoBody }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("promoDelete" as const), index: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("pixel" as const), index: fc.nat(2), body: pixelBody }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("pixelDelete" as const), index: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("config" as const), write: ConfigWrites.configWrite }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("catalogue" as const), write: CatalogueWrites.catalogueWrite })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("section" as const), write: SectionWrites.sectionWrite }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("shipping" as const), write: ShippingWrites.arbitrary }) }
)

/** A store with three promo codes and three pixels (two of one type, one the default). */
const seeded = Effect.gen(function* () {
  const { dashboard } = yield* dashboardStore()
  const promos: Array<number> = []
  for (const body of [
    { code: "ALPHA", discount_type: "percentage", discount_value: 10 },
    { code: "BETA", discount_type: "fixed", discount_value: 250, max_uses: 20, min_order_amount: 1000 },
    { code: "GAMMA", discount_type: "percentage", discount_value: 5, is_active: false, expires_at: inDays(200) }
  ]) {
    promos.push((yield* dashboard.write("POST", "/v1/promo-codes", body)).body.data.id)
  }
  const pixels: Array<number> = []
  for (const body of [
    { pixel_type: "google_ads", pixel_id: "AW-111111111", is_default: true, conversion_label: "lead" },
    { pixel_type: "google_ads", pixel_id: "AW-222222222", pixel_name: "Second" },
    { pixel_type: "pinterest", pixel_id: "2612345678901", is_default: true, ad_account_id: "549755885170" }
  ]) {
    pixels.push((yield* dashboard.write("POST", "/v1/pixels", body)).body.data.id)
  }
  const request = CatalogueWrites.requestOf(dashboard)
  const catalogue = yield* CatalogueWrites.seed(request)
  const sections = yield* SectionWrites.seed(SectionWrites.requestOf(dashboard))
  yield* ShippingWrites.seed(dashboard)
  return { dashboard, promos, pixels, catalogue, sections }
})

/** Everything the property compares: each entity as the API shows it (reads that skip the read cache). */
const everything = (seed: Effect.Success<typeof seeded>) =>
  Effect.gen(function* () {
    const { dashboard } = seed
    return {
      configuration: yield* stateOf(dashboard),
      store: yield* ConfigWrites.stateOf(ConfigWrites.requestOf(dashboard)),
      catalogue: yield* CatalogueWrites.stateOf(CatalogueWrites.requestOf(dashboard), seed.catalogue),
      sections: yield* SectionWrites.stateOf(SectionWrites.requestOf(dashboard), seed.sections),
      shipping: yield* ShippingWrites.stateOf(dashboard)
    }
  })

/** How many changes the property's runs undid: it must not hold only because every write was refused. */
let undoneInAllRuns = 0
/** The entities those changes were of: the property must reach every recorded entity. */
const undoneEntities = new Set<string>()

const run = (writes: ReadonlyArray<Write>) =>
  Effect.gen(function* () {
    const seed = yield* seeded
    const { dashboard, promos, pixels } = seed
    const before = yield* everything(seed)
    const since = (yield* newest(dashboard)).id as number
    for (const step of writes) {
      if (step.kind === "promo") yield* dashboard.write("PATCH", `/v1/promo-codes/${promos[step.index]}`, step.body)
      if (step.kind === "promoDelete") yield* dashboard.write("DELETE", `/v1/promo-codes/${promos[step.index]}`)
      if (step.kind === "pixel") yield* dashboard.write("PATCH", `/v1/pixels/${pixels[step.index]}`, step.body)
      if (step.kind === "pixelDelete") yield* dashboard.write("DELETE", `/v1/pixels/${pixels[step.index]}`)
      if (step.kind === "config") yield* ConfigWrites.applyWrite(ConfigWrites.requestOf(dashboard), step.write)
      if (step.kind === "catalogue") {
        yield* CatalogueWrites.applyWrite(CatalogueWrites.requestOf(dashboard), seed.catalogue, step.write)
      }
      if (step.kind === "section") {
        yield* SectionWrites.applyWrite(SectionWrites.requestOf(dashboard), seed.sections, step.write)
      }
      if (step.kind === "shipping") yield* ShippingWrites.write(dashboard, step.write)
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    undoneInAllRuns += recorded.length
    for (const change of recorded) undoneEntities.add(change.entity)
    for (const change of recorded) {
      const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      if (undone.status !== 200) return `undo of #${change.id} (${change.summary}) answered ${undone.text}`
    }
    const after = yield* everything(seed)
    assert.deepStrictEqual(after, before)
    return true
  })

// --- the model's property: writes, deletes, undos and undos of undos over the twelve entities ---------------------

/** The items the model property writes on, by the ids the seed gave them. */
interface ModelStore {
  readonly dashboard: Client
  readonly promos: ReadonlyArray<number>
  readonly pixels: ReadonlyArray<number>
  readonly categories: ReadonlyArray<number>
  readonly product: number
  readonly option: number
  readonly page: number
  readonly sections: ReadonlyArray<number>
}

let modelReads = 0
/** A read of `path` with a query string of its own (the read cache never answers it). */
const fresh = (c: Client, path: string) => c.get(`${path}?model=${++modelReads}`)

/** What the API shows of everything the model writes, read once. */
const viewOf = (store: ModelStore) =>
  Effect.gen(function* () {
    const c = store.dashboard
    const data = (answer: { readonly status: number; readonly body: { readonly data?: unknown } }) =>
      // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
      (answer.status === 200 ? answer.body.data : undefined) as any
    const categories = new Map<number, unknown>()
    for (const id of store.categories) categories.set(id, data(yield* c.get(`/v1/categories/${id}`)))
    return {
      settings: data(yield* fresh(c, "/v1/store")),
      design: data(yield* fresh(c, "/v1/store/design")),
      sections: data(yield* fresh(c, "/v1/store/home-sections")),
      layout: data(yield* fresh(c, "/v1/store/home-layout")).sections.map(
        (section: { id: number; enabled: boolean }) => ({ id: section.id, enabled: section.enabled })
      ),
      categories,
      stock: data(yield* c.get(`/v1/products/${store.product}/stock`)),
      promos: data(yield* c.get("/v1/promo-codes?limit=200")).items,
      pixels: data(yield* c.get("/v1/pixels?limit=200")).items,
      rates: data(yield* c.get("/v1/shipping/rates")).items,
      shipping: data(yield* c.get("/v1/shipping/settings")),
      lpSections: data(yield* c.get(`/v1/landing-pages/${store.page}/sections`)).items
    }
  })
type View = Effect.Success<ReturnType<typeof viewOf>>

/** One field the model tracks: its values, the body fragment that writes one, and where the API shows it. */
interface Field {
  readonly name: string
  readonly values: ReadonlyArray<unknown>
  readonly body: (value: unknown) => Record<string, unknown>
  readonly read: (view: View) => unknown
}

/** One item and the endpoint that writes its fields (a PATCH sends any of them; the theme's switches one each). */
interface Group {
  readonly entity: string
  readonly item: string
  readonly path: string
  readonly method: "PATCH" | "POST"
  readonly fields: ReadonlyArray<Field>
  /** Deletable items: the path of their DELETE. */
  readonly deletePath?: string | undefined
}

const byId = <T extends { readonly id: number }>(items: ReadonlyArray<T>, id: number) =>
  items.find((item) => item.id === id)

/** The twelve entities' writes the model follows (the home layout apart: `layoutStep`). */
const groupsOf = (store: ModelStore): ReadonlyArray<Group> => {
  const promo = (index: number): Group => {
    const id = store.promos[index]!
    const read = (field: string) => (view: View) => (byId(view.promos, id) as Record<string, unknown>)?.[field]
    return {
      entity: "promo_code",
      item: `promo${index}`,
      path: `/v1/promo-codes/${id}`,
      method: "PATCH",
      deletePath: `/v1/promo-codes/${id}`,
      fields: [
        { name: "max_uses", values: [null, 5, 20], body: (v) => ({ max_uses: v }), read: read("max_uses") },
        { name: "is_active", values: [true, false], body: (v) => ({ is_active: v }), read: read("is_active") }
      ]
    }
  }
  const pixel = (index: number): Group => {
    const id = store.pixels[index]!
    const read = (field: string) => (view: View) => (byId(view.pixels, id) as Record<string, unknown>)?.[field]
    return {
      entity: "pixels",
      item: `pixel${index}`,
      path: `/v1/pixels/${id}`,
      method: "PATCH",
      deletePath: `/v1/pixels/${id}`,
      fields: [
        {
          name: "pixel_name",
          values: [null, "Principal", "Relance"],
          body: (v) => ({ pixel_name: v }),
          read: read("pixel_name")
        },
        {
          name: "ad_account_id",
          values: [null, "549755885175"],
          body: (v) => ({ ad_account_id: v }),
          read: read("ad_account_id")
        },
        { name: "is_active", values: [true, false], body: (v) => ({ is_active: v }), read: read("is_active") }
      ]
    }
  }
  const category = (index: number, names: ReadonlyArray<string>): Group => {
    const id = store.categories[index]!
    const read = (field: string) => (view: View) => (view.categories.get(id) as Record<string, unknown>)?.[field]
    return {
      entity: "category",
      item: `category${index}`,
      path: `/v1/categories/${id}`,
      method: "PATCH",
      deletePath: `/v1/categories/${id}`,
      fields: [
        { name: "name", values: names, body: (v) => ({ name: v }), read: read("name") },
        { name: "description", values: [null, "Soie"], body: (v) => ({ description: v }), read: read("description") }
      ]
    }
  }
  const section = (index: number): Group => {
    const id = store.sections[index]!
    const read = (field: string) => (view: View) => (byId(view.lpSections, id) as Record<string, unknown>)?.[field]
    return {
      entity: "lp.section",
      item: `section${index}`,
      path: `/v1/landing-pages/${store.page}/sections/${id}`,
      method: "PATCH",
      fields: [
        { name: "is_visible", values: [true, false], body: (v) => ({ is_visible: v }), read: read("is_visible") },
        {
          name: "settings",
          values: [{ t: 1 }, { t: 2 }, {}],
          body: (v) => ({ settings: v }),
          read: read("settings")
        }
      ]
    }
  }
  const switchOf = (name: string, path: string, send: string, values: ReadonlyArray<string>): Group => ({
    entity: "store.theme",
    item: "theme",
    path,
    method: "POST",
    fields: [{ name, values, body: (v) => ({ [send]: v }), read: (view) => view.design[name] }]
  })
  const rate = (wilaya: number) => ({
    name: `home_price_${wilaya}`,
    values: [null, 400, 500],
    body: (v: unknown) => ({ rates: [{ wilaya_id: wilaya, home_price: v }] }),
    read: (view: View) =>
      (view.rates.find((item: { wilaya_id: number }) => item.wilaya_id === wilaya) as { home_price: unknown })
        ?.home_price ?? null
  })
  return [
    promo(0),
    promo(1),
    pixel(0),
    pixel(1),
    category(0, ["Robes", "Caftans"]),
    category(1, ["Bijoux", "Parures"]),
    section(0),
    section(1),
    switchOf("theme", "/v1/store/theme", "theme", ["classic", "souk", "atlas"]),
    switchOf("fast_checkout_theme", "/v1/store/fast-checkout-theme", "theme", ["classic", "compact", "stepper"]),
    switchOf("variant_card_style", "/v1/store/variant-style", "style", ["default", "minimal", "clay"]),
    {
      entity: "store.settings",
      item: "settings",
      path: "/v1/store",
      method: "PATCH",
      fields: [
        {
          name: "name",
          values: ["Maison Tlemcen", "دار الحرف"],
          body: (v) => ({ name: v }),
          read: (view) => view.settings.name
        },
        {
          name: "contact.phone",
          values: [null, "0555112233", "0661002200"],
          body: (v) => ({ contact: { phone: v } }),
          read: (view) => view.settings.contact.phone
        },
        {
          name: "contact.email",
          values: [null, "contact@boutique.dz"],
          body: (v) => ({ contact: { email: v } }),
          read: (view) => view.settings.contact.email
        }
      ]
    },
    {
      entity: "store.design",
      item: "design",
      path: "/v1/store/design",
      method: "PATCH",
      fields: [
        {
          name: "border_radius",
          values: [8, 12, 16],
          body: (v) => ({ border_radius: v }),
          read: (view) => view.design.border_radius
        },
        {
          name: "font_family",
          values: ["Cairo", "Tajawal"],
          body: (v) => ({ font_family: v }),
          read: (view) => view.design.font_family
        },
        {
          name: "colors.text_color",
          values: [null, "#111111", "#333333"],
          body: (v) => ({ colors: { text_color: v } }),
          read: (view) => view.design.colors.text_color
        }
      ]
    },
    {
      entity: "store.home_sections",
      item: "home_sections",
      path: "/v1/store/home-sections",
      method: "PATCH",
      fields: [
        {
          name: "hero.title",
          values: [null, "Soldes", "تخفيضات"],
          body: (v) => ({ hero: { title: v } }),
          read: (view) => view.sections.hero.title
        },
        {
          name: "faq.enabled",
          values: [true, false],
          body: (v) => ({ faq: { enabled: v } }),
          read: (view) => view.sections.faq.enabled
        }
      ]
    },
    {
      entity: "stock",
      item: "stock",
      path: `/v1/products/${store.product}/stock`,
      method: "POST",
      fields: [
        { name: "stock", values: [10, 40, 0], body: (v) => ({ stock: v }), read: (view) => view.stock.stock },
        {
          name: "option",
          values: [5, 7, 0],
          body: (v) => ({ variants: [{ option_id: store.option, stock: v }] }),
          read: (view) =>
            view.stock.variants.find((variant: { option_id: number }) => variant.option_id === store.option).stock
        }
      ]
    },
    {
      entity: "shipping.rates",
      item: "rates",
      path: "/v1/shipping/rates",
      method: "POST",
      fields: [rate(16), rate(31)]
    },
    {
      entity: "shipping.settings",
      item: "shipping",
      path: "/v1/shipping/settings",
      method: "PATCH",
      fields: [
        {
          name: "cod_fee_payer",
          values: ["merchant", "customer"],
          body: (v) => ({ cod_fee_payer: v }),
          read: (view) => view.shipping.cod_fee_payer
        },
        {
          name: "default_delivery_type",
          values: ["home", "desk"],
          body: (v) => ({ default_delivery_type: v }),
          read: (view) => view.shipping.default_delivery_type
        }
      ]
    }
  ]
}

/** Two bodies as one: objects key by key, lists one after the other. */
const merged = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...a }
  for (const [key, value] of Object.entries(b)) {
    const was = out[key]
    out[key] =
      Array.isArray(was) && Array.isArray(value)
        ? [...was, ...value]
        : typeof was === "object" && was !== null && typeof value === "object" && value !== null
          ? merged(was as Record<string, unknown>, value as Record<string, unknown>)
          : value
  }
  return out
}

type Step =
  | { readonly kind: "write"; readonly group: number; readonly fields: ReadonlyArray<number>; readonly pick: number }
  | { readonly kind: "delete"; readonly group: number; readonly recent: boolean }
  | { readonly kind: "layout"; readonly op: "add" | "toggle" | "remove"; readonly index: number }
  | { readonly kind: "undo"; readonly pick: number; readonly recent: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      group: fc.nat(),
      fields: fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 2 }),
      pick: fc.nat()
    })
  },
  // A delete, often of the item written last (whose update's undo then finds it gone).
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("delete" as const), group: fc.nat(), recent: fc.boolean() })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("layout" as const),
      op: fc.constantFrom("add" as const, "toggle" as const, "remove" as const),
      index: fc.nat()
    })
  },
  // Undos pick among every change recorded so far, undos included (undos of undos, refused ones), often among the
  // last three, where undos of undos and the layout's later changes are.
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant("undo" as const), pick: fc.nat(), recent: fc.boolean() })
  }
)

/** A store with two promo codes, two pixels, two categories, a product, a landing page with two sections. */
const modelStore = Effect.gen(function* () {
  const { dashboard } = yield* dashboardStore()
  const id = (answer: { readonly body: { readonly data: { readonly id: number } } }) => answer.body.data.id
  const promos = [
    id(yield* dashboard.write("POST", "/v1/promo-codes", { code: "ALPHA", discount_type: "fixed", discount_value: 1 })),
    id(yield* dashboard.write("POST", "/v1/promo-codes", { code: "BETA", discount_type: "fixed", discount_value: 2 }))
  ]
  const pixels = [
    id(yield* dashboard.write("POST", "/v1/pixels", { pixel_type: "tiktok", pixel_id: "CMODEL0000001" })),
    id(yield* dashboard.write("POST", "/v1/pixels", { pixel_type: "snapchat", pixel_id: "model-pixel-2" }))
  ]
  const categories = [
    id(yield* dashboard.write("POST", "/v1/categories", { name: "Robes" })),
    id(yield* dashboard.write("POST", "/v1/categories", { name: "Bijoux" }))
  ]
  const product = (yield* dashboard.write("POST", "/v1/products", {
    name: "Robe kabyle",
    price: 4500,
    stock: 10,
    variant_groups: [{ name: "Taille", type: "text", options: [{ value: "M", stock: 5 }] }]
  })).body.data
  const page = id(yield* dashboard.write("POST", "/v1/landing-pages", { title: "Montre connectée" }))
  const sections = [
    id(yield* dashboard.write("POST", `/v1/landing-pages/${page}/sections`, { type: "faq", settings: { t: 1 } })),
    id(yield* dashboard.write("POST", `/v1/landing-pages/${page}/sections`, { type: "hero", settings: {} }))
  ]
  yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 400 }] })
  return {
    dashboard,
    promos,
    pixels,
    categories,
    product: product.id as number,
    option: product.variant_groups[0].options[0].id as number,
    page,
    sections
  } satisfies ModelStore
})

type ModelRun = typeof modelRunArbitrary extends fc.Arbitrary<infer R> ? R : never

/**
 * Runs the property makes first: the issue's cases — a design radius and a stock count written again between a
 * change and the undo of its undo; a layout change re-applied before an older one's undo; a delete's undo undone;
 * an update undone after its item's delete. (`focus` [12, 14] is the design and stock groups: `group` 2 and 1.)
 */
const issueRuns: ReadonlyArray<ModelRun> = [
  {
    focus: [12, 14],
    steps: [
      { kind: "write", group: 2, fields: [0], pick: 1 },
      { kind: "write", group: 2, fields: [0], pick: 2 },
      { kind: "undo", pick: 1, recent: true },
      { kind: "undo", pick: 0, recent: true },
      { kind: "write", group: 1, fields: [0], pick: 1 },
      { kind: "write", group: 1, fields: [0], pick: 2 },
      { kind: "undo", pick: 1, recent: true },
      { kind: "undo", pick: 0, recent: true }
    ]
  },
  {
    focus: [12, 14],
    steps: [
      { kind: "layout", op: "add", index: 0 },
      { kind: "layout", op: "toggle", index: 0 },
      { kind: "undo", pick: 0, recent: true },
      { kind: "undo", pick: 0, recent: true },
      { kind: "undo", pick: 0, recent: false }
    ]
  },
  {
    focus: [0, 1],
    steps: [
      { kind: "delete", group: 0, recent: false },
      { kind: "undo", pick: 0, recent: true },
      { kind: "undo", pick: 0, recent: true },
      { kind: "write", group: 0, fields: [0], pick: 1 },
      { kind: "delete", group: 0, recent: true },
      { kind: "undo", pick: 1, recent: true }
    ]
  }
]

/** How many undos the model's runs answered 200, and with which refusals the others were met. */
const modelOutcomes = new Map<string, number>()

/** One run: the steps on a fresh store and on the model, each undo's answer compared, then the whole state. */
/** How many groups `groupsOf` gives: a run's writes go mostly to a few of them, so that they meet on fields. */
const GROUPS = 17

/** A run: its steps, and the few groups most of its writes go to. */
const modelRunArbitrary = fc.record({
  focus: fc.uniqueArray(fc.nat(GROUPS - 1), { minLength: 2, maxLength: 3 }),
  steps: fc.array(step, { minLength: 6, maxLength: 24 })
})

const modelRun = ({ focus, steps }: ModelRun) =>
  Effect.gen(function* () {
    const store = yield* modelStore
    const c = store.dashboard
    const groups = groupsOf(store)
    assert.strictEqual(groups.length, GROUPS)
    const start = yield* viewOf(store)
    const fields = new Map<string, ReadonlyArray<string>>()
    const state = new Map<string, unknown>()
    for (const group of groups) {
      const keys = group.fields.map((field) => `${group.item}.${field.name}`)
      fields.set(group.item, [...(fields.get(group.item) ?? []), ...keys])
      for (const field of group.fields) state.set(`${group.item}.${field.name}`, field.read(start))
    }
    fields.set("layout", ["layout.sections"])
    state.set("layout.sections", start.layout)
    const model = new Model(fields, state, new Set(["layout"]))
    /** The real id of each change of the model, by its index. */
    const ids: Array<number> = []
    const trace: Array<string> = []
    const newestId = Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0]?.id as number)
    let last = yield* newestId
    let nextSection = Math.max(0, ...start.layout.map((section: { id: number }) => section.id)) + 1
    let lastWritten: Group | undefined

    /** After a write the model expected to record `expected` (or maybe record, when it changed nothing). */
    const recorded = (item: string, expected: ReturnType<Model["write"]>, answer: { status: number; text: string }) =>
      Effect.gen(function* () {
        if (answer.status >= 300) return `${trace.at(-1)} answered ${answer.text}`
        const now = yield* newestId
        if (now === last && expected !== undefined) return `${trace.at(-1)} changed values but recorded nothing`
        if (now !== last) {
          if (expected === undefined) model.recordUnchanged(item)
          ids.push(now)
          last = now
        }
        return undefined
      })

    for (const next of steps) {
      if (next.kind === "undo") {
        if (model.changes.length === 0) continue
        const count = model.changes.length
        const index = next.recent ? count - 1 - (next.pick % Math.min(count, 3)) : next.pick % count
        trace.push(`undo of change ${index} (#${ids[index]})`)
        const expected: Outcome = model.undo(index)
        const answer = yield* c.write("POST", `/v1/changes/${ids[index]}/undo`)
        const got = answer.status === 200 ? { status: 200 } : { status: answer.status, code: answer.body.error?.code }
        if (JSON.stringify(got) !== JSON.stringify(expected)) {
          return `${trace.join("; ")}: expected ${JSON.stringify(expected)}, answered ${answer.text}`
        }
        const outcome = answer.status === 200 ? "200" : String(answer.body.error.code)
        modelOutcomes.set(outcome, (modelOutcomes.get(outcome) ?? 0) + 1)
        if (answer.status === 200) {
          ids.push(answer.body.data.undo_change_id)
          last = answer.body.data.undo_change_id
        }
        continue
      }
      if (next.kind === "layout") {
        const sections = model.value("layout.sections") as ReadonlyArray<{ id: number; enabled: boolean }>
        const target = sections[next.index % Math.max(sections.length, 1)]
        let answer: { status: number; text: string }
        let written: ReadonlyArray<{ id: number; enabled: boolean }>
        if (next.op === "add" || target === undefined) {
          trace.push("layout add")
          answer = yield* c.write("POST", "/v1/store/home-layout/sections", { type: "categories" })
          written = [...sections, { id: nextSection++, enabled: true }]
        } else if (next.op === "toggle") {
          trace.push(`layout toggle #${target.id}`)
          answer = yield* c.write("PATCH", `/v1/store/home-layout/sections/${target.id}`, { enabled: !target.enabled })
          written = sections.map((s) => (s.id === target.id ? { ...s, enabled: !s.enabled } : s))
        } else {
          trace.push(`layout remove #${target.id}`)
          answer = yield* c.write("DELETE", `/v1/store/home-layout/sections/${target.id}`)
          written = sections.filter((s) => s.id !== target.id)
        }
        const refused = yield* recorded(
          "layout",
          model.write("layout", new Map([["layout.sections", written]])),
          answer
        )
        if (refused !== undefined) return refused
        continue
      }
      if (next.kind === "delete") {
        const deletable = groups.filter((each) => each.deletePath !== undefined)
        const group =
          next.recent && lastWritten?.deletePath !== undefined ? lastWritten : deletable[next.group % deletable.length]!
        trace.push(`delete ${group.item}`)
        const answer = yield* c.write("DELETE", group.deletePath!)
        if (!model.present(group.item)) {
          if (answer.status !== 404) return `${trace.join("; ")}: expected 404, answered ${answer.text}`
          continue
        }
        if (answer.status !== 200) return `${trace.join("; ")}: answered ${answer.text}`
        model.remove(group.item)
        const now = yield* newestId
        ids.push(now)
        last = now
        continue
      }
      // Four writes in five go to the run's few groups, the fifth to any.
      const group = groups[next.group % 5 === 0 ? next.group % groups.length : focus[next.group % focus.length]!]!
      lastWritten = group
      const chosen = [...new Set(next.fields.map((index) => group.fields[index % group.fields.length]!))]
      // A switch writes one choice; other groups any of their fields at once.
      const writes = group.method === "POST" && group.entity === "store.theme" ? chosen.slice(0, 1) : chosen
      const assignments = new Map<string, unknown>()
      let body: Record<string, unknown> = {}
      for (const [n, field] of writes.entries()) {
        const value = field.values[(next.pick + n) % field.values.length]
        assignments.set(`${group.item}.${field.name}`, value)
        body = merged(body, field.body(value))
      }
      trace.push(`${group.method} ${group.path} ${JSON.stringify(body)}`)
      const answer = yield* c.write(group.method, group.path, body)
      if (!model.present(group.item)) {
        if (answer.status !== 404) return `${trace.join("; ")}: expected 404, answered ${answer.text}`
        continue
      }
      const refused = yield* recorded(group.item, model.write(group.item, assignments), answer)
      if (refused !== undefined) return `${trace.join("; ")}: ${refused}`
    }

    const end = yield* viewOf(store)
    for (const group of groups) {
      for (const field of group.fields) {
        const key = `${group.item}.${field.name}`
        const shown = model.present(group.item) ? field.read(end) : undefined
        const expected = model.present(group.item) ? model.value(key) : undefined
        if (JSON.stringify(shown) !== JSON.stringify(expected)) {
          return `${trace.join("; ")}: ${key} reads ${JSON.stringify(shown)}, the model says ${JSON.stringify(expected)}`
        }
      }
    }
    if (JSON.stringify(end.layout) !== JSON.stringify(model.value("layout.sections"))) {
      return `${trace.join("; ")}: the layout reads ${JSON.stringify(end.layout)}, the model says ${JSON.stringify(model.value("layout.sections"))}`
    }
    return true
  })

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `change history (${backend.name})`,
    (it) => {
      it.effect(
        "pixels: an update's undo keeps the token and gives the default back; a delete's returns without token",
        () =>
          Effect.gen(function* () {
            const { dashboard } = yield* dashboardStore()
            const add = (body: object) => Effect.map(dashboard.write("POST", "/v1/pixels", body), (a) => a.body.data)
            const a = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHI", is_default: true })
            const b = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHJ", access_token: "tt_1" })
            yield* exec(
              (client) =>
                client`INSERT INTO pixel_assignments (pixel_id, target_type, target_id) VALUES (${b.id}, 'product', 7)`
            )
            yield* dashboard.write("PATCH", `/v1/pixels/${b.id}`, {
              is_default: true,
              pixel_name: "B",
              access_token: "tt_2"
            })
            const update = yield* newest(dashboard)
            assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${update.id}/undo`)).status, 200)
            const items = (yield* dashboard.get("/v1/pixels")).body.data.items
            assert.deepStrictEqual(
              items.map((item: Record<string, unknown>) => [item.id, item.is_default, item.pixel_name, item.has_token]),
              [
                [b.id, false, null, true],
                [a.id, true, null, false]
              ]
            )
            yield* dashboard.write("DELETE", `/v1/pixels/${b.id}`)
            const deletion = yield* newest(dashboard)
            // The same pixel added again since: the undo is refused as that create would be.
            const again = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHJ" })
            assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${deletion.id}/undo`)), [
              409,
              "pixel_exists"
            ])
            yield* dashboard.write("DELETE", `/v1/pixels/${again.id}`)
            assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${deletion.id}/undo`)).status, 200)
            const restored = (yield* dashboard.get("/v1/pixels")).body.data.items.find(
              (item: { id: number }) => item.id === b.id
            )
            assert.deepInclude(restored, { id: b.id, has_token: false, created_at: b.created_at })
            const [assignments] = yield* exec(
              (client) =>
                client<{
                  readonly count: number
                }>`SELECT count(*)::int AS count FROM pixel_assignments WHERE pixel_id = ${b.id}`
            )
            assert.strictEqual(assignments!.count, 0)
            // An update of a pixel deleted since cannot be restored.
            yield* dashboard.write("PATCH", `/v1/pixels/${a.id}`, { pixel_name: "A" })
            const late = yield* newest(dashboard)
            yield* dashboard.write("DELETE", `/v1/pixels/${a.id}`)
            assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${late.id}/undo`)), [
              422,
              "restore_target_missing"
            ])
          })
      )

      it.effect("of 50 simultaneous undos of one change exactly one runs; the others are 409 already_undone", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { discount_value: 999 })
          const change = yield* newest(dashboard)
          const answers = yield* Effect.all(
            Array.from({ length: 50 }, () => dashboard.write("POST", `/v1/changes/${change.id}/undo`)),
            { concurrency: "unbounded" }
          )
          const statuses = answers.map(codeOf)
          assert.strictEqual(statuses.filter(([status]) => status === 200).length, 1, JSON.stringify(statuses))
          assert.deepStrictEqual(
            statuses.filter(([status]) => status !== 200),
            Array.from({ length: 49 }, () => [409, "already_undone"] as const)
          )
          assert.strictEqual((yield* dashboard.get("/v1/promo-codes")).body.data.items[0].discount_value, 400)
          const undos = (yield* dashboard.get("/v1/changes")).body.data.items.filter(
            (item: { summary: string }) => item.summary === `Undo of change #${change.id}`
          )
          assert.strictEqual(undos.length, 1, "one undo recorded")
        })
      )

      it.effect("property: any sequence of recorded writes, undone newest first, restores the exact start", () =>
        Effect.gen(function* () {
          undoneInAllRuns = 0
          undoneEntities.clear()
          const context = yield* Effect.context<Effect.Services<ReturnType<typeof run>>>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), (writes) =>
                Effect.runPromiseWith(context)(run(writes)).then(
                  (outcome) => outcome === true || Promise.reject(new Error(outcome))
                )
              ),
              { numRuns: 15, seed: 4_212_026 }
            )
          )
          assert.isAbove(undoneInAllRuns, 30, "the runs' writes were mostly accepted, and recorded")
          // Every recorded entity but the theme switches' (`store.theme`, whose undo has its own tests in memory).
          assert.deepStrictEqual(
            [...undoneEntities].sort(),
            [
              "category",
              "lp.section",
              "pixels",
              "promo_code",
              "shipping.rates",
              "shipping.settings",
              "stock",
              "store.design",
              "store.home_layout",
              "store.home_sections",
              "store.settings"
            ],
            "the runs reached every entity"
          )
        })
      )

      it.effect(
        "property: writes, deletes, undos and undos of undos end where the spec's rules say",
        () =>
          Effect.gen(function* () {
            modelOutcomes.clear()
            const context = yield* Effect.context<Effect.Services<ReturnType<typeof modelRun>>>()
            yield* Effect.promise(() =>
              fc.assert(
                fc.asyncProperty(modelRunArbitrary, (run) =>
                  Effect.runPromiseWith(context)(modelRun(run)).then(
                    (outcome) => outcome === true || Promise.reject(new Error(outcome))
                  )
                ),
                // Each run needs a store of its own: a failure is reported with its steps, unshrunk.
                { numRuns: 25, seed: 3_103_026, endOnFailure: true, examples: issueRuns.map((run) => [run]) }
              )
            )
            // The runs met every answer of the rules: undos run, undone twice, nothing to restore after a delete, the
            // layout changed since, the item gone.
            for (const outcome of [
              "200",
              "already_undone",
              "nothing_to_restore",
              "layout_changed",
              "restore_target_missing"
            ]) {
              assert.isAbove(modelOutcomes.get(outcome) ?? 0, 0, `an undo answered ${outcome}: ${[...modelOutcomes]}`)
            }
          }),
        180_000
      )
    }
  )
}
