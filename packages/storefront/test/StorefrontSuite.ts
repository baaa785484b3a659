/**
 * The contract of `Themes`, `Pixels` and their change-history entities over a `StorefrontStore`, from the spec's
 * theme and pixel rules and our decisions (docs/storefront.md), run against every implementation of the port.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Changes } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { DateTime, Effect, Schema } from "effect"
import { Pixel, type PixelWarning } from "../src/Pixel.ts"
import { Pixels } from "../src/Pixels.ts"
import * as Catalogue from "../src/ThemeCatalogue.ts"
import { Themes } from "../src/Themes.ts"
import { Fixtures } from "./Backends.ts"

type Services = Themes | Pixels | Changes.Changes | Fixtures

const KEY = "twpk_live_storefront00000"
const token = "EAAB".padEnd(48, "z")
const reasonOf = <A, R>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string } }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)
const wire = Schema.encodeSync(Pixel)

export const StorefrontSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("lists the themes in the store's language with what its plan opens", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const fixtures = yield* Fixtures
      const pro = yield* fixtures.newStore({ plan: "pro", language: "fr" })
      const list = yield* themes.list(pro)
      assert.strictEqual(list.current, "classic")
      assert.strictEqual(list.items.length, Catalogue.STOREFRONT_THEMES.length)
      const item = (key: string) => list.items.find((each) => each.key === key)!
      assert.deepStrictEqual(item("medina"), {
        key: "medina",
        title: "Médina",
        plan_required: "pro",
        active: true,
        color_mode: "light",
        digital_only: false,
        can_use: true,
        current: false
      })
      assert.isFalse(item("sahara").can_use)
      assert.isFalse(item("bazaar").can_use, "retired")
      assert.isTrue(item("classic").current)
      const expired = yield* fixtures.newStore({
        plan: "enterprise",
        planExpiresAt: DateTime.makeUnsafe("1970-01-01T00:00:00Z")
      })
      const asFree = yield* themes.list(expired)
      assert.strictEqual(asFree.items.find((each) => each.key === "classic")!.title, "كلاسيكي")
      assert.deepStrictEqual(
        asFree.items.filter((each) => each.can_use).map((each) => each.key),
        ["classic", "souk"]
      )
    })
  )

  it.effect("switches by plan, with the spec's refusals, recording each switch", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore({ plan: "pro" })
      const writer = { storeId: store, keyId: KEY }
      assert.deepStrictEqual(yield* themes.switchTheme(writer, { theme: "atlas" }), {
        theme: "atlas",
        is_digital: false
      })
      const noTheme = [{}, { theme: "" }, { theme: 5 }, { theme: "a".repeat(51) }, { theme: "no spaces" }, null]
      for (const body of [...noTheme, { theme: "atlas\u0000" }, { theme: "\ud800" }]) {
        assert.strictEqual(yield* reasonOf(themes.switchTheme(writer, body)), "InvalidTheme", JSON.stringify(body))
      }
      assert.strictEqual(yield* reasonOf(themes.switchTheme(writer, { theme: "bazaar" })), "ThemeNotFound")
      assert.strictEqual(yield* reasonOf(themes.switchTheme(writer, { theme: "Atlas" })), "ThemeNotFound")
      const plan = yield* Effect.flip(themes.switchTheme(writer, { theme: "noir" }))
      assert.strictEqual(plan.reason._tag, "PlanRequired")
      assert.strictEqual(plan.message, "The theme noir needs the enterprise plan; this store is on the pro plan")
      assert.deepStrictEqual(yield* themes.switchFastCheckoutTheme(writer, { theme: "commerce" }), {
        fast_checkout_theme: "commerce"
      })
      assert.strictEqual(yield* reasonOf(themes.switchFastCheckoutTheme(writer, { theme: "express" })), "ThemeNotFound")
      assert.strictEqual(yield* reasonOf(themes.switchFastCheckoutTheme(writer, { theme: "stepper" })), "PlanRequired")
      assert.deepStrictEqual(yield* themes.switchVariantStyle(writer, { style: "clay" }), {
        variant_card_style: "clay"
      })
      // Text PostgreSQL could not keep (`StoreText`) is refused like any malformed style, not looked up.
      const noStyle = [{}, { style: "" }, { style: "x".repeat(51) }, { style: 3 }, { style: "clay\u0000" }]
      for (const body of [...noStyle, { style: "\udc00" }]) {
        assert.strictEqual(
          yield* reasonOf(themes.switchVariantStyle(writer, body)),
          "InvalidStyle",
          JSON.stringify(body)
        )
      }
      for (const style of ["retro", "nope", "Clay"]) {
        assert.strictEqual(yield* reasonOf(themes.switchVariantStyle(writer, { style })), "StyleNotFound", style)
      }
      assert.strictEqual(yield* reasonOf(themes.switchVariantStyle(writer, { style: "glass" })), "PlanRequired")
      const history = (yield* changes.list(store)).items
      assert.deepStrictEqual(
        history.map((item) => [item.entity, item.entity_id, item.summary]),
        [
          ["store.theme", "theme", "Switched variant style to clay"],
          ["store.theme", "theme", "Switched fast-checkout theme to commerce"],
          ["store.theme", "theme", "Switched storefront theme to atlas"]
        ]
      )
      assert.strictEqual(yield* reasonOf(themes.list(9_999_999 as never)), "StoreNotFound")
    })
  )

  it.effect("the digital theme makes the store digital with the dark palette; undo restores theme and colours", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      assert.deepStrictEqual(yield* themes.switchTheme(writer, { theme: "digital" }), {
        theme: "digital",
        is_digital: true
      })
      const [switched] = (yield* changes.list(store, { limit: "1" })).items
      const detail = yield* changes.get({ storeId: store, keyId: null, scopes: ["store:read"] }, switched!.id)
      // What the switch changed: the theme, the digital flag and the palette colours (the choices it kept are not
      // recorded).
      assert.deepStrictEqual(detail.before, { theme: "classic", is_digital: false, colors: Catalogue.LIGHT_PALETTE })
      assert.deepStrictEqual(detail.after, { theme: "digital", is_digital: true, colors: Catalogue.DIGITAL_PALETTE })
      assert.deepStrictEqual(yield* themes.switchTheme(writer, { theme: "noir" }), { theme: "noir", is_digital: false })
      const [physical] = (yield* changes.list(store, { limit: "1" })).items
      const back = yield* changes.get({ storeId: store, keyId: null, scopes: ["store:read"] }, physical!.id)
      assert.deepStrictEqual((back.after as { colors: unknown }).colors, Catalogue.LIGHT_PALETTE)
      const actor = { storeId: store, keyId: KEY, scopes: ["store:write"] }
      yield* fixtures.transaction(changes.undo(actor, physical!.id))
      const list = yield* themes.list(store)
      assert.strictEqual(list.current, "digital")
      yield* fixtures.transaction(changes.undo(actor, switched!.id))
      assert.strictEqual((yield* themes.list(store)).current, "classic")
    })
  )

  it.effect("an undo passes the switch's checks again for what it changes: a plan dropped since refuses it", () =>
    Effect.gen(function* () {
      const themes = yield* Themes
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore({ plan: "unlimited" })
      const writer = { storeId: store, keyId: KEY }
      const actor = { storeId: store, keyId: KEY, scopes: ["store:write"] }
      yield* themes.switchTheme(writer, { theme: "sahara" })
      yield* themes.switchTheme(writer, { theme: "classic" })
      const [back] = (yield* changes.list(store, { limit: "1" })).items
      yield* themes.switchFastCheckoutTheme(writer, { theme: "editorial" })
      const [checkout] = (yield* changes.list(store, { limit: "1" })).items
      yield* fixtures.setPlan(store, "pro")
      // Undoing the fast-checkout switch does not touch the storefront theme: only `editorial` → `classic` is checked.
      yield* fixtures.transaction(changes.undo(actor, checkout!.id))
      const refused = yield* Effect.flip(fixtures.transaction(changes.undo(actor, back!.id)))
      assert.strictEqual(refused.reason._tag, "PlanRequired")
      assert.isFalse((yield* changes.get({ ...actor, scopes: ["store:read"] }, back!.id)).undone)
    })
  )

  it.effect("creates pixels with the spec's checks in order, lists them with the store's limits", () =>
    Effect.gen(function* () {
      const pixels = yield* Pixels
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore({ plan: "pro" })
      const writer = { storeId: store, keyId: KEY }
      const created = yield* pixels.create(writer, {
        type: "Facebook",
        pixel_id: "123456789012345",
        name: "  Meta  ",
        access_token: ` "${token}" `,
        is_default: true
      })
      assert.deepStrictEqual(
        { ...wire(created), created_at: "", updated_at: "" },
        {
          id: created.id,
          pixel_type: "facebook",
          pixel_id: "123456789012345",
          pixel_name: "Meta",
          has_token: true,
          test_event_code: null,
          ad_account_id: null,
          conversion_label: null,
          is_active: true,
          is_default: true,
          created_at: "",
          updated_at: "",
          warnings: []
        }
      )
      assert.notInclude(JSON.stringify(wire(created)), token)
      const order: ReadonlyArray<readonly [unknown, string]> = [
        [{ pixel_type: "myspace", pixel_id: "x", access_token: "<" }, "InvalidPixelType"],
        [{ pixel_type: "facebook", pixel_id: "12", access_token: "<" }, "InvalidPixelId"],
        [{ pixel_type: "facebook", pixel_id: "123456789012345", access_token: "<" }, "LimitReached"],
        [{ pixel_type: "tiktok", pixel_id: "C4ABCDEF1234567890AB", access_token: "a b" }, "InvalidAccessToken"],
        [[], "InvalidPixelBody"]
      ]
      for (const [body, reason] of order) {
        assert.strictEqual(yield* reasonOf(pixels.create(writer, body)), reason, JSON.stringify(body))
      }
      const enterprise = yield* fixtures.newStore()
      const other = { storeId: enterprise, keyId: KEY }
      yield* pixels.create(other, { pixel_type: "gtm", pixel_id: "GTM-ABC1234" })
      assert.strictEqual(
        yield* reasonOf(pixels.create(other, { pixel_type: "gtm", pixel_id: "gtm-abc1234", access_token: "<" })),
        "PixelExists",
        "the duplicate answers before the token"
      )
      yield* pixels.create(writer, { pixel_type: "gtm", pixel_id: "GTM-ABC1234", pixel_name: "x".repeat(150) })
      const list = yield* pixels.list(store)
      assert.deepStrictEqual(
        list.items.map((item) => [item.pixel_type, item.pixel_name?.length ?? 0]),
        [
          ["gtm", 100],
          ["facebook", 4]
        ]
      )
      assert.deepStrictEqual(list.limits, {
        plan: "pro",
        can_add: true,
        per_type_limit: 1,
        total_limit: null,
        counts: { facebook: 1, tiktok: 0, snapchat: 0, pinterest: 0, google_analytics: 0, gtm: 1, google_ads: 0 },
        total: 2
      })
      assert.deepStrictEqual((yield* pixels.list(store, { pixel_type: "GTM" })).items.length, 1)
      const unknown = yield* pixels.list(store, { pixel_type: "social_a" })
      assert.deepStrictEqual([unknown.items, unknown.limits.total], [[], 2])
      const free = yield* fixtures.newStore({ plan: "free" })
      assert.strictEqual(
        yield* reasonOf(pixels.create({ storeId: free, keyId: KEY }, { pixel_type: "gtm", pixel_id: "GTM-ABC1234" })),
        "LimitReached"
      )
      assert.isFalse((yield* pixels.list(free)).limits.can_add)
    })
  )

  it.effect("PATCH: immutable fields, the masked or empty token kept, the default taken, test_event_code cleared", () =>
    Effect.gen(function* () {
      const pixels = yield* Pixels
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const first = yield* pixels.create(writer, {
        pixel_type: "pinterest",
        pixel_id: "2612345678901",
        is_default: true,
        access_token: "pina_token_1"
      })
      const second = yield* pixels.create(writer, { pixel_type: "pinterest", pixel_id: "2612345678902" })
      for (const body of [{ pixel_type: "pinterest" }, { type: "gtm" }, { pixel_id: "2612345678901" }]) {
        assert.strictEqual(yield* reasonOf(pixels.update(writer, first.id, body)), "ImmutableField")
      }
      yield* fixtures.setTestEventCode(first.id, "TEST123")
      const same = yield* pixels.update(writer, first.id, { access_token: "••••••••" })
      assert.deepStrictEqual([same.has_token, same.test_event_code], [true, "TEST123"], "nothing written")
      yield* pixels.update(writer, first.id, { access_token: "" })
      yield* pixels.update(writer, first.id, { access_token: null })
      const named = yield* pixels.update(writer, first.id, { pixel_name: "Pins", ad_account_id: "549755885175" })
      assert.deepStrictEqual(
        [named.has_token, named.test_event_code, named.ad_account_id],
        [true, null, "549755885175"]
      )
      assert.strictEqual(
        yield* reasonOf(pixels.update(writer, first.id, { access_token: "x<y" })),
        "InvalidAccessToken"
      )
      assert.strictEqual(
        yield* reasonOf(pixels.update(writer, first.id, { access_token: "2612345678901" })),
        "InvalidAccessToken",
        "the pixel's own id"
      )
      const cleared = yield* pixels.update(writer, first.id, { pixel_name: "", ad_account_id: null })
      assert.deepStrictEqual([cleared.pixel_name, cleared.ad_account_id], [null, null])
      yield* pixels.update(writer, second.id, { is_default: true })
      const list = (yield* pixels.list(store)).items
      assert.deepStrictEqual(
        list.map((item) => [item.id, item.is_default]),
        [
          [second.id, true],
          [first.id, false]
        ]
      )
      for (const id of [999_999, Ids.MAX_ID + 1, 0]) {
        assert.strictEqual(yield* reasonOf(pixels.update(writer, id, {})), "PixelNotFound", String(id))
        assert.strictEqual(yield* reasonOf(pixels.remove(writer, id)), "PixelNotFound", String(id))
      }
      const other = yield* fixtures.newStore()
      assert.strictEqual(yield* reasonOf(pixels.remove({ storeId: other, keyId: KEY }, first.id)), "PixelNotFound")
      assert.deepStrictEqual(yield* pixels.remove(writer, first.id), { deleted: true, id: first.id })
    })
  )

  it.effect("a pixel id outside its platform's usual format is saved as sent, with a warning never recorded", () =>
    Effect.gen(function* () {
      const pixels = yield* Pixels
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const actor = { storeId: store, keyId: KEY, scopes: ["pixels:read"] }
      const created = yield* pixels.create(writer, { pixel_type: "gtm", pixel_id: "gtm_legacy-7" })
      const warning: PixelWarning = {
        field: "pixel_id",
        code: "unusual_pixel_id",
        message:
          "pixel_id is not in the usual gtm format (GTM- and 4 to 10 letters or digits); it was saved as sent: " +
          "check it against the platform"
      }
      assert.deepStrictEqual([created.pixel_id, created.warnings], ["gtm_legacy-7", [warning]])
      const patched = yield* pixels.update(writer, created.id, { pixel_name: "Old container" })
      assert.deepStrictEqual(patched.warnings, [warning])
      assert.deepStrictEqual((yield* pixels.list(store)).items[0]!.warnings, [warning])
      const usual = yield* pixels.create(writer, { pixel_type: "gtm", pixel_id: "gtm-abc1234" })
      assert.deepStrictEqual([usual.pixel_id, usual.warnings], ["GTM-ABC1234", []])
      // The same id again is the same pixel: the duplicate check compares what is stored.
      assert.strictEqual(
        yield* reasonOf(pixels.create(writer, { pixel_type: "gtm", pixel_id: " gtm_legacy-7 " })),
        "PixelExists"
      )
      for (const item of (yield* changes.list(store)).items) {
        const detail = yield* changes.get(actor, item.id)
        assert.notProperty(detail.after ?? {}, "warnings", item.summary)
        assert.notProperty(detail.before ?? {}, "warnings", item.summary)
      }
      // Only the spec's rule refuses: 1 to 100 letters, digits, - and _; 15 to 17 digits for facebook.
      for (const [pixel_type, pixel_id] of [
        ["gtm", "GTM ABC"],
        ["gtm", "x".repeat(101)],
        ["facebook", "fb-123456789012345"]
      ]) {
        assert.strictEqual(yield* reasonOf(pixels.create(writer, { pixel_type, pixel_id })), "InvalidPixelId", pixel_id)
      }
    })
  )

  it.effect(
    "text PostgreSQL cannot keep (NUL, a lone surrogate) is refused in every pixel field, nothing written",
    () =>
      Effect.gen(function* () {
        const pixels = yield* Pixels
        const changes = yield* Changes.Changes
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore()
        const writer = { storeId: store, keyId: KEY }
        const existing = yield* pixels.create(writer, { pixel_type: "tiktok", pixel_id: "C4ABCDEF1234567890AB" })
        const recorded = (yield* changes.list(store)).items.length
        const valid = {
          pixel_type: "pinterest",
          pixel_id: "2612345678901",
          pixel_name: "Pins",
          access_token: "pina_token_1",
          ad_account_id: "549755885170",
          conversion_label: "lead"
        }
        const reasons: Record<string, string> = {
          pixel_type: "InvalidPixelType",
          type: "InvalidPixelType",
          pixel_id: "InvalidPixelId",
          access_token: "InvalidAccessToken",
          pixel_name: "InvalidPixelBody",
          name: "InvalidPixelBody",
          ad_account_id: "InvalidPixelBody",
          conversion_label: "InvalidPixelBody"
        }
        for (const bad of ["\u0000", "Pins\u0000", "\ud800", "x\udc00y"]) {
          for (const [field, reason] of Object.entries(reasons)) {
            // An alias counts when its main name is not sent.
            const { pixel_type, pixel_name, ...rest } = valid
            const body =
              field === "type"
                ? { ...rest, pixel_name, type: bad }
                : field === "name"
                  ? { ...rest, pixel_type, name: bad }
                  : { ...valid, [field]: bad }
            const label = `${field} ${JSON.stringify(bad)}`
            assert.strictEqual(yield* reasonOf(pixels.create(writer, body)), reason, `create ${label}`)
            if (field.startsWith("pixel_type") || field === "type" || field === "pixel_id") continue
            assert.strictEqual(
              yield* reasonOf(pixels.update(writer, existing.id, { [field]: bad })),
              reason,
              `update ${label}`
            )
          }
        }
        const list = yield* pixels.list(store)
        assert.deepStrictEqual(
          list.items.map((item) => [item.id, item.pixel_name]),
          [[existing.id, null]]
        )
        assert.strictEqual((yield* changes.list(store)).items.length, recorded)
        // A type filter that names no type lists nothing (spec: an unknown type gives an empty list).
        assert.deepStrictEqual((yield* pixels.list(store, { pixel_type: "gtm\u0000" })).items, [])
      })
  )

  it.effect("undo: a pixel update restores its fields (not the token) and gives the default back", () =>
    Effect.gen(function* () {
      const pixels = yield* Pixels
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const actor = { storeId: store, keyId: KEY, scopes: ["pixels:read", "pixels:write"] }
      const a = yield* pixels.create(writer, {
        pixel_type: "tiktok",
        pixel_id: "C4ABCDEF1234567890AB",
        is_default: true
      })
      const b = yield* pixels.create(writer, { pixel_type: "tiktok", pixel_id: "C4ABCDEF1234567890AC" })
      yield* pixels.update(writer, b.id, { is_default: true, pixel_name: "B", access_token: "tt_token" })
      const [update] = (yield* changes.list(store, { limit: "1" })).items
      const detail = yield* changes.get(actor, update!.id)
      assert.deepStrictEqual(
        [
          (detail.before as { access_token: unknown }).access_token,
          (detail.after as { access_token: unknown }).access_token
        ],
        [null, "••••••••"]
      )
      yield* fixtures.transaction(changes.undo(actor, update!.id))
      const list = (yield* pixels.list(store)).items
      assert.deepStrictEqual(
        list.map((item) => [item.id, item.is_default, item.pixel_name, item.has_token]),
        [
          [b.id, false, null, true],
          [a.id, true, null, false]
        ]
      )
      yield* pixels.remove(writer, a.id)
      const [removal] = (yield* changes.list(store, { limit: "1" })).items
      yield* fixtures.transaction(changes.undo(actor, removal!.id))
      const restored = (yield* pixels.list(store)).items.find((item) => item.id === a.id)!
      assert.deepStrictEqual([restored.is_default, wire(restored).created_at], [true, wire(a).created_at])
    })
  )
}
