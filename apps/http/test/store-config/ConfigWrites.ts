/**
 * The store's own configuration for a property over HTTP (any sequence of recorded writes, undone newest first,
 * restores the exact start): one random valid write of each of its four entities (`configWrite`, made by
 * `applyWrite`) — `PATCH /v1/store` (`store.settings`), `PATCH /v1/store/design` (`store.design`),
 * `PATCH /v1/store/home-sections` (`store.home_sections`) and a home layout write (`store.home_layout`: an add, an
 * update, a move or a remove of a section there is, chosen when it runs; an add when there is none) — and the four as
 * the API shows them (`stateOf`), ready to plug into `Changes.db.test.ts`'s property beside the other entities' writes.
 *
 * Every read under `/v1/store` is cached 30 s per key and URL: `stateOf` reads each with a query string of its own
 * (`?state=<n>`), which the endpoints ignore and the cache does not share, so it always reads fresh values. Layout
 * writes are undone newest first by the property; an older one's undo while a later layout change stands is 409
 * `layout_changed` (spec undo rule 3), which walking newest first never meets.
 */
import { Effect } from "effect"
import * as fc from "fast-check"

import type { Request } from "../PropertyRequest.ts"

export { type Answer, type Request, requestOf } from "../PropertyRequest.ts"

export type ConfigWrite =
  | { readonly kind: "settings"; readonly body: Record<string, unknown> }
  | { readonly kind: "design"; readonly body: Record<string, unknown> }
  | { readonly kind: "homeSections"; readonly body: Record<string, unknown> }
  | { readonly kind: "layoutAdd"; readonly body: Record<string, unknown> }
  | { readonly kind: "layoutUpdate"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "layoutMove"; readonly index: number; readonly position: number }
  | { readonly kind: "layoutRemove"; readonly index: number }

const some = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.record(fields, { requiredKeys: [] }).filter((body) => Object.keys(body).length > 0)

const color = fc.constantFrom("#0f766e", "#E11D48", "#fff", "#1f2937", "#f59e0b")

const settingsBody = some({
  name: fc.constantFrom("Maison Tlemcen", "دار الحرف", "Boutique Sétif"),
  description: fc.constantFrom(null, "", "Artisanat algérien", "منتجات تقليدية"),
  language: fc.constantFrom("ar", "fr"),
  logo: fc.constantFrom(null, "stores/1/logo.png", "stores/1/logo-v2.webp"),
  contact: some({
    phone: fc.constantFrom(null, "0555 12 34 56", "+213 21 23 45 67"),
    whatsapp: fc.constantFrom(null, "+213 661 00 11 22"),
    email: fc.constantFrom(null, "contact@boutique.dz"),
    wilaya_id: fc.constantFrom(null, 16, 31, 58)
  }),
  social_links: some({ instagram: fc.constantFrom(null, "https://instagram.com/boutique") }),
  currency: some({
    symbol: fc.constantFrom("DA", "DZD", "د.ج"),
    position: fc.constantFrom("before", "after"),
    decimals: fc.constantFrom(0, 2)
  })
})

const designBody = some({
  colors: some({
    primary_color: fc.oneof(color, fc.constant(null)),
    background_color: fc.oneof(color, fc.constant(null)),
    text_color: fc.oneof(color, fc.constant(null)),
    button_color: fc.oneof(color, fc.constant(null))
  }),
  font_family: fc.constantFrom("Cairo", "Tajawal", "almarai", "Inter"),
  heading_font: fc.constantFrom(null, "El Messiri", "Poppins"),
  border_radius: fc.integer({ min: 0, max: 24 }),
  button_style: fc.constantFrom("filled", "outline", "soft"),
  product_image_ratio: fc.constantFrom("square", "portrait", "landscape")
})

const faqItems = fc.array(
  fc.record({
    question: fc.constantFrom("Délai de livraison ?", "الدفع عند الاستلام؟"),
    answer: fc.constantFrom("48 h", "نعم")
  }),
  { maxLength: 3 }
)

const sectionsBody = some({
  hero: some({ enabled: fc.boolean(), title: fc.constantFrom(null, "Soldes", "تخفيضات") }),
  featured_products: some({
    enabled: fc.boolean(),
    source: fc.constantFrom("newest", "best_selling"),
    limit: fc.integer({ min: 1, max: 48 })
  }),
  faq: some({ enabled: fc.boolean(), items: faqItems }),
  trust_badges: some({
    badges: fc.subarray(["cash_on_delivery", "delivery_58_wilayas", "easy_returns"] as const)
  })
})

const layoutAddBody = fc.oneof(
  fc.record({ type: fc.constant("hero"), settings: some({ title: fc.constantFrom("Bienvenue", "مرحبا") }) }),
  fc.record({ type: fc.constant("categories"), enabled: fc.boolean() }),
  fc.record({ type: fc.constant("faq"), settings: fc.record({ items: faqItems }) }),
  fc.record({ type: fc.constant("banner"), settings: fc.record({ image: fc.constant("stores/1/banner.jpg") }) }),
  fc.record({ type: fc.constant("rich_text"), settings: fc.record({ text: fc.constantFrom("Livraison 58 wilayas") }) })
)

/** One recorded write of the store's own configuration (a layout write's section is picked when it runs). */
export const configWrite: fc.Arbitrary<ConfigWrite> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("settings" as const), body: settingsBody }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("design" as const), body: designBody }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("homeSections" as const), body: sectionsBody }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("layoutAdd" as const), body: layoutAddBody }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("layoutUpdate" as const),
      index: fc.nat(29),
      body: some({ enabled: fc.boolean() })
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("layoutMove" as const),
      index: fc.nat(29),
      position: fc.integer({ min: 1, max: 30 })
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("layoutRemove" as const), index: fc.nat(29) }) }
)

let reads = 0
/** `path` with a query string of its own: the read cache never answers it. */
const fresh = (path: string) => `${path}?state=${++reads}`

/**
 * Makes `write` through `request` and answers its answer (every one of them is valid: a 200 or 201 is expected). A
 * layout update, move or remove picks its section by `index` among those there are, and is an add when there is
 * none.
 */
export const applyWrite = (request: Request, write: ConfigWrite) =>
  Effect.gen(function* () {
    switch (write.kind) {
      case "settings":
        return yield* request("PATCH", "/v1/store", write.body)
      case "design":
        return yield* request("PATCH", "/v1/store/design", write.body)
      case "homeSections":
        return yield* request("PATCH", "/v1/store/home-sections", write.body)
      case "layoutAdd":
        return yield* request("POST", "/v1/store/home-layout/sections", write.body)
    }
    const sections: ReadonlyArray<{ readonly id: number }> = (yield* request("GET", fresh("/v1/store/home-layout")))
      .body.data.sections
    if (sections.length === 0) return yield* request("POST", "/v1/store/home-layout/sections", { type: "categories" })
    const section = sections[write.index % sections.length]!
    switch (write.kind) {
      case "layoutUpdate":
        return yield* request("PATCH", `/v1/store/home-layout/sections/${section.id}`, write.body)
      case "layoutMove":
        return yield* request("POST", "/v1/store/home-layout/move", {
          id: section.id,
          position: 1 + ((write.position - 1) % sections.length)
        })
      case "layoutRemove":
        return yield* request("DELETE", `/v1/store/home-layout/sections/${section.id}`)
    }
  })

/** The four as the API shows them now, read past the cache; a store's `created_at` and ids included. */
export const stateOf = (request: Request) =>
  Effect.gen(function* () {
    const read = (path: string) => Effect.map(request("GET", fresh(path)), (answer) => answer.body.data)
    return {
      settings: yield* read("/v1/store"),
      design: yield* read("/v1/store/design"),
      homeSections: yield* read("/v1/store/home-sections"),
      homeLayout: yield* read("/v1/store/home-layout")
    }
  })
