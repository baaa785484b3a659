/**
 * The contract of `PageSections` and the `lp.section` entity over a `PageSectionStore` (docs/store-api-config.md,
 * "Landing page sections"; spec store-api-config "Recorded entities", "Undo rules" 5), run against every
 * implementation of the port: the sections' shapes and order, every refusal in its order, what each write records,
 * and every undo — an update's, a delete's (a new id, remembered), a reorder's — with the refusals an undo meets.
 */
import { assert, type Vitest } from "@effect/vitest"
import { type ChangeLog, Changes } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import { LandingPages } from "../src/LandingPages.ts"
import { PageSection } from "../src/PageSection.ts"
import type { PageSectionStore } from "../src/PageSectionStore.ts"
import { PageSections } from "../src/PageSections.ts"
import { Fixtures } from "./Fixtures.ts"

export type Services = PageSections | LandingPages | PageSectionStore | Changes.Changes | ChangeLog.ChangeLog | Fixtures

const KEY = "twpk_live_sectiontest0000"

const writer = (storeId: Ids.StoreId) => ({ storeId, keyId: KEY })
const actor = (
  storeId: Ids.StoreId,
  scopes: ReadonlyArray<string> = ["landing_pages:read", "landing_pages:write"]
) => ({
  storeId,
  keyId: KEY,
  scopes
})

const reasonOf = <A, R>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string } }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)

const wire = Schema.encodeSync(PageSection)

/** A fresh store with one page. */
const page = Effect.gen(function* () {
  const store = yield* (yield* Fixtures).newStore
  const created = yield* (yield* LandingPages).create(store, { title: "Crème anti-rides" })
  return { store, pageId: created.id as number }
})

/** The page's sections as `[type, position, is_visible, settings]`. */
const layout = (store: Ids.StoreId, pageId: number) =>
  Effect.gen(function* () {
    const list = yield* (yield* PageSections).list(store, pageId)
    return list.items.map((section) => [section.type, section.position, section.is_visible, section.settings] as const)
  })

const newestChange = (store: Ids.StoreId) =>
  Effect.gen(function* () {
    const changes = yield* Changes.Changes
    const newest = (yield* changes.list(store, { limit: "1" })).items[0]!
    return yield* changes.get(actor(store), newest.id).pipe(Effect.orDie)
  })

const undo = (store: Ids.StoreId, id: number) =>
  Effect.gen(function* () {
    return yield* (yield* Changes.Changes).undo(actor(store), id)
  })

export const PageSectionsSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("creates sections at the end or at a position, lists them top first, and counts them on the page", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const hero = yield* sections.create(writer(store), pageId, {
        type: " Hero ",
        settings: { title: "كريم طبيعي 100%", image: "/media/hero.webp", price: 3900, old_price: 5200 }
      })
      assert.deepStrictEqual(
        { ...wire(hero), id: 0, created_at: "", updated_at: "" },
        {
          id: 0,
          landing_page_id: pageId,
          type: "hero",
          position: 1,
          is_visible: true,
          settings: { title: "كريم طبيعي 100%", image: "/media/hero.webp", price: 3900, old_price: 5200 },
          created_at: "",
          updated_at: ""
        }
      )
      assert.match(wire(hero).created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      yield* sections.create(writer(store), pageId, { type: "order_form", is_visible: false })
      yield* sections.create(writer(store), pageId, { type: "FAQ", position: 2, settings: { items: [] } })
      yield* sections.create(writer(store), pageId, { type: "countdown", position: 1 })
      assert.deepStrictEqual(yield* layout(store, pageId), [
        ["countdown", 1, true, {}],
        ["hero", 2, true, { title: "كريم طبيعي 100%", image: "/media/hero.webp", price: 3900, old_price: 5200 }],
        ["faq", 3, true, { items: [] }],
        ["order_form", 4, false, {}]
      ])
      assert.strictEqual((yield* (yield* LandingPages).get(store, pageId as Ids.LandingPageId)).section_count, 4)
      const read = yield* sections.get(store, pageId, hero.id)
      assert.strictEqual(read.position, 2)
    })
  )

  it.effect("refuses create bodies with their reasons, in order: body, type, position, is_visible, settings", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const create = (body: unknown) => reasonOf(sections.create(writer(store), pageId, body))
      yield* sections.create(writer(store), pageId, { type: "hero" })
      assert.strictEqual(yield* create([]), "InvalidSectionBody")
      assert.strictEqual(yield* create(null), "InvalidSectionBody")
      assert.strictEqual(yield* create({ type: "carousel", position: 0, settings: [] }), "InvalidSectionType")
      assert.strictEqual(yield* create({}), "InvalidSectionType")
      assert.strictEqual(yield* create({ type: "hero\u0000" }), "InvalidSectionType")
      for (const position of [0, 3, 1.5, "1", null, -1]) {
        assert.strictEqual(yield* create({ type: "text", position, is_visible: "no" }), "InvalidPosition")
      }
      for (const is_visible of ["false", 0, null]) {
        assert.strictEqual(yield* create({ type: "text", position: 2, is_visible, settings: 1 }), "InvalidSectionBody")
      }
      const deep = { a: { b: { c: { d: { e: { f: { g: { h: [1] } } } } } } } }
      for (const settings of [
        [],
        "text",
        null,
        { title: "nul\u0000" },
        { title: "lone \ud800" },
        { ["\udc00"]: 1 },
        { "": 1 },
        { ["k".repeat(101)]: 1 },
        { price: 1e9 },
        { price: -100_000_001 },
        { nested: [{ price: 1e308 }] },
        deep,
        { text: "x".repeat(65_537) }
      ]) {
        assert.strictEqual(yield* create({ type: "text", settings }), "InvalidSettings", JSON.stringify(settings))
      }
      // At the bounds: 8 levels, 100-character keys, ±100000000, 65536 bytes.
      const eight = { a: { b: { c: { d: { e: { f: { g: [1] } } } } } } }
      yield* sections.create(writer(store), pageId, { type: "text", settings: eight })
      yield* sections.create(writer(store), pageId, { type: "text", settings: { ["k".repeat(100)]: -100_000_000 } })
      const big = { text: "x".repeat(65_536 - '{"text":""}'.length) }
      yield* sections.create(writer(store), pageId, { type: "text", settings: big })
      assert.strictEqual((yield* layout(store, pageId)).length, 4)
      // Nothing refused was written or recorded.
      const changes = yield* (yield* Changes.Changes).list(store)
      assert.strictEqual(changes.items.length, 4)
    })
  )

  it.effect("answers PageNotFound for an unknown page, another store's, or an id no row can have", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const other = yield* page
      for (const id of [other.pageId, 0, 2_147_483_648, pageId + 1000]) {
        assert.strictEqual(yield* reasonOf(sections.list(store, id)), "PageNotFound")
        assert.strictEqual(yield* reasonOf(sections.create(writer(store), id, { type: "hero" })), "PageNotFound")
        assert.strictEqual(yield* reasonOf(sections.reorder(writer(store), id, { section_ids: [] })), "PageNotFound")
      }
      // A page is checked before the body.
      assert.strictEqual(yield* reasonOf(sections.create(writer(store), other.pageId, [])), "PageNotFound")
      const hero = yield* sections.create(writer(other.store), other.pageId, { type: "hero" })
      assert.strictEqual(yield* reasonOf(sections.get(store, pageId, hero.id)), "SectionNotFound")
      assert.strictEqual(yield* reasonOf(sections.update(writer(store), pageId, hero.id, {})), "SectionNotFound")
      assert.strictEqual(yield* reasonOf(sections.remove(writer(store), pageId, hero.id)), "SectionNotFound")
      assert.strictEqual(yield* reasonOf(sections.get(store, pageId, 0)), "SectionNotFound")
    })
  )

  it.effect("PATCH changes is_visible and settings, refuses type and position, and records only real changes", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const changes = yield* Changes.Changes
      const { store, pageId } = yield* page
      const faq = yield* sections.create(writer(store), pageId, { type: "faq", settings: { a: 1, b: [1, 2] } })
      const patch = (body: unknown) => sections.update(writer(store), pageId, faq.id, body)
      assert.strictEqual(yield* reasonOf(patch({ type: "faq" })), "ImmutableField")
      assert.strictEqual(yield* reasonOf(patch({ position: 1, settings: 4 })), "ImmutableField")
      assert.strictEqual(yield* reasonOf(patch({ is_visible: "true" })), "InvalidSectionBody")
      assert.strictEqual(yield* reasonOf(patch({ settings: { t: "\ud800" } })), "InvalidSettings")
      assert.strictEqual(yield* reasonOf(patch("x")), "InvalidSectionBody")
      // Nothing changes: no record (the same settings with keys in another order are the same).
      assert.deepStrictEqual(yield* patch({}), faq)
      assert.deepStrictEqual(yield* patch({ settings: { b: [1, 2], a: 1 }, is_visible: true }), faq)
      assert.strictEqual((yield* changes.list(store)).items.length, 1)
      const hidden = yield* patch({ is_visible: false, settings: { a: 2 }, unknown: "ignored" })
      assert.deepStrictEqual([hidden.is_visible, hidden.settings, hidden.position], [false, { a: 2 }, 1])
      const change = yield* newestChange(store)
      assert.deepInclude(change, {
        entity: "lp.section",
        entity_id: String(faq.id),
        action: "update",
        summary: `Updated faq section #${faq.id} of landing page #${pageId} (is_visible, settings)`,
        key_id: KEY
      })
      // What it changed, with the section and its page.
      assert.deepStrictEqual(change.before, {
        id: faq.id,
        landing_page_id: pageId,
        is_visible: true,
        settings: { a: 1, b: [1, 2] }
      })
      assert.deepStrictEqual(change.after, {
        id: faq.id,
        landing_page_id: pageId,
        is_visible: false,
        settings: { a: 2 }
      })
    })
  )

  it.effect("a delete moves the sections below up; a reorder takes every section once; both are recorded", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const changes = yield* Changes.Changes
      const { store, pageId } = yield* page
      const [a, b, c] = yield* Effect.forEach(["hero", "benefits", "order_form"], (type) =>
        sections.create(writer(store), pageId, { type })
      )
      const reorder = (section_ids: unknown) => sections.reorder(writer(store), pageId, { section_ids })
      for (const order of [
        [a!.id, b!.id],
        [a!.id, b!.id, c!.id, a!.id],
        [a!.id, b!.id, 999_999],
        "x",
        [c!.id, b!.id, "1"]
      ]) {
        assert.strictEqual(yield* reasonOf(reorder(order)), "InvalidSectionOrder", JSON.stringify(order))
      }
      assert.strictEqual(yield* reasonOf(sections.reorder(writer(store), pageId, [])), "InvalidSectionBody")
      const same = yield* reorder([a!.id, b!.id, c!.id])
      assert.deepStrictEqual(
        same.items.map((item) => item.id),
        [a!.id, b!.id, c!.id]
      )
      assert.strictEqual((yield* changes.list(store)).items.length, 3, "a reorder into the same order records nothing")
      const moved = yield* reorder([c!.id, a!.id, b!.id])
      assert.deepStrictEqual(
        moved.items.map((item) => [item.id, item.position]),
        [
          [c!.id, 1],
          [a!.id, 2],
          [b!.id, 3]
        ]
      )
      const reordered = yield* newestChange(store)
      assert.deepInclude(reordered, {
        entity_id: `lp:${pageId}`,
        action: "update",
        summary: `Reordered the sections of landing page #${pageId}`,
        before: { landing_page_id: pageId, section_ids: [a!.id, b!.id, c!.id] },
        after: { landing_page_id: pageId, section_ids: [c!.id, a!.id, b!.id] }
      })
      const deleted = yield* sections.remove(writer(store), pageId, a!.id)
      assert.deepStrictEqual(deleted, { deleted: true, id: a!.id })
      assert.deepStrictEqual(yield* layout(store, pageId), [
        ["order_form", 1, true, {}],
        ["benefits", 2, true, {}]
      ])
      const deletion = yield* newestChange(store)
      assert.deepInclude(deletion, { entity_id: String(a!.id), action: "delete", after: null })
      assert.deepInclude(deletion.before as object, { id: a!.id, type: "hero", position: 2 })
      assert.strictEqual(yield* reasonOf(sections.remove(writer(store), pageId, a!.id)), "SectionNotFound")
      assert.strictEqual((yield* (yield* LandingPages).get(store, pageId as Ids.LandingPageId)).section_count, 2)
    })
  )

  it.effect("a page holds at most 50 sections (LimitReached)", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      for (let n = 0; n < 50; n++) yield* sections.create(writer(store), pageId, { type: "text" })
      assert.strictEqual(yield* reasonOf(sections.create(writer(store), pageId, { type: "text" })), "LimitReached")
      // The body is read first.
      assert.strictEqual(
        yield* reasonOf(sections.create(writer(store), pageId, { type: "nope" })),
        "InvalidSectionType"
      )
    })
  )

  it.effect("undo of an update restores is_visible and settings, not the place; its undo applies it again", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const hero = yield* sections.create(writer(store), pageId, { type: "hero", settings: { title: "Avant" } })
      const form = yield* sections.create(writer(store), pageId, { type: "order_form" })
      yield* sections.update(writer(store), pageId, hero.id, { settings: { title: "Après" }, is_visible: false })
      const update = yield* newestChange(store)
      yield* sections.reorder(writer(store), pageId, { section_ids: [form.id, hero.id] })
      const undone = yield* undo(store, update.id)
      assert.deepStrictEqual(undone.entity, "lp.section")
      assert.deepStrictEqual(yield* layout(store, pageId), [
        ["order_form", 1, true, {}],
        ["hero", 2, true, { title: "Avant" }]
      ])
      const undoChange = yield* newestChange(store)
      assert.deepInclude(undoChange, { summary: `Undo of change #${update.id}`, entity_id: String(hero.id) })
      assert.strictEqual(yield* reasonOf(undo(store, update.id)), "AlreadyUndone")
      yield* undo(store, undoChange.id)
      assert.deepStrictEqual((yield* layout(store, pageId))[1], ["hero", 2, false, { title: "Après" }])
    })
  )

  it.effect("a deleted section returns with a new id at its place; the history still reaches it by the old one", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const [a, b, c] = yield* Effect.forEach(["hero", "testimonials", "order_form"], (type, n) =>
        sections.create(writer(store), pageId, { type, settings: { n } })
      )
      yield* sections.update(writer(store), pageId, b!.id, { settings: { n: 10 } })
      const update = yield* newestChange(store)
      yield* sections.reorder(writer(store), pageId, { section_ids: [c!.id, b!.id, a!.id] })
      const reorder = yield* newestChange(store)
      yield* sections.remove(writer(store), pageId, b!.id)
      const deletion = yield* newestChange(store)
      const undone = yield* undo(store, deletion.id)
      const restored = (yield* sections.list(store, pageId)).items[1]!
      assert.notStrictEqual(restored.id, b!.id, "a new id")
      assert.deepStrictEqual(
        [restored.type, restored.position, restored.settings, wire(restored).created_at],
        ["testimonials", 2, { n: 10 }, wire(b!).created_at]
      )
      const undoChange = yield* newestChange(store)
      assert.deepInclude(undoChange, {
        id: undone.undo_change_id!,
        entity_id: String(restored.id),
        before: null
      })
      assert.deepInclude(undoChange.after as object, { id: restored.id, former_ids: [b!.id] })
      // The undo of that undo has nothing to restore (a delete holds no `after`).
      assert.strictEqual(yield* reasonOf(undo(store, undoChange.id)), "NothingToRestore")
      // Newest first: the reorder, then the update of the section that was deleted, reach the returned section.
      yield* undo(store, reorder.id)
      assert.deepStrictEqual(
        (yield* sections.list(store, pageId)).items.map((item) => item.id),
        [a!.id, restored.id, c!.id]
      )
      yield* undo(store, update.id)
      assert.deepStrictEqual((yield* sections.get(store, pageId, restored.id)).settings, { n: 1 })
      // Deleted and returned again: it remembers both ids.
      yield* sections.remove(writer(store), pageId, restored.id)
      yield* undo(store, (yield* newestChange(store)).id)
      const again = (yield* sections.list(store, pageId)).items[1]!
      assert.deepInclude((yield* newestChange(store)).after as object, {
        id: again.id,
        former_ids: [b!.id, restored.id]
      })
    })
  )

  it.effect("a reorder's undo keeps sections added since in their places and leaves out those deleted", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const { store, pageId } = yield* page
      const [a, b, c] = yield* Effect.forEach(["hero", "faq", "order_form"], (type) =>
        sections.create(writer(store), pageId, { type })
      )
      yield* sections.reorder(writer(store), pageId, { section_ids: [c!.id, b!.id, a!.id] })
      const reorder = yield* newestChange(store)
      const added = yield* sections.create(writer(store), pageId, { type: "video", position: 2 })
      yield* sections.remove(writer(store), pageId, b!.id)
      yield* undo(store, reorder.id)
      assert.deepStrictEqual(
        (yield* sections.list(store, pageId)).items.map((item) => item.id),
        [a!.id, added.id, c!.id]
      )
    })
  )

  it.effect("undo refusals: a page deleted since, a full page, a change of a section deleted and not returned", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const pages = yield* LandingPages
      const { store, pageId } = yield* page
      const hero = yield* sections.create(writer(store), pageId, { type: "hero" })
      const form = yield* sections.create(writer(store), pageId, { type: "order_form" })
      yield* sections.update(writer(store), pageId, hero.id, { is_visible: false })
      const update = yield* newestChange(store)
      yield* sections.remove(writer(store), pageId, hero.id)
      const deletion = yield* newestChange(store)
      // The deleted section's update: nothing to restore it onto.
      assert.strictEqual(yield* reasonOf(undo(store, update.id)), "RestoreTargetMissing")
      // The page full: the delete's undo is refused as a create would be, and stays undoable.
      for (let n = 0; n < 49; n++) yield* sections.create(writer(store), pageId, { type: "text" })
      assert.strictEqual(yield* reasonOf(undo(store, deletion.id)), "LimitReached")
      const last = (yield* sections.list(store, pageId)).items.at(-1)!
      yield* sections.remove(writer(store), pageId, last.id)
      yield* undo(store, deletion.id)
      assert.strictEqual((yield* sections.list(store, pageId)).items[0]!.type, "hero")
      // The page deleted: every undo of its sections' changes is refused.
      yield* sections.reorder(writer(store), pageId, {
        section_ids: (yield* sections.list(store, pageId)).items.map((item) => item.id).reverse()
      })
      const reorder = yield* newestChange(store)
      yield* sections.remove(writer(store), pageId, form.id)
      const formDeletion = yield* newestChange(store)
      yield* pages.remove(store, pageId as Ids.LandingPageId)
      assert.strictEqual(yield* reasonOf(undo(store, reorder.id)), "RestoreTargetMissing")
      const refused = yield* Effect.flip(undo(store, formDeletion.id))
      assert.deepStrictEqual([refused._tag, refused.reason._tag], ["PageSectionError", "RestoreTargetMissing"])
      // Still undoable (the refusal took nothing).
      assert.isFalse((yield* newestChange(store)).undone)
    })
  )

  it.effect("a change's detail and undo need the landing page scopes", () =>
    Effect.gen(function* () {
      const sections = yield* PageSections
      const changes = yield* Changes.Changes
      const { store, pageId } = yield* page
      const hero = yield* sections.create(writer(store), pageId, { type: "hero" })
      yield* sections.update(writer(store), pageId, hero.id, { is_visible: false })
      const { id } = (yield* changes.list(store, { entity: "lp.section", limit: "1" })).items[0]!
      assert.strictEqual(yield* reasonOf(changes.get(actor(store, ["store:read"]), id)), "MissingEntityScope")
      assert.strictEqual(yield* reasonOf(changes.undo(actor(store, ["landing_pages:read"]), id)), "MissingEntityScope")
      assert.deepStrictEqual((yield* changes.list(store, { entity: "lp.page" })).items, [])
      assert.strictEqual((yield* changes.list(store, { entity: "lp.section" })).items.length, 2)
    })
  )

  it.effect("property: any sequence of section writes, undone newest first, restores the page", () =>
    Effect.gen(function* () {
      const context = yield* Effect.context<Services>()
      let undone = 0
      const run = (steps: ReadonlyArray<Step>) =>
        Effect.gen(function* () {
          const sections = yield* PageSections
          const changes = yield* Changes.Changes
          const { store, pageId } = yield* page
          for (const type of ["hero", "benefits", "faq", "order_form"]) {
            yield* sections.create(writer(store), pageId, { type, settings: { type } })
          }
          const start = yield* layout(store, pageId)
          const since = (yield* changes.list(store)).items.length
          for (const step of steps) {
            const ids = (yield* sections.list(store, pageId)).items.map((item) => item.id)
            const target = ids[step.index % Math.max(ids.length, 1)]
            if (target === undefined) continue
            if (step.kind === "patch") yield* sections.update(writer(store), pageId, target, step.body)
            if (step.kind === "delete") yield* sections.remove(writer(store), pageId, target)
            if (step.kind === "reorder") {
              const order = [...ids].sort((x, y) => ((x * step.seed) % 7) - ((y * step.seed) % 7) || x - y)
              yield* sections.reorder(writer(store), pageId, { section_ids: order })
            }
          }
          const recorded = (yield* changes.list(store, { limit: "100" })).items.slice(
            0,
            (yield* changes.list(store, { limit: "100" })).items.length - since
          )
          for (const change of recorded) {
            yield* undo(store, change.id)
            undone++
          }
          assert.deepStrictEqual(yield* layout(store, pageId), start)
        })
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) =>
            Effect.runPromiseWith(context)(run(steps)).then(() => true)
          ),
          { numRuns: 12, seed: 20_026 }
        )
      )
      assert.isAbove(undone, 30)
    })
  )
}

type Step =
  | { readonly kind: "patch"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "delete"; readonly index: number }
  | { readonly kind: "reorder"; readonly index: number; readonly seed: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("patch" as const),
      index: fc.nat(5),
      body: fc.record(
        {
          is_visible: fc.boolean(),
          settings: fc.dictionary(fc.constantFrom("title", "text", "n"), fc.integer({ min: -5, max: 5 }))
        },
        { requiredKeys: [] }
      )
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), index: fc.nat(5) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reorder" as const),
      index: fc.nat(5),
      seed: fc.integer({ min: 1, max: 97 })
    })
  }
)
