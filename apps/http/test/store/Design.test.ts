/**
 * The store's design through the store API in memory (`src/store/design`): `GET /v1/store/design` (`store:read`,
 * cached 30 s: after a theme switch the old theme shows that long, spec "Themes" rule 4) and
 * `PATCH /v1/store/design` (`store:write`, recorded as `store.design`), the digital palette rule, the refusals, the
 * change and its undo, on `TestClock` time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore } = InMemory

type Services = Layer.Success<ReturnType<typeof InMemory.layer>>

const test = (name: string, body: Effect.Effect<void, never, Services>) =>
  it.effect(name, () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 8, 0, 0))
      yield* body
    }).pipe(Effect.provide(InMemory.layer()))
  )

const afterTheWindow = TestClock.adjust("31 seconds")

const LIGHT = { primary_color: "#1f2937", secondary_color: "#f59e0b", background_color: "#ffffff" }
const DIGITAL = { primary_color: "#a78bfa", secondary_color: "#22d3ee", background_color: "#0b1020" }

describe("design (memory)", () => {
  test(
    "reads the theme choices and the design; store:read needed; cached 30 s, so a switch shows after the window",
    Effect.gen(function* () {
      const store = yield* createStore()
      const design = yield* store.get("/v1/store/design")
      assert.strictEqual(design.status, 200)
      assert.deepStrictEqual(design.body.data, {
        theme: "classic",
        fast_checkout_theme: "classic",
        variant_card_style: "default",
        is_digital: false,
        color_mode: "light",
        colors: {
          ...LIGHT,
          text_color: null,
          button_color: null,
          button_text_color: null,
          header_color: null,
          footer_color: null
        },
        font_family: "Cairo",
        heading_font: null,
        border_radius: 8,
        button_style: "filled",
        product_image_ratio: "square"
      })
      assert.strictEqual(design.headers.get("x-cache"), "MISS")
      yield* store.write("POST", "/v1/store/theme", { theme: "noir" })
      const cached = yield* store.get("/v1/store/design")
      assert.deepStrictEqual([cached.headers.get("x-cache"), cached.body.data.theme], ["HIT", "classic"])
      yield* afterTheWindow
      assert.deepInclude((yield* store.get("/v1/store/design")).body.data, { theme: "noir", color_mode: "dark" })
      const narrow = yield* InMemory.keyWithScopes(store.id, ["orders:read"])
      const refused = yield* narrow.get("/v1/store/design")
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "Missing scope: store:read"]
      )
    })
  )

  test(
    "PATCH changes what it sends (colour by colour), ignores the theme choices, is recorded as store.design",
    Effect.gen(function* () {
      const store = yield* createStore()
      const patched = yield* store.write("PATCH", "/v1/store/design", {
        colors: { primary_color: "#0F766E", button_color: "#F97316", button_text_color: "#fff" },
        font_family: "Tajawal",
        heading_font: "el messiri",
        border_radius: 12,
        button_style: "soft",
        product_image_ratio: "portrait",
        theme: "noir",
        is_digital: true
      })
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepInclude(patched.body.data, {
        theme: "classic",
        is_digital: false,
        font_family: "Tajawal",
        heading_font: "El Messiri",
        border_radius: 12,
        button_style: "soft",
        product_image_ratio: "portrait"
      })
      assert.deepInclude(patched.body.data.colors, {
        primary_color: "#0f766e",
        button_color: "#f97316",
        button_text_color: "#ffffff",
        secondary_color: LIGHT.secondary_color
      })
      // GET /v1/store's theme object shows the same colours and font.
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store")).body.data.theme, {
        primary_color: "#0f766e",
        secondary_color: LIGHT.secondary_color,
        background_color: LIGHT.background_color,
        font_family: "Tajawal"
      })
      const [change] = (yield* store.get("/v1/changes?entity=store.design")).body.data.items
      assert.deepInclude(change, {
        entity: "store.design",
        entity_id: "design",
        summary:
          "Updated design (colors.primary_color, colors.button_color, colors.button_text_color, font_family, " +
          "heading_font, border_radius, button_style, product_image_ratio)"
      })
      const detail = (yield* store.get(`/v1/changes/${change.id}`)).body.data
      assert.deepInclude(detail.before, { is_digital: false, font_family: "Cairo", border_radius: 8 })
      assert.deepInclude(detail.after, { is_digital: false, font_family: "Tajawal", border_radius: 12 })
      const reader = yield* InMemory.keyWithScopes(store.id, ["store:read"])
      assert.deepStrictEqual(codeOf(yield* reader.write("PATCH", "/v1/store/design", { border_radius: 0 })), [
        403,
        "forbidden"
      ])
    })
  )

  test(
    "the digital palette: a digital store's null colour is the dark stock one; undo restores, the undo of the undo re-applies",
    Effect.gen(function* () {
      const store = yield* createStore()
      yield* store.write("POST", "/v1/store/theme", { theme: "digital" })
      yield* afterTheWindow
      const digital = (yield* store.get("/v1/store/design")).body.data
      assert.deepInclude(digital, { is_digital: true, color_mode: "dark" })
      assert.deepInclude(digital.colors, DIGITAL)
      yield* store.write("PATCH", "/v1/store/design", {
        colors: { primary_color: "#e11d48", background_color: "#000" }
      })
      const chosen = (yield* store.write("PATCH", "/v1/store/design", { colors: { background_color: null } })).body.data
      assert.deepInclude(chosen.colors, { primary_color: "#e11d48", background_color: DIGITAL.background_color })
      const [latest] = (yield* store.get("/v1/changes?entity=store.design&limit=1")).body.data.items
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${latest.id}/undo`)).status, 200)
      yield* afterTheWindow
      assert.deepInclude((yield* store.get("/v1/store/design")).body.data.colors, {
        primary_color: "#e11d48",
        background_color: "#000000"
      })
      const [undo] = (yield* store.get("/v1/changes?limit=1")).body.data.items
      assert.strictEqual(undo.summary, `Undo of change #${latest.id}`)
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${undo.id}/undo`)).status, 200)
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store/design")).body.data, chosen)
      // Leaving the digital theme: the colours still at the dark stock values go back to the light ones.
      yield* store.write("POST", "/v1/store/theme", { theme: "souk" })
      yield* afterTheWindow
      assert.deepInclude((yield* store.get("/v1/store/design")).body.data.colors, {
        primary_color: "#e11d48",
        secondary_color: LIGHT.secondary_color,
        background_color: LIGHT.background_color
      })
    })
  )

  test(
    "a field breaking its rule is 400 bad_request with the field's message; NUL, surrogates and 1e308 too",
    Effect.gen(function* () {
      const store = yield* createStore()
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["#fff", "Body must be a JSON object"],
        [{ colors: "#fff" }, "colors must be an object"],
        [{ colors: { primary_color: "blue" } }, "colors.primary_color must be a colour such as #1f2937 or #fff"],
        [{ colors: { text_color: "#fff\u0000" } }, "colors.text_color must be a colour"],
        [{ font_family: "Comic Sans MS" }, "font_family must be one of Cairo"],
        [{ font_family: "\ud800" }, "font_family must be one of Cairo"],
        [{ border_radius: 1e308 }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ border_radius: -1 }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ button_style: "ghost" }, "button_style must be filled, outline, soft"],
        [{ product_image_ratio: null }, "product_image_ratio must be square, portrait, landscape"]
      ]
      for (const [body, message] of cases) {
        const refused = yield* store.write("PATCH", "/v1/store/design", body)
        assert.deepStrictEqual(codeOf(refused), [400, "bad_request"], JSON.stringify(body))
        assert.isTrue(refused.body.error.message.startsWith(message), refused.body.error.message)
      }
      assert.strictEqual((yield* store.get("/v1/changes")).body.data.items.length, 0)
    })
  )
})
