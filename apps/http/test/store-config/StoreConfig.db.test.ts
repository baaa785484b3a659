/**
 * The store's own configuration over a socket, on each database (spec store-api-config "Recorded entities",
 * "Change history"): for each of `store.settings`, `store.design`, `store.home_sections` and `store.home_layout`, a
 * write, listed in `GET /v1/changes`, its detail with `before` and `after`, its undo, the item read as before — with
 * the same key, once the 30-second read cache has let go of it — and the undo of the undo applying it again; and
 * each one's own rule: the store row the settings share with the theme titles, the digital palette of the design,
 * the partial sections, and the home layout's `layout_changed`, its ids and simultaneous adds. A property (any
 * sequence of these writes, undone newest first, restores the exact start) runs over `ConfigWrites.ts`, the helper
 * for `Changes.db.test.ts`'s property.
 *
 * The read cache's window passes on the server's clock: the server runs on a `Clock` that is the wall clock plus an
 * offset the test moves (`passTheWindow`, 31 s), as `TestClock` does for the handler tests in memory.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Duration, Effect, Layer } from "effect"
import * as fc from "fast-check"
import { type Client, codeOf, dashboardStore } from "../ConfigHarness.ts"
import { backends, storeServer } from "../StoreHarness.ts"
import { applyWrite, type ConfigWrite, configWrite, requestOf, stateOf } from "./ConfigWrites.ts"

/** The wall clock, `offset` milliseconds on. */
const offset = { millis: 0 }
const wall = Clock.Clock.defaultValue()
const shifted: Clock.Clock = {
  currentTimeMillisUnsafe: () => wall.currentTimeMillisUnsafe() + offset.millis,
  currentTimeMillis: Effect.sync(() => wall.currentTimeMillisUnsafe() + offset.millis),
  currentTimeNanosUnsafe: () => wall.currentTimeNanosUnsafe() + BigInt(offset.millis) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => wall.currentTimeNanosUnsafe() + BigInt(offset.millis) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => wall.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: wall.monotonicTimeNanos,
  sleep: (duration: Duration.Duration) => wall.sleep(duration)
}

/** Past the read cache's 30 seconds, on the server's clock. */
const passTheWindow = Effect.sync(() => {
  offset.millis += Duration.toMillis(Duration.seconds(31))
})

/** The store's newest change. */
const newest = (c: Client) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/**
 * The recorded round trip of one entity: `write` changes the item read at `path`; the change is listed, its detail
 * has `before` and `after`; its undo restores the item (read with the same key once the cache let go of it); the
 * undo of the undo writes it again. Answers the item before and after the write.
 */
const roundTrip = (
  c: Client,
  entity: string,
  entityId: string,
  path: string,
  write: Effect.Effect<{ readonly status: number; readonly text: string }>
) =>
  Effect.gen(function* () {
    const before = (yield* c.get(path)).body.data
    const written = yield* write
    assert.isBelow(written.status, 300, written.text)
    const cached = yield* c.get(path)
    assert.deepStrictEqual([cached.headers.get("x-cache"), cached.body.data], ["HIT", before], "the cache's 30 s")
    yield* passTheWindow
    const after = (yield* c.get(path)).body.data
    assert.notDeepEqual(after, before)
    const listed = (yield* c.get(`/v1/changes?entity=${entity}`)).body.data.items[0]
    assert.deepInclude(listed, { entity, entity_id: entityId, action: "update", undone: false })
    const detail = (yield* c.get(`/v1/changes/${listed.id}`)).body.data
    assert.isNotNull(detail.before)
    assert.isNotNull(detail.after)
    const undone = yield* c.write("POST", `/v1/changes/${listed.id}/undo`)
    assert.strictEqual(undone.status, 200, undone.text)
    assert.deepStrictEqual(undone.body.data, {
      undone: true,
      change_id: listed.id,
      entity,
      undo_change_id: undone.body.data.undo_change_id
    })
    yield* passTheWindow
    const restored = yield* c.get(path)
    assert.deepStrictEqual([restored.headers.get("x-cache"), restored.body.data], ["MISS", before])
    const undo = (yield* c.get(`/v1/changes/${undone.body.data.undo_change_id}`)).body.data
    assert.deepInclude(undo, { summary: `Undo of change #${listed.id}`, entity, entity_id: entityId })
    const again = yield* c.write("POST", `/v1/changes/${undo.id}/undo`)
    assert.strictEqual(again.status, 200, again.text)
    yield* passTheWindow
    assert.deepStrictEqual((yield* c.get(path)).body.data, after, "the undo of the undo applies the change again")
    assert.deepStrictEqual(codeOf(yield* c.write("POST", `/v1/changes/${listed.id}/undo`)), [409, "already_undone"])
    return { before, after, detail }
  })

/** How many changes the property's runs undid: it must not hold only because nothing was recorded. */
let undoneInAllRuns = 0

/** The property's run: a store with a layout section, `writes`, every change since undone newest first. */
const walkBack = (writes: ReadonlyArray<ConfigWrite>) =>
  Effect.gen(function* () {
    const { dashboard } = yield* dashboardStore()
    const request = requestOf(dashboard)
    yield* request("POST", "/v1/store/home-layout/sections", { type: "hero" })
    const start = yield* stateOf(request)
    const since = (yield* newest(dashboard)).id as number
    for (const write of writes) {
      const answer = yield* applyWrite(request, write)
      assert.isBelow(answer.status, 300, `${JSON.stringify(write)}: ${answer.text}`)
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    for (const change of recorded) {
      const answer = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      assert.strictEqual(answer.status, 200, `undo of #${change.id} (${change.summary}): ${answer.text}`)
      undoneInAllRuns++
    }
    assert.deepStrictEqual(yield* stateOf(request), start)
  })

for (const backend of backends) {
  layer(storeServer(backend).pipe(Layer.provide(Layer.succeed(Clock.Clock, shifted))), {
    timeout: "240 seconds",
    excludeTestServices: true
  })(`store configuration (${backend.name})`, (it) => {
    it.effect("store.settings: PATCH /v1/store recorded and undone; the row it shares with the themes' titles", () =>
      Effect.gen(function* () {
        const { dashboard } = yield* dashboardStore({ name: "Maison Tlemcen" })
        const { before, after, detail } = yield* roundTrip(
          dashboard,
          "store.settings",
          "settings",
          "/v1/store",
          dashboard.write("PATCH", "/v1/store", {
            name: "Maison Tlemcen — Artisanat",
            language: "fr",
            banner: "stores/9/banner.jpg",
            contact: { phone: "043 21 22 23", whatsapp: "+213 661 23 45 67", wilaya_id: 13 },
            social_links: { facebook: "https://facebook.com/maisontlemcen" },
            currency: { symbol: "د.ج", position: "before", decimals: 2 }
          })
        )
        assert.deepInclude(after, {
          name: "Maison Tlemcen — Artisanat",
          language: "fr",
          slug: before.slug,
          created_at: before.created_at,
          contact: { phone: "043212223", whatsapp: "+213661234567", email: null, address: null, wilaya_id: 13 }
        })
        assert.deepInclude(detail.before, { name: "Maison Tlemcen", language: "ar", banner: null })
        assert.deepInclude(detail.after, { name: "Maison Tlemcen — Artisanat", currency: after.currency })
        // One `stores` row: the language written here is the one the theme list is titled in.
        const classic = (yield* dashboard.get("/v1/themes")).body.data.items[0]
        assert.deepStrictEqual([classic.key, classic.title], ["classic", "Classique"])
        // PATCH /v1/store is no longer reserved: nothing answers 405 there.
        const noKey = yield* dashboard.write("PATCH", "/v1/store", { name: "" })
        assert.deepStrictEqual(codeOf(noKey), [400, "bad_request"])
      })
    )

    it.effect("store.design: recorded and undone; the digital palette; GET /v1/store's theme shows the same", () =>
      Effect.gen(function* () {
        const { dashboard } = yield* dashboardStore()
        const { after } = yield* roundTrip(
          dashboard,
          "store.design",
          "design",
          "/v1/store/design",
          dashboard.write("PATCH", "/v1/store/design", {
            colors: { primary_color: "#0F766E", button_color: "#f97316", footer_color: "#111" },
            font_family: "Tajawal",
            border_radius: 4,
            button_style: "outline"
          })
        )
        assert.deepInclude(after.colors, { primary_color: "#0f766e", button_color: "#f97316", footer_color: "#111111" })
        assert.deepStrictEqual((yield* dashboard.get("/v1/store")).body.data.theme, {
          primary_color: "#0f766e",
          secondary_color: "#f59e0b",
          background_color: "#ffffff",
          font_family: "Tajawal"
        })
        // The digital theme: stock colours take the dark palette, the merchant's stay; null is the dark stock one.
        yield* dashboard.write("POST", "/v1/store/theme", { theme: "digital" })
        const design = (yield* dashboard.write("PATCH", "/v1/store/design", { colors: { primary_color: null } })).body
          .data
        assert.deepInclude(design, { theme: "digital", is_digital: true, color_mode: "dark" })
        assert.deepInclude(design.colors, {
          primary_color: "#a78bfa",
          secondary_color: "#22d3ee",
          background_color: "#0b1020",
          footer_color: "#111111"
        })
        yield* dashboard.write("POST", "/v1/store/theme", { theme: "classic" })
        yield* passTheWindow
        assert.deepInclude((yield* dashboard.get("/v1/store/design")).body.data.colors, {
          primary_color: "#1f2937",
          secondary_color: "#f59e0b",
          background_color: "#ffffff"
        })
      })
    )

    it.effect("store.home_sections: recorded and undone; only the sections and keys sent change", () =>
      Effect.gen(function* () {
        const { dashboard } = yield* dashboardStore()
        const { before, after, detail } = yield* roundTrip(
          dashboard,
          "store.home_sections",
          "home_sections",
          "/v1/store/home-sections",
          dashboard.write("PATCH", "/v1/store/home-sections", {
            hero: { title: "الدفع عند الاستلام", button_link: "/categories/robes" },
            faq: { enabled: true, items: [{ question: "Délai ?", answer: "48 h dans les 58 wilayas" }] }
          })
        )
        assert.deepStrictEqual(after.categories, before.categories)
        assert.deepStrictEqual(after.faq.items, [{ question: "Délai ?", answer: "48 h dans les 58 wilayas" }])
        // The sections it changed, each with the keys it changed.
        assert.deepStrictEqual(detail.before, {
          hero: { title: before.hero.title, button_link: before.hero.button_link },
          faq: { enabled: before.faq.enabled, items: before.faq.items }
        })
        assert.deepStrictEqual(detail.after, {
          hero: { title: "الدفع عند الاستلام", button_link: "/categories/robes" },
          faq: { enabled: true, items: after.faq.items }
        })
      })
    )

    it.effect("store.home_layout: an add undone (rule 2's exception), 409 layout_changed, newest first", () =>
      Effect.gen(function* () {
        const { dashboard } = yield* dashboardStore()
        const add = (body: object) => dashboard.write("POST", "/v1/store/home-layout/sections", body)
        const hero = (yield* add({ type: "hero", settings: { title: "Bienvenue" } })).body.data
        assert.isNumber(hero.change_id)
        const { before, after } = yield* roundTrip(
          dashboard,
          "store.home_layout",
          "layout",
          "/v1/store/home-layout",
          add({ type: "banner", settings: { image: "stores/3/promo.jpg", link: "/products/7" }, position: 1 })
        )
        assert.deepStrictEqual(
          [before.sections.map((s: { id: number }) => s.id), after.sections.map((s: { id: number }) => s.id)],
          [[1], [2, 1]]
        )
        const moved = (yield* dashboard.write("POST", "/v1/store/home-layout/move", { id: 1, position: 1 })).body.data
        assert.strictEqual(moved.change_id, (yield* newest(dashboard)).id)
        const refused = yield* dashboard.write("POST", `/v1/changes/${hero.change_id}/undo`)
        assert.deepStrictEqual(codeOf(refused), [409, "layout_changed"])
        // Newest first: the move, the banner's add (re-applied by the round trip's undo of its undo), then the hero.
        const layoutChanges = (yield* dashboard.get("/v1/changes?entity=store.home_layout")).body.data.items.filter(
          (item: { undone: boolean; summary: string }) => !item.undone
        )
        for (const change of layoutChanges) {
          const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
          assert.strictEqual(undone.status, 200, `${change.summary}: ${undone.text}`)
        }
        yield* passTheWindow
        assert.deepStrictEqual((yield* dashboard.get("/v1/store/home-layout")).body.data, {
          sections: [],
          in_use: false
        })
        // Ids are never given twice in a store.
        assert.strictEqual((yield* add({ type: "faq" })).body.data.section.id, 3)
      })
    )

    it.effect("store.home_layout: 20 simultaneous adds each get their own id and position, none lost", () =>
      Effect.gen(function* () {
        const { dashboard } = yield* dashboardStore()
        const answers = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            dashboard.write("POST", "/v1/store/home-layout/sections", {
              type: "rich_text",
              settings: { text: `Bloc ${i}` }
            })
          ),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(
          answers.map((answer) => answer.status),
          Array.from({ length: 20 }, () => 201)
        )
        const ids = answers.map((answer) => answer.body.data.section.id as number).sort((a, b) => a - b)
        assert.deepStrictEqual(
          ids,
          Array.from({ length: 20 }, (_, i) => i + 1)
        )
        yield* passTheWindow
        const layout = (yield* dashboard.get("/v1/store/home-layout")).body.data
        assert.strictEqual(layout.sections.length, 20)
        const changes = (yield* dashboard.get("/v1/changes?entity=store.home_layout&limit=100")).body.data.items
        assert.strictEqual(changes.length, 20)
      })
    )

    it.effect(
      "property: any sequence of the four entities' writes, undone newest first, restores the exact start",
      () =>
        Effect.gen(function* () {
          undoneInAllRuns = 0
          const context = yield* Effect.context<Effect.Services<ReturnType<typeof walkBack>>>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(configWrite, { minLength: 1, maxLength: 8 }), (writes) =>
                Effect.runPromiseWith(context)(walkBack(writes))
              ),
              { numRuns: 10, seed: 20_261_127 }
            )
          )
          assert.isAbove(undoneInAllRuns, 20, "the runs' writes were recorded")
        })
    )
  })
}
