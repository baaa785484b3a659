/**
 * Landing page sections for a property over HTTP (any sequence of recorded writes, undone newest first, restores
 * the exact start): a page to write on (`seed`), one random valid `lp.section` write (`sectionWrite`, made by
 * `applyWrite`: a PATCH, a delete or a reorder of a section there is, chosen when it runs) and the page as the API
 * shows it (`stateOf`), ready to plug into `Changes.db.test.ts`'s property beside the promo and pixel writes.
 *
 * Creates are left out: their undo is `nothing_to_restore` (spec "Undo rules" 2). `stateOf` leaves out section ids
 * and update times: a deleted section returns with a new id (rule 5), and every write moves `updated_at`; the rest —
 * type, place, visibility, settings, creation time, and the page's `section_count` — must come back exactly.
 */
import { Effect } from "effect"
import * as fc from "fast-check"

import type { Answer, Request } from "../PropertyRequest.ts"

export { type Answer, type Request, requestOf } from "../PropertyRequest.ts"

export type SectionWrite =
  | { readonly kind: "patch"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "delete"; readonly index: number }
  | { readonly kind: "reorder"; readonly order: ReadonlyArray<number> }

const settings = fc.dictionary(
  fc.constantFrom("title", "subtitle", "image", "price", "items"),
  fc.oneof(
    fc.constantFrom("اطلب الآن", "Livraison gratuite", "/media/p.webp", ""),
    fc.integer({ min: 0, max: 100_000 }),
    fc.array(fc.record({ q: fc.constantFrom("Prix ?", "الدفع عند الاستلام؟"), a: fc.constantFrom("Oui", "نعم") }), {
      maxLength: 3
    })
  ),
  { maxKeys: 4 }
)

/** One `lp.section` write: a PATCH (visibility, settings or both), a delete, or a reorder (a permutation's ranks). */
export const sectionWrite: fc.Arbitrary<SectionWrite> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("patch" as const),
      index: fc.nat(9),
      body: fc
        .record({ is_visible: fc.boolean(), settings }, { requiredKeys: [] })
        .filter((body) => Object.keys(body).length > 0)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), index: fc.nat(9) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reorder" as const),
      order: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 10, maxLength: 10 })
    })
  }
)

/** A page to write on: a landing page with five sections (one hidden), as a COD page stacks them. */
export const seed = (request: Request) =>
  Effect.gen(function* () {
    const page = yield* request("POST", "/v1/landing-pages", { title: "Montre connectée" })
    const pageId = page.body.data.id as number
    for (const body of [
      { type: "hero", settings: { title: "ساعة ذكية", price: 4500, old_price: 6000, image: "/media/watch.webp" } },
      { type: "benefits", settings: { items: ["Étanche", "7 jours d'autonomie"] } },
      { type: "countdown", is_visible: false, settings: { seconds: 86_400 } },
      { type: "faq", settings: { items: [{ q: "الدفع عند الاستلام؟", a: "نعم" }] } },
      { type: "order_form", settings: { button: "اطلب الآن", fields: ["name", "phone", "wilaya", "commune"] } }
    ]) {
      yield* request("POST", `/v1/landing-pages/${pageId}/sections`, body)
    }
    return { pageId }
  })

export interface Seeded {
  readonly pageId: number
}

/** Makes `write` on the seeded page, against the sections it has when it runs; answers the write's answer. */
export const applyWrite = (request: Request, seeded: Seeded, write: SectionWrite) =>
  Effect.gen(function* () {
    const path = `/v1/landing-pages/${seeded.pageId}/sections`
    const ids: Array<number> = (yield* request("GET", path)).body.data.items.map((item: { id: number }) => item.id)
    if (write.kind === "reorder") {
      const section_ids = ids
        .map((id, index) => [id, write.order[index] ?? 0] as const)
        .sort((a, b) => a[1] - b[1] || a[0] - b[0])
        .map(([id]) => id)
      return yield* request("POST", `${path}/reorder`, { section_ids })
    }
    const target = ids[write.index % Math.max(ids.length, 1)]
    if (target === undefined) return { status: 204, body: undefined, text: "" } satisfies Answer
    return write.kind === "patch"
      ? yield* request("PATCH", `${path}/${target}`, write.body)
      : yield* request("DELETE", `${path}/${target}`)
  })

/** The seeded page's sections and count as the API shows them, without ids and update times. */
export const stateOf = (request: Request, seeded: Seeded) =>
  Effect.gen(function* () {
    const sections = (yield* request("GET", `/v1/landing-pages/${seeded.pageId}/sections`)).body.data.items.map(
      ({ id: _, updated_at: __, ...section }: Record<string, unknown>) => section
    )
    const count = (yield* request("GET", `/v1/landing-pages/${seeded.pageId}`)).body.data.section_count
    return { sections, section_count: count }
  })
