/**
 * Landing page sections over a socket, on each database (docs/store-api-config.md, "Landing page sections"; spec
 * store-api-config "Change history"): a write, its change listed and in detail, its undo (the section reads as
 * before) and the undo's undo, for each kind of write — PATCH, delete (the section returns with a new id; the
 * undo's undo is 422), reorder —; `section_count` through it all; the rows as PostgreSQL keeps them; 20 creates at
 * the top of one page at once; and the walk-back property over `SectionWrites` (any sequence of section writes,
 * undone newest first, restores the page). The section GETs are not cached: every read below is fresh.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { type Client, codeOf, dashboardStore } from "../ConfigHarness.ts"
import { backends, sql, storeServer } from "../StoreHarness.ts"
import { applyWrite, requestOf, type SectionWrite, sectionWrite, seed, stateOf } from "./SectionWrites.ts"

const sections = (pageId: number) => `/v1/landing-pages/${pageId}/sections`

/** The newest change of the store, listed and in detail. */
const newest = (c: Client) =>
  Effect.gen(function* () {
    const listed = (yield* c.get("/v1/changes?entity=lp.section&limit=1")).body.data.items[0]
    const detail = (yield* c.get(`/v1/changes/${listed.id}`)).body.data
    return { listed, detail }
  })

const undo = (c: Client, id: number) => c.write("POST", `/v1/changes/${id}/undo`)

/** The page's sections as `[id, type, position, is_visible, settings]`, and its `section_count`. */
const page = (c: Client, pageId: number) =>
  Effect.gen(function* () {
    const items = (yield* c.get(sections(pageId))).body.data.items.map((item: Record<string, unknown>) => [
      item.id,
      item.type,
      item.position,
      item.is_visible,
      item.settings
    ])
    const count = (yield* c.get(`/v1/landing-pages/${pageId}`)).body.data.section_count
    assert.strictEqual(count, items.length, "section_count counts the sections")
    return items
  })

let undoneInAllRuns = 0

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `landing page sections (${backend.name})`,
    (it) => {
      it.effect("PATCH: listed, detailed, undone (reads as before), and the undo undone (reads as after)", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const pageId = (yield* dashboard.write("POST", "/v1/landing-pages", { title: "Huile d'argan" })).body.data.id
          const hero = (yield* dashboard.write("POST", sections(pageId), {
            type: "hero",
            settings: { title: "زيت الأرقان", price: 2500 }
          })).body.data
          const before = yield* page(dashboard, pageId)
          const patched = yield* dashboard.write("PATCH", `${sections(pageId)}/${hero.id}`, {
            is_visible: false,
            settings: { title: "Argan bio", price: 2200, badges: ["-12%"] }
          })
          assert.strictEqual(patched.status, 200, patched.text)
          const after = yield* page(dashboard, pageId)
          const { listed, detail } = yield* newest(dashboard)
          assert.deepInclude(listed, {
            entity: "lp.section",
            entity_id: String(hero.id),
            action: "update",
            undone: false,
            summary: `Updated hero section #${hero.id} of landing page #${pageId} (is_visible, settings)`
          })
          assert.deepInclude(detail.before, {
            id: hero.id,
            is_visible: true,
            settings: { title: "زيت الأرقان", price: 2500 }
          })
          assert.deepInclude(detail.after, { id: hero.id, is_visible: false, settings: patched.body.data.settings })
          const undone = yield* undo(dashboard, listed.id)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual(yield* page(dashboard, pageId), before)
          assert.strictEqual((yield* newest(dashboard)).listed.summary, `Undo of change #${listed.id}`)
          assert.strictEqual((yield* undo(dashboard, undone.body.data.undo_change_id)).status, 200)
          assert.deepStrictEqual(yield* page(dashboard, pageId), after)
          assert.deepStrictEqual(codeOf(yield* undo(dashboard, listed.id)), [409, "already_undone"])
        })
      )

      it.effect("delete: the section returns on undo with a new id at its place; the undo's undo is 422", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const pageId = (yield* dashboard.write("POST", "/v1/landing-pages", { title: "Tapis berbère" })).body.data.id
          const ids: Array<number> = []
          for (const body of [
            { type: "hero" },
            { type: "testimonials", settings: { items: [{ name: "Amina, Blida", text: "Très beau" }] } },
            { type: "order_form", is_visible: false }
          ]) {
            ids.push((yield* dashboard.write("POST", sections(pageId), body)).body.data.id)
          }
          const created = (yield* dashboard.get(`${sections(pageId)}/${ids[1]}`)).body.data
          const before = yield* page(dashboard, pageId)
          const deleted = yield* dashboard.write("DELETE", `${sections(pageId)}/${ids[1]}`)
          assert.deepStrictEqual(deleted.body.data, { deleted: true, id: ids[1] })
          assert.strictEqual((yield* page(dashboard, pageId)).length, 2)
          const { listed, detail } = yield* newest(dashboard)
          assert.deepInclude(listed, { entity_id: String(ids[1]), action: "delete" })
          assert.deepStrictEqual([detail.before, detail.after], [{ ...created, former_ids: [] }, null])
          const undone = yield* undo(dashboard, listed.id)
          assert.strictEqual(undone.status, 200, undone.text)
          const restored = yield* page(dashboard, pageId)
          const newId = restored[1]![0]
          assert.notStrictEqual(newId, ids[1])
          assert.deepStrictEqual(
            restored.map(([, ...rest]: Array<unknown>) => rest),
            before.map(([, ...rest]: Array<unknown>) => rest)
          )
          assert.strictEqual(
            (yield* dashboard.get(`${sections(pageId)}/${newId}`)).body.data.created_at,
            created.created_at
          )
          assert.deepStrictEqual(codeOf(yield* dashboard.get(`${sections(pageId)}/${ids[1]}`)), [404, "not_found"])
          const undoChange = (yield* newest(dashboard)).detail
          assert.deepInclude(undoChange, { entity_id: String(newId), before: null })
          assert.deepInclude(undoChange.after, { id: newId, former_ids: [ids[1]] })
          assert.deepStrictEqual(codeOf(yield* undo(dashboard, undone.body.data.undo_change_id)), [
            422,
            "nothing_to_restore"
          ])
          // As PostgreSQL keeps it: the page's sort keys numbered again, the old id remembered.
          const rows = yield* Effect.flatMap(sql, (client) =>
            client<{ readonly id: number; readonly position: number; readonly former_ids: string }>`
              SELECT id, position, former_ids::text AS former_ids FROM landing_page_sections
              WHERE landing_page_id = ${pageId} ORDER BY position`.pipe(Effect.orDie)
          )
          assert.deepStrictEqual(
            rows.map((row) => [row.id, row.position, row.former_ids]),
            [
              [ids[0], 1, "{}"],
              [newId, 2, `{${ids[1]}}`],
              [ids[2], 3, "{}"]
            ]
          )
        })
      )

      it.effect("reorder: recorded as lp:<page id>, undone, and the undo undone", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const pageId = (yield* dashboard.write("POST", "/v1/landing-pages", { title: "Caftan" })).body.data.id
          const ids: Array<number> = []
          for (const type of ["hero", "gallery", "delivery_info", "order_form"]) {
            ids.push((yield* dashboard.write("POST", sections(pageId), { type })).body.data.id)
          }
          const before = yield* page(dashboard, pageId)
          const wanted = [ids[3], ids[0], ids[2], ids[1]]
          const reordered = yield* dashboard.write("POST", `${sections(pageId)}/reorder`, { section_ids: wanted })
          assert.strictEqual(reordered.status, 200, reordered.text)
          const after = yield* page(dashboard, pageId)
          assert.deepStrictEqual(
            after.map(([id, , position]: Array<unknown>) => [id, position]),
            wanted.map((id, index) => [id, index + 1])
          )
          const { listed, detail } = yield* newest(dashboard)
          assert.deepInclude(listed, { entity_id: `lp:${pageId}`, action: "update" })
          assert.deepStrictEqual(
            [detail.before, detail.after],
            [
              { landing_page_id: pageId, section_ids: ids },
              { landing_page_id: pageId, section_ids: wanted }
            ]
          )
          const undone = yield* undo(dashboard, listed.id)
          assert.strictEqual(undone.status, 200, undone.text)
          assert.deepStrictEqual(yield* page(dashboard, pageId), before)
          assert.strictEqual((yield* undo(dashboard, undone.body.data.undo_change_id)).status, 200)
          assert.deepStrictEqual(yield* page(dashboard, pageId), after)
        })
      )

      it.effect("20 creates at the top of one page at once: 20 sections at positions 1 to 20", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const pageId = (yield* dashboard.write("POST", "/v1/landing-pages", { title: "Rush" })).body.data.id
          const answers = yield* Effect.all(
            Array.from({ length: 20 }, (_, n) =>
              dashboard.write("POST", sections(pageId), { type: "text", position: 1, settings: { n } })
            ),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            answers.map((answer) => answer.status),
            Array.from({ length: 20 }, () => 201)
          )
          const items = yield* page(dashboard, pageId)
          assert.deepStrictEqual(
            items.map(([, , position]: Array<unknown>) => position),
            Array.from({ length: 20 }, (_, n) => n + 1)
          )
          assert.strictEqual(new Set(items.map((item: Array<{ n: number }>) => item[4]?.n)).size, 20)
        })
      )

      it.effect("property: any sequence of section writes, undone newest first, restores the page exactly", () =>
        Effect.gen(function* () {
          undoneInAllRuns = 0
          const context = yield* Effect.context<Effect.Services<ReturnType<typeof run>>>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(sectionWrite, { minLength: 1, maxLength: 8 }), (writes) =>
                Effect.runPromiseWith(context)(run(writes)).then(
                  (outcome) => outcome === true || Promise.reject(new Error(outcome))
                )
              ),
              { numRuns: 15, seed: 2_026_020 }
            )
          )
          assert.isAbove(undoneInAllRuns, 30, "the runs' writes were mostly accepted, and recorded")
        })
      )
    }
  )
}

const run = (writes: ReadonlyArray<SectionWrite>) =>
  Effect.gen(function* () {
    const { dashboard } = yield* dashboardStore()
    const request = requestOf(dashboard)
    const seeded = yield* seed(request)
    const before = yield* stateOf(request, seeded)
    const since = (yield* dashboard.get("/v1/changes?limit=1")).body.data.items[0].id as number
    for (const write of writes) {
      const answer = yield* applyWrite(request, seeded, write)
      if (answer.status >= 300) return `${write.kind} answered ${answer.text}`
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    undoneInAllRuns += recorded.length
    for (const change of recorded) {
      const undone = yield* undo(dashboard, change.id)
      if (undone.status !== 200) return `undo of #${change.id} (${change.summary}) answered ${undone.text}`
    }
    assert.deepStrictEqual(yield* stateOf(request, seeded), before)
    return true as const
  })
