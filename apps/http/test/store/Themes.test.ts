/**
 * Themes through the store API in memory (`src/store/themes`; spec store-api-config "Themes"): the list, the three
 * switches with plan ranking (an expired paid plan counts as free), every error code of the switches, the digital
 * palette, the recorded `store.theme` changes and their undo.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore } = InMemory

const LIGHT = { primary_color: "#1f2937", secondary_color: "#f59e0b", background_color: "#ffffff" }
const DIGITAL = { primary_color: "#a78bfa", secondary_color: "#22d3ee", background_color: "#0b1020" }

layer(InMemory.layer(), { excludeTestServices: true })("themes (memory)", (it) => {
  it.effect("lists every theme in the store's language, never cached, with what the plan opens", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore({ language: "fr" })
      const list = yield* dashboard.get("/v1/themes")
      assert.strictEqual(list.status, 200)
      assert.isNull(list.headers.get("x-cache"))
      assert.strictEqual(list.body.data.current, "classic")
      const noir = list.body.data.items.find((item: { key: string }) => item.key === "noir")
      assert.deepStrictEqual(noir, {
        key: "noir",
        title: "Noir",
        plan_required: "enterprise",
        active: true,
        color_mode: "dark",
        digital_only: false,
        can_use: true,
        current: false
      })
      const retired = list.body.data.items.find((item: { key: string }) => item.key === "bazaar")
      assert.deepInclude(retired, { active: false, can_use: false })
      const digital = list.body.data.items.find((item: { key: string }) => item.key === "digital")
      assert.deepInclude(digital, { digital_only: true, color_mode: "dark" })
      const arabic = yield* createStore()
      const items = (yield* arabic.get("/v1/themes")).body.data.items
      assert.strictEqual(items.find((item: { key: string }) => item.key === "classic").title, "كلاسيكي")
    })
  )

  it.effect("an installed app on a Pro store switches within Pro; an expired paid plan counts as free", () =>
    Effect.gen(function* () {
      const { id } = yield* createStore({ plan: "pro" })
      const app = yield* InMemory.appToken(id, ["store:read", "store:write"])
      const canUse = (list: { body: { data: { items: ReadonlyArray<{ key: string; can_use: boolean }> } } }) =>
        list.body.data.items.filter((item) => item.can_use).map((item) => item.key)
      assert.deepStrictEqual(canUse(yield* app.get("/v1/themes")), ["classic", "souk", "atlas", "medina", "digital"])
      const switched = yield* app.write("POST", "/v1/store/theme", { theme: "medina" })
      assert.deepStrictEqual([switched.status, switched.body.data], [200, { theme: "medina", is_digital: false }])
      const above = yield* app.write("POST", "/v1/store/theme", { theme: "sahara" })
      assert.deepStrictEqual(codeOf(above), [403, "plan_required"])
      assert.strictEqual(
        above.body.error.message,
        "The theme sahara needs the unlimited plan; this store is on the pro plan"
      )
      assert.deepStrictEqual(
        codeOf(yield* app.write("POST", "/v1/store/fast-checkout-theme", { theme: "editorial" })),
        [403, "plan_required"]
      )
      assert.deepStrictEqual(codeOf(yield* app.write("POST", "/v1/store/variant-style", { style: "lux" })), [
        403,
        "plan_required"
      ])
      assert.strictEqual((yield* app.write("POST", "/v1/store/variant-style", { style: "stacked" })).status, 200)
      yield* InMemory.setPlan(id, "pro", new Date(Date.now() - 60_000))
      assert.deepStrictEqual(canUse(yield* app.get("/v1/themes")), ["classic", "souk"])
      const expired = yield* app.write("POST", "/v1/store/theme", { theme: "atlas" })
      assert.strictEqual(
        expired.body.error.message,
        "The theme atlas needs the pro plan; this store is on the free plan"
      )
      yield* InMemory.setPlan(id, "unlimited", new Date(Date.now() + 3_600_000))
      assert.strictEqual((yield* app.write("POST", "/v1/store/theme", { theme: "sahara" })).status, 200)
    })
  )

  it.effect("answers each switch's error codes", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const post = (path: string, body: unknown) => Effect.map(dashboard.write("POST", path, body), codeOf)
      for (const body of [
        {},
        { theme: "" },
        { theme: "x".repeat(51) },
        { theme: "noir!" },
        { theme: 7 },
        { theme: null }
      ]) {
        assert.deepStrictEqual(yield* post("/v1/store/theme", body), [422, "invalid_theme"], JSON.stringify(body))
        assert.deepStrictEqual(yield* post("/v1/store/fast-checkout-theme", body), [422, "invalid_theme"])
      }
      assert.deepStrictEqual(yield* post("/v1/store/theme", { theme: "x".repeat(50) }), [404, "theme_not_found"])
      assert.deepStrictEqual(yield* post("/v1/store/theme", { theme: "bazaar" }), [404, "theme_not_found"], "retired")
      assert.deepStrictEqual(yield* post("/v1/store/fast-checkout-theme", { theme: "express" }), [
        404,
        "theme_not_found"
      ])
      assert.deepStrictEqual(yield* post("/v1/store/fast-checkout-theme", { theme: "stepper" }), [200, undefined])
      for (const body of [{}, { style: "" }, { style: "x".repeat(51) }, { style: false }]) {
        assert.deepStrictEqual(
          yield* post("/v1/store/variant-style", body),
          [422, "invalid_style"],
          JSON.stringify(body)
        )
      }
      for (const style of ["retro", "unknown", "x".repeat(50)]) {
        assert.deepStrictEqual(yield* post("/v1/store/variant-style", { style }), [404, "style_not_found"], style)
      }
      const style = yield* dashboard.write("POST", "/v1/store/variant-style", { style: "mashrabiya" })
      assert.deepStrictEqual(style.body.data, { variant_card_style: "mashrabiya" })
      const minted = yield* InMemory.apiKey(dashboard)
      assert.deepStrictEqual(codeOf(yield* minted.write("POST", "/v1/store/theme", { theme: "noir" })), [
        200,
        undefined
      ])
      const readOnly = yield* InMemory.appToken((yield* createStore()).id, ["store:read"])
      const refused = yield* readOnly.write("POST", "/v1/store/theme", { theme: "souk" })
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "Missing scope: store:write"]
      )
      const noScope = yield* InMemory.appToken((yield* createStore()).id, ["orders:read"])
      assert.strictEqual((yield* noScope.get("/v1/themes")).body.error.message, "Missing scope: store:read")
    })
  )

  it.effect("the digital theme makes the store digital with the dark palette; recorded; undo restores it", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const digital = yield* dashboard.write("POST", "/v1/store/theme", { theme: "digital" })
      assert.deepStrictEqual(digital.body.data, { theme: "digital", is_digital: true })
      const history = yield* dashboard.get("/v1/changes?entity=store.theme")
      const [change] = history.body.data.items
      assert.deepInclude(change, {
        entity: "store.theme",
        entity_id: "theme",
        action: "update",
        summary: "Switched storefront theme to digital",
        undone: false
      })
      const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
      assert.deepStrictEqual(detail.before.colors, LIGHT)
      assert.deepStrictEqual(detail.after.colors, DIGITAL)
      assert.deepStrictEqual([detail.before.is_digital, detail.after.is_digital], [false, true])
      const physical = yield* dashboard.write("POST", "/v1/store/theme", { theme: "atlas" })
      assert.deepStrictEqual(physical.body.data, { theme: "atlas", is_digital: false })
      const back = (yield* dashboard.get("/v1/changes?entity=store.theme&limit=1")).body.data.items[0]
      assert.deepStrictEqual((yield* dashboard.get(`/v1/changes/${back.id}`)).body.data.after.colors, LIGHT)
      // Undo walks back newest first: digital again, then classic with the light colours.
      assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${back.id}/undo`)).status, 200)
      assert.strictEqual((yield* dashboard.get("/v1/themes")).body.data.current, "digital")
      assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)).status, 200)
      assert.strictEqual((yield* dashboard.get("/v1/themes")).body.data.current, "classic")
      const undoRecord = (yield* dashboard.get("/v1/changes?entity=store.theme&limit=1")).body.data.items[0]
      const restored = (yield* dashboard.get(`/v1/changes/${undoRecord.id}`)).body.data
      assert.deepStrictEqual(
        [restored.summary, restored.after.colors, restored.after.is_digital],
        [`Undo of change #${change.id}`, LIGHT, false]
      )
    })
  )

  it.effect("every switch needs store:write and replays its first answer; unreadable JSON is 400", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const readOnly = yield* InMemory.appToken(dashboard.id, ["store:read"])
      for (const [path, body] of [
        ["/v1/store/theme", { theme: "souk" }],
        ["/v1/store/fast-checkout-theme", { theme: "stepper" }],
        ["/v1/store/variant-style", { style: "stacked" }]
      ] as const) {
        assert.deepStrictEqual(
          (yield* readOnly.write("POST", path, body)).body.error.message,
          "Missing scope: store:write",
          path
        )
        const k = InMemory.key()
        const first = yield* dashboard.write("POST", path, body, k)
        assert.strictEqual(first.status, 200, first.text)
        const again = yield* dashboard.write("POST", path, body, k)
        assert.deepStrictEqual([again.headers.get("idempotency-replay"), again.text], ["1", first.text], path)
        const unreadable = yield* InMemory.call("POST", path, { token: dashboard.token, key: InMemory.key(), raw: "{" })
        assert.deepStrictEqual(codeOf(unreadable), [400, "bad_request"], path)
        const notAnObject = yield* dashboard.write("POST", path, ["souk"])
        assert.deepStrictEqual(
          codeOf(notAnObject),
          [422, path.endsWith("style") ? "invalid_style" : "invalid_theme"],
          `${path}: valid JSON without the field`
        )
      }
      const recorded = (yield* dashboard.get("/v1/changes?entity=store.theme")).body.data.items
      assert.strictEqual(recorded.length, 3, "each switch once, its replay not")
    })
  )
})
