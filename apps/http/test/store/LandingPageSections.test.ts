/**
 * Landing page sections through the store API in memory (`src/store/landing-page-sections`;
 * docs/store-api-config.md, "Landing page sections"): the shapes, the scopes, every failure in the envelope with its
 * code, path ids, a replayed write, the page's `section_count`, and the `lp.section` history and undo rules
 * through `/v1/changes` (a deleted section returns with a new id; an update's, a reorder's and an undo's undo).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

type Caller = InMemory.Caller

/** A landing page of the caller's store; its id. */
const newPage = (caller: Caller, title = "Sérum éclat") =>
  Effect.map(caller.write("POST", "/v1/landing-pages", { title }), (answer) => answer.body.data.id as number)

const sectionsPath = (pageId: number) => `/v1/landing-pages/${pageId}/sections`

/** The page's sections as `[id, type, position]`. */
const order = (caller: Caller, pageId: number) =>
  Effect.map(caller.get(sectionsPath(pageId)), (answer) =>
    answer.body.data.items.map((item: { id: number; type: string; position: number }) => [
      item.id,
      item.type,
      item.position
    ])
  )

/** The newest change of the store, in detail. */
const newest = (caller: Caller) =>
  Effect.gen(function* () {
    const id = (yield* caller.get("/v1/changes?limit=1")).body.data.items[0].id
    return (yield* caller.get(`/v1/changes/${id}`)).body.data
  })

const undo = (caller: Caller, changeId: number) => caller.write("POST", `/v1/changes/${changeId}/undo`)

layer(InMemory.layer(), { excludeTestServices: true })("landing page sections (memory)", (it) => {
  it.effect("creates (201), lists top first, reads one, PATCHes, deletes; the page counts its sections", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const hero = yield* store.write("POST", sectionsPath(pageId), {
        type: "hero",
        settings: { title: "سيروم طبيعي", subtitle: "Livraison 58 wilayas", image: "/media/hero.webp", price: 2900 }
      })
      assert.strictEqual(hero.status, 201, hero.text)
      assert.deepStrictEqual(
        { ...hero.body.data, id: 0, created_at: "", updated_at: "" },
        {
          id: 0,
          landing_page_id: pageId,
          type: "hero",
          position: 1,
          is_visible: true,
          settings: { title: "سيروم طبيعي", subtitle: "Livraison 58 wilayas", image: "/media/hero.webp", price: 2900 },
          created_at: "",
          updated_at: ""
        }
      )
      assert.match(hero.body.data.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const form = (yield* store.write("POST", sectionsPath(pageId), { type: "Order_Form", is_visible: false })).body
        .data
      const faq = (yield* store.write("POST", sectionsPath(pageId), { type: "faq", position: 2 })).body.data
      assert.deepStrictEqual(yield* order(store, pageId), [
        [hero.body.data.id, "hero", 1],
        [faq.id, "faq", 2],
        [form.id, "order_form", 3]
      ])
      const list = yield* store.get(sectionsPath(pageId))
      assert.deepStrictEqual(Object.keys(list.body.data), ["items"])
      assert.strictEqual(list.headers.get("x-cache"), null, "sections are read fresh")
      assert.deepInclude((yield* store.get(`${sectionsPath(pageId)}/${form.id}`)).body.data, {
        type: "order_form",
        position: 3,
        is_visible: false
      })
      assert.strictEqual((yield* store.get(`/v1/landing-pages/${pageId}`)).body.data.section_count, 3)
      const shown = yield* store.write("PATCH", `${sectionsPath(pageId)}/${form.id}`, {
        is_visible: true,
        settings: { fields: ["name", "phone", "wilaya", "commune"], button: "اطلب الآن" }
      })
      assert.strictEqual(shown.status, 200, shown.text)
      assert.deepInclude(shown.body.data, { is_visible: true, position: 3 })
      const deleted = yield* store.write("DELETE", `${sectionsPath(pageId)}/${faq.id}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: faq.id })
      assert.deepStrictEqual(yield* order(store, pageId), [
        [hero.body.data.id, "hero", 1],
        [form.id, "order_form", 2]
      ])
      assert.strictEqual((yield* store.get(`/v1/landing-pages/${pageId}`)).body.data.section_count, 2)
      const reordered = yield* store.write("POST", `${sectionsPath(pageId)}/reorder`, {
        section_ids: [form.id, hero.body.data.id]
      })
      assert.strictEqual(reordered.status, 200, reordered.text)
      assert.deepStrictEqual(
        reordered.body.data.items.map((item: { id: number; position: number }) => [item.id, item.position]),
        [
          [form.id, 1],
          [hero.body.data.id, 2]
        ]
      )
      // A page's delete takes its sections.
      yield* store.write("DELETE", `/v1/landing-pages/${pageId}`)
      assert.deepStrictEqual(codeOf(yield* store.get(sectionsPath(pageId))), [404, "not_found"])
    })
  )

  it.effect("answers every failure with its code, in order", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const create = (body: unknown) => store.write("POST", sectionsPath(pageId), body)
      const refused = (answer: InMemory.Answer) => [...codeOf(answer), answer.body.error.message]
      assert.deepStrictEqual(refused(yield* create([1])), [400, "bad_request", "Body must be a JSON object"])
      assert.deepStrictEqual(codeOf(yield* create({ type: "slider", position: 0 })), [422, "invalid_section_type"])
      assert.deepStrictEqual(codeOf(yield* create({ position: 1 })), [422, "invalid_section_type"])
      assert.deepStrictEqual(refused(yield* create({ type: "hero", position: 2, is_visible: "yes" })), [
        422,
        "invalid_position",
        "position must be 1 (the page has no sections)"
      ])
      assert.deepStrictEqual(refused(yield* create({ type: "hero", is_visible: "yes", settings: [] })), [
        400,
        "bad_request",
        "is_visible must be true or false"
      ])
      assert.deepStrictEqual(refused(yield* create({ type: "hero", settings: { faq: [{ q: "ok", a: "\u0000" }] } })), [
        422,
        "invalid_settings",
        "settings.faq[0].a must be text without NUL characters or lone surrogates"
      ])
      assert.deepStrictEqual(refused(yield* create({ type: "hero", settings: { offer: { price: 1e20 } } })), [
        422,
        "invalid_settings",
        "settings.offer.price must be a number between -100000000 and 100000000"
      ])
      // A number JSON reads as infinity, and a lone surrogate, sent as raw JSON text.
      for (const raw of ['{"type":"hero","settings":{"price":1e309}}', '{"type":"hero","settings":{"t":"\\ud800"}}']) {
        const answer = yield* InMemory.call("POST", sectionsPath(pageId), { token: store.token, key: key(), raw })
        assert.deepStrictEqual(codeOf(answer), [422, "invalid_settings"], raw)
      }
      const tooBig = yield* create({ type: "text", settings: { body: "ن".repeat(40_000) } })
      assert.deepStrictEqual(codeOf(tooBig), [422, "invalid_settings"])
      assert.match(tooBig.body.error.message, /^settings must be at most 65536 bytes as JSON \(these are \d+\)$/)
      const hero = (yield* create({ type: "hero" })).body.data
      const patch = (body: unknown) => store.write("PATCH", `${sectionsPath(pageId)}/${hero.id}`, body)
      assert.deepStrictEqual(codeOf(yield* patch({ type: "video" })), [422, "immutable_field"])
      assert.deepStrictEqual(codeOf(yield* patch({ position: 1 })), [422, "immutable_field"])
      assert.deepStrictEqual(codeOf(yield* patch({ settings: "x" })), [422, "invalid_settings"])
      const reorder = (section_ids: unknown) => store.write("POST", `${sectionsPath(pageId)}/reorder`, { section_ids })
      assert.deepStrictEqual(codeOf(yield* reorder([])), [422, "invalid_section_order"])
      assert.deepStrictEqual(codeOf(yield* reorder([hero.id, hero.id])), [422, "invalid_section_order"])
      assert.deepStrictEqual(codeOf(yield* reorder(String(hero.id))), [422, "invalid_section_order"])
      // 404: an unknown page, another store's, an unknown section, a section of another page.
      const other = yield* createStore()
      const theirs = yield* newPage(other)
      const otherPage = yield* newPage(store, "Autre")
      for (const answer of [
        yield* store.get(sectionsPath(theirs)),
        yield* store.write("POST", sectionsPath(theirs), { type: "hero" }),
        yield* store.write("POST", `${sectionsPath(theirs)}/reorder`, { section_ids: [] }),
        yield* store.get(`${sectionsPath(pageId)}/999999`),
        yield* store.get(`${sectionsPath(otherPage)}/${hero.id}`),
        yield* store.write("PATCH", `${sectionsPath(otherPage)}/${hero.id}`, {}),
        yield* store.write("DELETE", `${sectionsPath(otherPage)}/${hero.id}`),
        yield* store.get(sectionsPath(0)),
        yield* store.get(`${sectionsPath(pageId)}/2147483648`)
      ]) {
        assert.deepStrictEqual(codeOf(answer), [404, "not_found"])
      }
      // Path ids: all digits, else 400.
      for (const path of ["/v1/landing-pages/abc/sections", `${sectionsPath(pageId)}/x1`]) {
        const answer = yield* store.get(path)
        assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], path)
      }
      // 409: a page holds at most 50 sections.
      for (let n = 1; n < 50; n++) yield* create({ type: "text", settings: { n } })
      const full = yield* create({ type: "text" })
      assert.deepStrictEqual(refused(full), [
        409,
        "limit_reached",
        "A landing page holds at most 50 sections; this one has 50"
      ])
    })
  )

  it.effect("reads need landing_pages:read, writes landing_pages:write; minted keys have both", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const hero = (yield* store.write("POST", sectionsPath(pageId), { type: "hero" })).body.data
      const app = yield* InMemory.appToken(store.id, ["orders:read"])
      for (const path of [sectionsPath(pageId), `${sectionsPath(pageId)}/${hero.id}`]) {
        const answer = yield* app.get(path)
        assert.deepStrictEqual(
          [...codeOf(answer), answer.body.error.message],
          [403, "forbidden", "Missing scope: landing_pages:read"]
        )
      }
      const reader = yield* InMemory.keyWithScopes(store.id, ["landing_pages:read"])
      assert.strictEqual((yield* reader.get(sectionsPath(pageId))).status, 200)
      for (const [method, path] of [
        ["POST", sectionsPath(pageId)],
        ["PATCH", `${sectionsPath(pageId)}/${hero.id}`],
        ["DELETE", `${sectionsPath(pageId)}/${hero.id}`],
        ["POST", `${sectionsPath(pageId)}/reorder`]
      ] as const) {
        const answer = yield* reader.write(method, path, {})
        assert.deepStrictEqual(
          [...codeOf(answer), answer.body.error.message],
          [403, "forbidden", "Missing scope: landing_pages:write"],
          `${method} ${path}`
        )
      }
      const minted = yield* InMemory.apiKey(store)
      assert.strictEqual((yield* minted.write("POST", sectionsPath(pageId), { type: "faq" })).status, 201)
      // An installed app with the scopes writes, and its write is recorded under its token's id.
      const builder = yield* InMemory.appToken(store.id, ["landing_pages:read", "landing_pages:write"])
      assert.strictEqual((yield* builder.write("POST", sectionsPath(pageId), { type: "video" })).status, 201)
      const change = yield* newest(store)
      assert.match(change.key_id, /^app_/)
    })
  )

  it.effect("a write is replayed for its Idempotency-Key; a refusal too; another body with it is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const k = key()
      const first = yield* store.write("POST", sectionsPath(pageId), { type: "benefits" }, k)
      const again = yield* store.write("POST", sectionsPath(pageId), { type: "benefits" }, k)
      assert.deepStrictEqual([again.headers.get("idempotency-replay"), again.text], ["1", first.text])
      assert.strictEqual((yield* store.get(sectionsPath(pageId))).body.data.items.length, 1)
      assert.deepStrictEqual(codeOf(yield* store.write("POST", sectionsPath(pageId), { type: "faq" }, k)), [
        422,
        "idempotency_key_reuse"
      ])
      const bad = key()
      const refusal = yield* store.write("POST", sectionsPath(pageId), { type: "nope" }, bad)
      const replayed = yield* store.write("POST", sectionsPath(pageId), { type: "nope" }, bad)
      assert.deepStrictEqual([replayed.headers.get("idempotency-replay"), replayed.text], ["1", refusal.text])
      const noKey = yield* InMemory.call("POST", sectionsPath(pageId), { token: store.token, body: { type: "faq" } })
      assert.deepStrictEqual(codeOf(noKey), [400, "bad_request"])
    })
  )

  it.effect("each write is in GET /v1/changes as lp.section; its detail has before and after; lp.page is empty", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const a = (yield* store.write("POST", sectionsPath(pageId), { type: "hero", settings: { t: 1 } })).body.data
      const b = (yield* store.write("POST", sectionsPath(pageId), { type: "faq" })).body.data
      yield* store.write("PATCH", `${sectionsPath(pageId)}/${a.id}`, { settings: { t: 2 } })
      yield* store.write("PATCH", `${sectionsPath(pageId)}/${a.id}`, { settings: { t: 2 } })
      yield* store.write("POST", `${sectionsPath(pageId)}/reorder`, { section_ids: [b.id, a.id] })
      yield* store.write("DELETE", `${sectionsPath(pageId)}/${b.id}`)
      const listed = (yield* store.get("/v1/changes?entity=lp.section")).body.data.items
      assert.deepStrictEqual(
        listed.map((item: Record<string, unknown>) => [item.entity, item.entity_id, item.action, item.summary]),
        [
          ["lp.section", String(b.id), "delete", `Deleted faq section #${b.id} of landing page #${pageId}`],
          ["lp.section", `lp:${pageId}`, "update", `Reordered the sections of landing page #${pageId}`],
          ["lp.section", String(a.id), "update", `Updated hero section #${a.id} of landing page #${pageId} (settings)`],
          ["lp.section", String(b.id), "create", `Added faq section #${b.id} to landing page #${pageId}`],
          ["lp.section", String(a.id), "create", `Added hero section #${a.id} to landing page #${pageId}`]
        ]
      )
      assert.deepStrictEqual((yield* store.get("/v1/changes?entity=lp.page")).body.data.items, [])
      const update = (yield* store.get(`/v1/changes/${listed[2].id}`)).body.data
      assert.deepInclude(update, { key_id: store.keyId, undone: false, undone_by_id: null })
      // What the PATCH changed, with the section and its page.
      assert.deepStrictEqual(update.before, { id: a.id, landing_page_id: pageId, settings: a.settings })
      assert.deepStrictEqual(update.after, { id: a.id, landing_page_id: pageId, settings: { t: 2 } })
      const reorder = (yield* store.get(`/v1/changes/${listed[1].id}`)).body.data
      assert.deepStrictEqual(
        [reorder.before, reorder.after],
        [
          { landing_page_id: pageId, section_ids: [a.id, b.id] },
          { landing_page_id: pageId, section_ids: [b.id, a.id] }
        ]
      )
      // The change endpoints: store:read plus landing_pages:read to read, landing_pages:write to undo.
      const storeReader = yield* InMemory.keyWithScopes(store.id, ["store:read"])
      const detail = yield* storeReader.get(`/v1/changes/${listed[2].id}`)
      assert.deepStrictEqual(
        [...codeOf(detail), detail.body.error.message],
        [403, "forbidden", "Missing scope: landing_pages:read"]
      )
      const refusedUndo = yield* storeReader.write("POST", `/v1/changes/${listed[2].id}/undo`)
      assert.deepStrictEqual(
        [...codeOf(refusedUndo), refusedUndo.body.error.message],
        [403, "forbidden", "Missing scope: landing_pages:write"]
      )
      const undoer = yield* InMemory.keyWithScopes(store.id, ["landing_pages:write"])
      assert.strictEqual((yield* undo(undoer, listed[2].id)).status, 200)
    })
  )

  it.effect("undo: an update's and its undo's; a create's is 422; a delete's returns a new id; its undo's is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const hero = (yield* store.write("POST", sectionsPath(pageId), { type: "hero", settings: { t: "avant" } })).body
        .data
      const created = yield* newest(store)
      const faq = (yield* store.write("POST", sectionsPath(pageId), { type: "faq", settings: { q: 1 } })).body.data
      assert.deepStrictEqual(codeOf(yield* undo(store, created.id)), [422, "nothing_to_restore"])
      yield* store.write("PATCH", `${sectionsPath(pageId)}/${hero.id}`, { settings: { t: "après" }, is_visible: false })
      const update = yield* newest(store)
      const undone = yield* undo(store, update.id)
      assert.deepStrictEqual(Object.keys(undone.body.data), ["undone", "change_id", "entity", "undo_change_id"])
      assert.deepInclude(undone.body.data, { undone: true, change_id: update.id, entity: "lp.section" })
      assert.deepInclude((yield* store.get(`${sectionsPath(pageId)}/${hero.id}`)).body.data, {
        is_visible: true,
        settings: { t: "avant" }
      })
      assert.deepStrictEqual(codeOf(yield* undo(store, update.id)), [409, "already_undone"])
      assert.strictEqual((yield* undo(store, undone.body.data.undo_change_id)).status, 200)
      assert.deepInclude((yield* store.get(`${sectionsPath(pageId)}/${hero.id}`)).body.data, {
        is_visible: false,
        settings: { t: "après" }
      })
      yield* store.write("DELETE", `${sectionsPath(pageId)}/${hero.id}`)
      const deletion = yield* newest(store)
      const back = yield* undo(store, deletion.id)
      assert.strictEqual(back.status, 200, back.text)
      const [restored] = (yield* store.get(sectionsPath(pageId))).body.data.items
      assert.notStrictEqual(restored.id, hero.id)
      assert.deepStrictEqual(
        [restored.type, restored.position, restored.is_visible, restored.settings, restored.created_at],
        ["hero", 1, false, { t: "après" }, hero.created_at]
      )
      const undoChange = (yield* store.get(`/v1/changes/${back.body.data.undo_change_id}`)).body.data
      assert.deepInclude(undoChange, {
        entity_id: String(restored.id),
        before: null,
        summary: `Undo of change #${deletion.id}`
      })
      assert.deepStrictEqual(codeOf(yield* undo(store, undoChange.id)), [422, "nothing_to_restore"])
      assert.deepStrictEqual(codeOf(yield* store.get(`${sectionsPath(pageId)}/${hero.id}`)), [404, "not_found"])
      assert.deepStrictEqual(
        (yield* order(store, pageId)).map(([id]: [number]) => id),
        [restored.id, faq.id]
      )
    })
  )

  it.effect("undo: a reorder's; a delete's on a full page is 409 and stays undoable; the page gone is 422", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pageId = yield* newPage(store)
      const ids: Array<number> = []
      for (const type of ["hero", "benefits", "order_form"]) {
        ids.push((yield* store.write("POST", sectionsPath(pageId), { type })).body.data.id)
      }
      yield* store.write("POST", `${sectionsPath(pageId)}/reorder`, { section_ids: [ids[2], ids[0], ids[1]] })
      const reorder = yield* newest(store)
      assert.strictEqual((yield* undo(store, reorder.id)).status, 200)
      assert.deepStrictEqual(
        (yield* order(store, pageId)).map(([id]: [number]) => id),
        ids
      )
      yield* store.write("DELETE", `${sectionsPath(pageId)}/${ids[1]}`)
      const deletion = yield* newest(store)
      for (let n = 0; n < 48; n++) yield* store.write("POST", sectionsPath(pageId), { type: "text" })
      const full = yield* undo(store, deletion.id)
      assert.deepStrictEqual(
        [...codeOf(full), full.body.error.message],
        [409, "limit_reached", "A landing page holds at most 50 sections; this one has 50"]
      )
      const last = (yield* order(store, pageId)).at(-1)[0]
      yield* store.write("DELETE", `${sectionsPath(pageId)}/${last}`)
      assert.strictEqual((yield* undo(store, deletion.id)).status, 200)
      assert.deepStrictEqual((yield* order(store, pageId))[1].slice(1), ["benefits", 2])
      yield* store.write("PATCH", `${sectionsPath(pageId)}/${ids[0]}`, { is_visible: false })
      const update = yield* newest(store)
      const now = (yield* order(store, pageId)).map(([id]: [number]) => id)
      yield* store.write("POST", `${sectionsPath(pageId)}/reorder`, { section_ids: [...now].reverse() })
      const secondReorder = yield* newest(store)
      yield* store.write("DELETE", `${sectionsPath(pageId)}/${ids[2]}`)
      const formDeletion = yield* newest(store)
      yield* store.write("DELETE", `/v1/landing-pages/${pageId}`)
      for (const change of [update, secondReorder, formDeletion]) {
        assert.deepStrictEqual(codeOf(yield* undo(store, change.id)), [422, "restore_target_missing"], change.summary)
      }
    })
  )
})
