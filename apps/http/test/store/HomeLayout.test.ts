/**
 * The merchant's own home page through the store API in memory (`src/store/home-layout`): its read (`store:read`,
 * cached 30 s), the four writes (`store:write`), each recorded as an update of the whole `store.home_layout` and
 * answering its `change_id` (spec undo rule 10), the undo of an added section (rule 2's exception), 409
 * `layout_changed` while a later layout change stands (rule 3), newest first, and the refusals; on `TestClock` time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore } = InMemory

type Services = Layer.Success<ReturnType<typeof InMemory.layer>>

const test = (name: string, body: Effect.Effect<void, never, Services>) =>
  it.effect(name, () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 8, 0, 0))
      yield* body
    }).pipe(Effect.provide(InMemory.layer()))
  )

const afterTheWindow = TestClock.adjust("31 seconds")

/** The layout's section ids in order, past the cache window. */
const idsOf = (store: InMemory.Caller) =>
  Effect.gen(function* () {
    yield* afterTheWindow
    const layout = (yield* store.get("/v1/store/home-layout")).body.data
    return layout.sections.map((section: { id: number }) => section.id) as ReadonlyArray<number>
  })

describe("home layout (memory)", () => {
  test(
    "add (201), update, move and remove, each answering its change_id, each an update of the whole layout",
    Effect.gen(function* () {
      const store = yield* createStore()
      const empty = yield* store.get("/v1/store/home-layout")
      assert.deepStrictEqual([empty.status, empty.body.data], [200, { sections: [], in_use: false }])
      const hero = yield* store.write("POST", "/v1/store/home-layout/sections", {
        type: "hero",
        settings: { title: "Soldes", image: "stores/1/hero.jpg", button_link: "https://example.dz/soldes" }
      })
      assert.strictEqual(hero.status, 201, hero.text)
      assert.deepStrictEqual(hero.body.data.section, {
        id: 1,
        type: "hero",
        enabled: true,
        settings: {
          title: "Soldes",
          subtitle: null,
          image: "stores/1/hero.jpg",
          button_text: null,
          button_link: "https://example.dz/soldes"
        }
      })
      assert.strictEqual(hero.body.data.position, 1)
      const [listed] = (yield* store.get("/v1/changes?entity=store.home_layout")).body.data.items
      assert.deepInclude(listed, {
        id: hero.body.data.change_id,
        entity: "store.home_layout",
        entity_id: "layout",
        action: "update",
        summary: "Added hero section #1 to the home layout"
      })
      const detail = (yield* store.get(`/v1/changes/${listed.id}`)).body.data
      assert.deepStrictEqual([detail.before, detail.after], [{ sections: [] }, { sections: [hero.body.data.section] }])
      const banner = yield* store.write("POST", "/v1/store/home-layout/sections", {
        type: "banner",
        settings: { image: "stores/1/promo.png", link: "/products/12", alt: "Promo" },
        position: 1
      })
      assert.deepStrictEqual([banner.status, banner.body.data.section.id, banner.body.data.position], [201, 2, 1])
      const faq = yield* store.write("POST", "/v1/store/home-layout/sections", {
        type: "faq",
        enabled: false,
        settings: { items: [{ question: "Délai ?", answer: "48 h" }] }
      })
      assert.deepStrictEqual(yield* idsOf(store), [2, 1, 3])
      const updated = yield* store.write("PATCH", "/v1/store/home-layout/sections/3", { enabled: true })
      assert.deepStrictEqual(
        [updated.status, updated.body.data.section.enabled, updated.body.data.position],
        [200, true, 3]
      )
      assert.isAbove(updated.body.data.change_id, faq.body.data.change_id)
      const moved = yield* store.write("POST", "/v1/store/home-layout/move", { id: 3, position: 1 })
      assert.strictEqual(moved.status, 200, moved.text)
      assert.deepStrictEqual(
        moved.body.data.sections.map((section: { id: number }) => section.id),
        [3, 2, 1]
      )
      assert.isTrue(moved.body.data.in_use)
      assert.isNumber(moved.body.data.change_id)
      const removed = yield* store.write("DELETE", "/v1/store/home-layout/sections/2")
      assert.deepInclude(removed.body.data, { deleted: true, id: 2 })
      assert.deepStrictEqual(
        (yield* store.get("/v1/changes?entity=store.home_layout")).body.data.items.map(
          (item: { summary: string }) => item.summary
        ),
        [
          "Removed banner section #2 from the home layout",
          "Moved faq section #3 to position 1 of the home layout",
          "Updated faq section #3 of the home layout",
          "Added faq section #3 to the home layout",
          "Added banner section #2 to the home layout",
          "Added hero section #1 to the home layout"
        ]
      )
      const unchanged = yield* store.write("PATCH", "/v1/store/home-layout/sections/3", { enabled: true })
      assert.deepStrictEqual([unchanged.status, unchanged.body.data.change_id], [200, null])
    })
  )

  test(
    "undo: an added section goes; 409 layout_changed while a later change stands; newest first; undo of undo",
    Effect.gen(function* () {
      const store = yield* createStore()
      const add = (body: object) =>
        Effect.map(store.write("POST", "/v1/store/home-layout/sections", body), (answer) => answer.body.data)
      const first = yield* add({ type: "categories" })
      const second = yield* add({ type: "rich_text", settings: { text: "Livraison dans les 58 wilayas" } })
      const refused = yield* store.write("POST", `/v1/changes/${first.change_id}/undo`)
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [
          409,
          "layout_changed",
          `The home layout changed after change #${first.change_id}; undo the later changes first, newest first`
        ]
      )
      const undone = yield* store.write("POST", `/v1/changes/${second.change_id}/undo`)
      assert.deepStrictEqual(undone.body.data, {
        undone: true,
        change_id: second.change_id,
        entity: "store.home_layout",
        undo_change_id: undone.body.data.undo_change_id
      })
      assert.deepStrictEqual(yield* idsOf(store), [1])
      // The undo of the undo re-applies the add: the section comes back with its id.
      const redo = yield* store.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
      assert.strictEqual(redo.status, 200, redo.text)
      assert.deepStrictEqual(yield* idsOf(store), [1, 2])
      // Newest first again: the re-application, then the first add.
      yield* store.write("POST", `/v1/changes/${redo.body.data.undo_change_id}/undo`)
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${first.change_id}/undo`)).status, 200)
      assert.deepStrictEqual(yield* idsOf(store), [])
      // Ids are never given twice, not even after an undo took a section away.
      assert.strictEqual((yield* add({ type: "faq" })).section.id, 3)
      // Other entities' later changes do not block it.
      yield* store.write("PATCH", "/v1/store", { name: "Autre" })
      const latest = (yield* store.get("/v1/changes?entity=store.home_layout&limit=1")).body.data.items[0]
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${latest.id}/undo`)).status, 200)
    })
  )

  test(
    "refusals: 400 with the field's message, 404 for an unknown section, 400 for a path id not all digits, scopes",
    Effect.gen(function* () {
      const store = yield* createStore()
      yield* store.write("POST", "/v1/store/home-layout/sections", { type: "hero" })
      const cases: ReadonlyArray<readonly [string, string, unknown, number, string]> = [
        ["POST", "/v1/store/home-layout/sections", { type: "slider" }, 400, "type must be one of hero, categories"],
        ["POST", "/v1/store/home-layout/sections", { type: "banner" }, 400, "settings.image is required"],
        ["POST", "/v1/store/home-layout/sections", { type: "faq", position: 0 }, 400, "position must be a whole"],
        ["POST", "/v1/store/home-layout/sections", { type: "faq", position: 1e308 }, 400, "position must be a whole"],
        [
          "POST",
          "/v1/store/home-layout/sections",
          { type: "rich_text", settings: { text: "\ud800" } },
          400,
          "settings.text must be 1 to 5000 characters"
        ],
        ["PATCH", "/v1/store/home-layout/sections/1", { type: "faq" }, 400, "A section's type cannot change"],
        ["PATCH", "/v1/store/home-layout/sections/1", { settings: [] }, 400, "settings must be an object"],
        ["PATCH", "/v1/store/home-layout/sections/9", {}, 404, "Section 9 not found"],
        ["PATCH", "/v1/store/home-layout/sections/99999999999", {}, 404, "Section 99999999999 not found"],
        ["DELETE", "/v1/store/home-layout/sections/9", undefined, 404, "Section 9 not found"],
        ["POST", "/v1/store/home-layout/move", { id: 9, position: 1 }, 404, "Section 9 not found"],
        [
          "POST",
          "/v1/store/home-layout/move",
          { id: 1, position: 2 },
          400,
          "position must be a whole number from 1 to 1"
        ],
        ["POST", "/v1/store/home-layout/move", { position: 1 }, 400, "id must be the id of a section"]
      ]
      for (const [method, path, body, status, message] of cases) {
        const refused = yield* store.write(method, path, body)
        assert.strictEqual(refused.status, status, `${method} ${path} ${JSON.stringify(body)}: ${refused.text}`)
        assert.isTrue(refused.body.error.message.startsWith(message), refused.body.error.message)
      }
      assert.deepStrictEqual(codeOf(yield* store.write("DELETE", "/v1/store/home-layout/sections/1x")), [
        400,
        "bad_request"
      ])
      const reader = yield* InMemory.keyWithScopes(store.id, ["store:read"])
      assert.strictEqual((yield* reader.get("/v1/store/home-layout")).status, 200)
      assert.deepStrictEqual(
        codeOf(yield* reader.write("POST", "/v1/store/home-layout/move", { id: 1, position: 1 })),
        [403, "forbidden"]
      )
      const noKey = yield* call("POST", "/v1/store/home-layout/sections", { token: store.token, body: { type: "faq" } })
      assert.deepStrictEqual(codeOf(noKey), [400, "bad_request"])
      // At most 30 sections.
      for (let i = 2; i <= 30; i++) yield* store.write("POST", "/v1/store/home-layout/sections", { type: "faq" })
      const full = yield* store.write("POST", "/v1/store/home-layout/sections", { type: "faq" })
      assert.deepStrictEqual(
        [...codeOf(full), full.body.error.message],
        [400, "bad_request", "The home layout holds at most 30 sections; remove one first"]
      )
    })
  )
})
