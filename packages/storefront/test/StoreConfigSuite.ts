/**
 * The contract of the store's own configuration — `Settings`, `Design`, `HomeSections`, `HomeLayout` and their
 * change-history entities — over a `StorefrontStore`, from our decisions (docs/store-api-config.md, "Store settings,
 * design and home page") and the spec's undo rules, run against every implementation of the port.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Changes } from "@tawsil/changes"
import type { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import { Design } from "../src/Design.ts"
import { HomeLayout, MAX_SECTIONS } from "../src/HomeLayout.ts"
import { HomeSections } from "../src/HomeSections.ts"
import { Settings } from "../src/Settings.ts"
import { initialDesign } from "../src/StorefrontStore.ts"
import * as Catalogue from "../src/ThemeCatalogue.ts"
import { Themes } from "../src/Themes.ts"
import { Fixtures } from "./Backends.ts"

type Services = Settings | Design | HomeSections | HomeLayout | Themes | Changes.Changes | Fixtures

const KEY = "twpk_live_storeconfig000000"

const refusal = <A, R>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string; message: string } }, R>) =>
  Effect.map(Effect.flip(effect), (error) => [error.reason._tag, error.reason.message] as const)

/** The store's newest change. */
const newest = (storeId: Ids.StoreId) =>
  Effect.gen(function* () {
    const changes = yield* Changes.Changes
    const [item] = (yield* changes.list(storeId, { limit: "1" })).items
    return yield* changes.get({ storeId, keyId: null, scopes: ["store:read"] }, item!.id)
  })

const undo = (storeId: Ids.StoreId, id: number) =>
  Effect.gen(function* () {
    const changes = yield* Changes.Changes
    const fixtures = yield* Fixtures
    return yield* fixtures.transaction(changes.undo({ storeId, keyId: KEY, scopes: ["store:write"] }, id))
  })

export const StoreConfigSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect(
    "settings: the store with its defaults; a PATCH changes what it sends, recorded with before and after",
    () =>
      Effect.gen(function* () {
        const settings = yield* Settings
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore({ name: "Maison Oran", language: "fr" })
        const writer = { storeId: store, keyId: KEY }
        const fresh = yield* settings.get(store)
        assert.deepInclude(fresh, {
          name: "Maison Oran",
          language: "fr",
          description: null,
          logo: null,
          contact: { phone: null, whatsapp: null, email: null, address: null, wilaya_id: null },
          social_links: { facebook: null, instagram: null, tiktok: null, youtube: null },
          currency: { symbol: "DA", position: "after", decimals: 0 }
        })
        const updated = yield* fixtures.transaction(
          settings.update(writer, {
            name: "  Maison d'Oran  ",
            description: "Tapis et poteries",
            logo: "stores/7/logo.png",
            contact: { phone: "+213 555 12 34 56", email: "contact@maison-oran.dz", wilaya_id: 31 },
            social_links: { instagram: "https://instagram.com/maisonoran" },
            currency: { symbol: "د.ج", position: "before" },
            // Shown, never written here; unknown fields too.
            slug: "other",
            theme: { primary_color: "#000000" },
            favourite_colour: "blue"
          })
        )
        assert.deepInclude(updated, {
          name: "Maison d'Oran",
          slug: fresh.slug,
          description: "Tapis et poteries",
          logo: "stores/7/logo.png",
          contact: {
            phone: "+213555123456",
            whatsapp: null,
            email: "contact@maison-oran.dz",
            address: null,
            wilaya_id: 31
          },
          social_links: { facebook: null, instagram: "https://instagram.com/maisonoran", tiktok: null, youtube: null },
          currency: { symbol: "د.ج", position: "before", decimals: 0 }
        })
        assert.strictEqual(updated.theme.primary_color, Catalogue.LIGHT_PALETTE.primary_color)
        assert.deepStrictEqual(yield* settings.get(store), updated)
        const change = yield* newest(store)
        assert.deepInclude(change, {
          entity: "store.settings",
          entity_id: "settings",
          action: "update",
          key_id: KEY,
          summary: "Updated store settings (name, description, logo, contact, social_links, currency)"
        })
        assert.deepInclude(change.before as object, { name: "Maison Oran", logo: null })
        assert.deepInclude(change.after as object, { name: "Maison d'Oran", logo: "stores/7/logo.png" })
        // Key by key: what a group does not send stays.
        yield* fixtures.transaction(settings.update(writer, { contact: { whatsapp: "0661 00 11 22", email: null } }))
        assert.deepStrictEqual((yield* settings.get(store)).contact, {
          phone: "+213555123456",
          whatsapp: "0661001122",
          email: null,
          address: null,
          wilaya_id: 31
        })
        // Nothing changed, nothing recorded.
        const before = (yield* newest(store)).id
        yield* fixtures.transaction(settings.update(writer, { name: "Maison d'Oran", contact: {} }))
        yield* fixtures.transaction(settings.update(writer, {}))
        assert.strictEqual((yield* newest(store)).id, before)
      })
  )

  it.effect("settings: each field's rule refuses the whole body with the field's message", () =>
    Effect.gen(function* () {
      const settings = yield* Settings
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [null, "Body must be a JSON object"],
        [[], "Body must be a JSON object"],
        [{ name: "" }, "name must be 1 to 100 characters"],
        [{ name: "   " }, "name must be 1 to 100 characters"],
        [{ name: "x".repeat(101) }, "name must be 1 to 100 characters"],
        [{ name: "Boutique\u0000" }, "name must be 1 to 100 characters"],
        [{ name: "\ud800" }, "name must be 1 to 100 characters"],
        [{ name: 5 }, "name must be 1 to 100 characters"],
        [{ description: "x".repeat(1001) }, "description must be a string of at most 1000 characters, or null"],
        [{ description: "a\u0000b" }, "description must be a string of at most 1000 characters, or null"],
        [{ language: "en" }, "language must be ar or fr"],
        [{ language: "AR" }, "language must be ar or fr"],
        [{ logo: "https://cdn.example.com/logo.png" }, "logo must be a path such as stores/12/logo.png"],
        [{ favicon: "../secret" }, "favicon must be a path such as stores/12/logo.png"],
        [{ banner: "/stores/1/banner.jpg" }, "banner must be a path such as stores/12/logo.png"],
        [{ contact: "0555" }, "contact must be an object"],
        [{ contact: { phone: "05-55" } }, "contact.phone must be 6 to 20 digits"],
        [{ contact: { whatsapp: 555123456 } }, "contact.whatsapp must be 6 to 20 digits"],
        [{ contact: { email: "not an email" } }, "contact.email must be an email address"],
        [{ contact: { address: "x".repeat(256) } }, "contact.address must be a string of at most 255 characters"],
        [{ contact: { wilaya_id: 59 } }, "contact.wilaya_id must be 1-58, or null"],
        [{ contact: { wilaya_id: 1e308 } }, "contact.wilaya_id must be 1-58, or null"],
        [{ contact: { wilaya_id: "16" } }, "contact.wilaya_id must be 1-58, or null"],
        [{ social_links: { facebook: "http://facebook.com/x" } }, "social_links.facebook must be an https URL"],
        [{ social_links: { tiktok: "https://user:pw@tiktok.com/x" } }, "social_links.tiktok must be an https URL"],
        [{ currency: { symbol: "€" } }, "currency.symbol must be DA, DZD, د.ج"],
        [{ currency: { position: "left" } }, "currency.position must be before or after"],
        [{ currency: { decimals: 3 } }, "currency.decimals must be 0 or 2"]
      ]
      for (const [body, message] of cases) {
        const [tag, text] = yield* refusal(fixtures.transaction(settings.update(writer, body)))
        assert.strictEqual(tag, "InvalidBody", JSON.stringify(body))
        assert.isTrue(text.startsWith(message), `${JSON.stringify(body)}: ${text}`)
      }
      assert.strictEqual((yield* Changes.Changes.pipe(Effect.flatMap((c) => c.list(store)))).items.length, 0)
      assert.deepStrictEqual(yield* refusal(settings.get(999_999 as Ids.StoreId)), ["StoreNotFound", "Store not found"])
    })
  )

  it.effect("settings: undo writes the earlier settings back; the undo of the undo applies the change again", () =>
    Effect.gen(function* () {
      const settings = yield* Settings
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore({ name: "Avant" })
      const writer = { storeId: store, keyId: KEY }
      const start = yield* settings.get(store)
      yield* fixtures.transaction(
        settings.update(writer, {
          name: "Après",
          language: "fr",
          contact: { wilaya_id: 16 },
          currency: { decimals: 2 }
        })
      )
      const changed = yield* settings.get(store)
      const change = yield* newest(store)
      const undone = yield* undo(store, change.id)
      assert.deepInclude(undone, { undone: true, change_id: change.id, entity: "store.settings" })
      assert.deepStrictEqual(yield* settings.get(store), start)
      const undoChange = yield* newest(store)
      assert.strictEqual(undoChange.summary, `Undo of change #${change.id}`)
      yield* undo(store, undoChange.id)
      assert.deepStrictEqual(yield* settings.get(store), changed)
      const again = yield* Effect.flip(undo(store, change.id))
      assert.strictEqual(again.reason._tag, "AlreadyUndone")
    })
  )

  it.effect("design: the theme choices and the design; a PATCH changes what it sends, kept as #rrggbb", () =>
    Effect.gen(function* () {
      const design = yield* Design
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      assert.deepStrictEqual(yield* design.get(store), {
        theme: "classic",
        fast_checkout_theme: "classic",
        variant_card_style: "default",
        is_digital: false,
        color_mode: "light",
        ...initialDesign
      })
      const updated = yield* fixtures.transaction(
        design.update(writer, {
          colors: { primary_color: "#0F766E", text_color: "#111", button_text_color: null },
          font_family: "tajawal",
          heading_font: "El Messiri",
          border_radius: 0,
          button_style: "outline",
          product_image_ratio: "portrait",
          // Switched elsewhere: ignored.
          theme: "noir",
          is_digital: true
        })
      )
      assert.deepInclude(updated, {
        theme: "classic",
        is_digital: false,
        font_family: "Tajawal",
        heading_font: "El Messiri",
        border_radius: 0,
        button_style: "outline",
        product_image_ratio: "portrait"
      })
      assert.deepStrictEqual(updated.colors, {
        ...initialDesign.colors,
        primary_color: "#0f766e",
        text_color: "#111111"
      })
      assert.deepStrictEqual(yield* design.get(store), updated)
      const change = yield* newest(store)
      assert.deepInclude(change, {
        entity: "store.design",
        entity_id: "design",
        summary:
          "Updated design (colors.primary_color, colors.text_color, font_family, heading_font, border_radius, " +
          "button_style, product_image_ratio)"
      })
      // The fields it changed (colours by name), and the palette they were written under.
      const changedColors = { primary_color: "#0f766e", text_color: "#111111" }
      assert.deepStrictEqual(change.before, {
        is_digital: false,
        colors: { primary_color: initialDesign.colors.primary_color, text_color: initialDesign.colors.text_color },
        font_family: initialDesign.font_family,
        heading_font: initialDesign.heading_font,
        border_radius: initialDesign.border_radius,
        button_style: initialDesign.button_style,
        product_image_ratio: initialDesign.product_image_ratio
      })
      assert.deepStrictEqual(change.after, {
        is_digital: false,
        colors: changedColors,
        font_family: "Tajawal",
        heading_font: "El Messiri",
        border_radius: 0,
        button_style: "outline",
        product_image_ratio: "portrait"
      })
      // The theme switch writes the same colours.
      yield* fixtures.transaction((yield* Themes).switchTheme(writer, { theme: "souk" }))
      assert.strictEqual((yield* design.get(store)).colors.primary_color, "#0f766e")
      const before = change.id
      yield* fixtures.transaction(design.update(writer, { colors: { primary_color: "#0f766e" }, border_radius: 0 }))
      assert.strictEqual((yield* newest(store)).summary, "Switched storefront theme to souk", "nothing recorded")
      assert.isAbove((yield* newest(store)).id, before)
    })
  )

  it.effect("design: each field's rule refuses the whole body; 1e308 and NUL characters are refused", () =>
    Effect.gen(function* () {
      const design = yield* Design
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["colors", "Body must be a JSON object"],
        [{ colors: [] }, "colors must be an object"],
        [{ colors: { primary_color: "red" } }, "colors.primary_color must be a colour such as #1f2937 or #fff"],
        [{ colors: { footer_color: "#12345" } }, "colors.footer_color must be a colour such as #1f2937 or #fff"],
        [{ colors: { text_color: "#fff\u0000" } }, "colors.text_color must be a colour"],
        [{ font_family: "Comic Sans" }, "font_family must be one of Cairo, Tajawal"],
        [{ font_family: "Cairo\u0000" }, "font_family must be one of"],
        [{ heading_font: 3 }, "heading_font must be one of"],
        [{ border_radius: 25 }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ border_radius: 1.5 }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ border_radius: 1e308 }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ border_radius: "8" }, "border_radius must be a whole number of pixels from 0 to 24"],
        [{ button_style: "FILLED" }, "button_style must be filled, outline, soft"],
        [{ product_image_ratio: "wide" }, "product_image_ratio must be square, portrait, landscape"]
      ]
      for (const [body, message] of cases) {
        const [tag, text] = yield* refusal(fixtures.transaction(design.update(writer, body)))
        assert.strictEqual(tag, "InvalidBody", JSON.stringify(body))
        assert.isTrue(text.startsWith(message), `${JSON.stringify(body)}: ${text}`)
      }
    })
  )

  it.effect(
    "design keeps the digital palette rule: null resets to the store's stock palette; undo follows a switch",
    () =>
      Effect.gen(function* () {
        const design = yield* Design
        const themes = yield* Themes
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore({ plan: "pro" })
        const writer = { storeId: store, keyId: KEY }
        // A light store: the background chosen, the others at their stock light values.
        yield* fixtures.transaction(design.update(writer, { colors: { background_color: "#fafafa" } }))
        const chosen = yield* newest(store)
        yield* fixtures.transaction(themes.switchTheme(writer, { theme: "digital" }))
        const digital = yield* design.get(store)
        assert.deepInclude(digital, { is_digital: true, color_mode: "dark" })
        assert.deepInclude(digital.colors, {
          primary_color: Catalogue.DIGITAL_PALETTE.primary_color,
          secondary_color: Catalogue.DIGITAL_PALETTE.secondary_color,
          background_color: "#fafafa"
        })
        // Null: the stock value of the palette the store has now, the dark one.
        yield* fixtures.transaction(
          design.update(writer, { colors: { background_color: null, primary_color: "#ff0000" } })
        )
        assert.deepInclude((yield* design.get(store)).colors, {
          primary_color: "#ff0000",
          background_color: Catalogue.DIGITAL_PALETTE.background_color
        })
        const onDigital = yield* newest(store)
        assert.strictEqual((onDigital.before as { is_digital: boolean }).is_digital, true)
        yield* undo(store, onDigital.id)
        // Undoing the light-store change on the digital store: colours recorded at the light stock values become the
        // digital stock values, as the switch made them; the chosen background goes back to the light stock one, which
        // on a digital store is the digital one.
        yield* undo(store, chosen.id)
        assert.deepInclude((yield* design.get(store)).colors, Catalogue.DIGITAL_PALETTE)
        // Back to a physical theme: every colour at a digital stock value goes back to the light one.
        yield* fixtures.transaction(themes.switchTheme(writer, { theme: "classic" }))
        assert.deepInclude((yield* design.get(store)).colors, Catalogue.LIGHT_PALETTE)
      })
  )

  it.effect("design: undo writes the earlier design back; the undo of the undo applies the change again", () =>
    Effect.gen(function* () {
      const design = yield* Design
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const start = yield* design.get(store)
      yield* fixtures.transaction(
        design.update(writer, { colors: { button_color: "#22c55e" }, font_family: "Almarai", border_radius: 16 })
      )
      const changed = yield* design.get(store)
      const change = yield* newest(store)
      yield* undo(store, change.id)
      assert.deepStrictEqual(yield* design.get(store), start)
      yield* undo(store, (yield* newest(store)).id)
      assert.deepStrictEqual(yield* design.get(store), changed)
    })
  )

  it.effect("home sections: the standard set with defaults; a PATCH changes the sections and keys it sends", () =>
    Effect.gen(function* () {
      const sections = yield* HomeSections
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const start = yield* sections.get(store)
      assert.deepStrictEqual(Object.keys(start), [
        "hero",
        "categories",
        "featured_products",
        "testimonials",
        "faq",
        "trust_badges"
      ])
      assert.deepStrictEqual(start.faq, { enabled: false, title: null, items: [] })
      assert.deepStrictEqual(start.featured_products, { enabled: true, title: null, source: "newest", limit: 8 })
      const updated = yield* fixtures.transaction(
        sections.update(writer, {
          hero: { title: "Soldes d'hiver", button_link: "/categories/manteaux", image: "stores/3/hero.jpg" },
          faq: {
            enabled: true,
            items: [{ question: "Livrez-vous à Tamanrasset ?", answer: "Oui, dans les 58 wilayas.", extra: 1 }]
          },
          featured_products: { source: "best_selling", limit: 12 },
          trust_badges: { badges: ["cash_on_delivery", "easy_returns"] }
        })
      )
      assert.deepStrictEqual(updated.hero, {
        enabled: true,
        title: "Soldes d'hiver",
        subtitle: null,
        image: "stores/3/hero.jpg",
        button_text: null,
        button_link: "/categories/manteaux"
      })
      assert.deepStrictEqual(updated.faq, {
        enabled: true,
        title: null,
        items: [{ question: "Livrez-vous à Tamanrasset ?", answer: "Oui, dans les 58 wilayas." }]
      })
      assert.deepStrictEqual(updated.categories, start.categories)
      assert.deepStrictEqual(yield* sections.get(store), updated)
      const change = yield* newest(store)
      assert.deepInclude(change, {
        entity: "store.home_sections",
        entity_id: "home_sections",
        summary: "Updated home sections (hero, featured_products, faq, trust_badges)"
      })
      // The sections it changed, each with the keys it changed.
      assert.deepStrictEqual(change.before, {
        hero: { title: null, image: null, button_link: null },
        featured_products: { source: "newest", limit: 8 },
        faq: { enabled: false, items: [] },
        trust_badges: { badges: (start.trust_badges as { readonly badges: unknown }).badges }
      })
      assert.deepStrictEqual(change.after, {
        hero: { title: "Soldes d'hiver", image: "stores/3/hero.jpg", button_link: "/categories/manteaux" },
        featured_products: { source: "best_selling", limit: 12 },
        faq: { enabled: true, items: (updated.faq as { readonly items: unknown }).items },
        trust_badges: { badges: ["cash_on_delivery", "easy_returns"] }
      })
      yield* undo(store, change.id)
      assert.deepStrictEqual(yield* sections.get(store), start)
      yield* undo(store, (yield* newest(store)).id)
      assert.deepStrictEqual(yield* sections.get(store), updated)
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ banner: { enabled: true } }, "banner is not a standard home section"],
        [{ faq: true }, "faq must be an object"],
        [{ faq: { enabled: "yes" } }, "faq.enabled must be true or false"],
        [{ faq: { items: {} } }, "faq.items must be a list of at most 30 items"],
        [{ faq: { items: [{ question: "?" }] } }, "faq.items[0].answer must be 1 to 1000 characters"],
        [{ testimonials: { items: [{ name: "Amel", text: "Top", rating: 6 }] } }, "testimonials.items[0].rating"],
        [{ testimonials: { items: [{ name: "A\u0000", text: "Top", rating: 5 }] } }, "testimonials.items[0].name"],
        [{ categories: { limit: 25 } }, "categories.limit must be a whole number from 1 to 24"],
        [{ categories: { limit: 1e308 } }, "categories.limit must be a whole number from 1 to 24"],
        [{ hero: { button_link: "javascript:alert(1)" } }, "hero.button_link must be a storefront path"],
        [{ hero: { title: "\udc00" } }, "hero.title must be a string of at most 100 characters"],
        [{ trust_badges: { badges: ["cash_on_delivery", "cash_on_delivery"] } }, "trust_badges.badges must be"],
        [{ featured_products: { source: "random" } }, "featured_products.source must be newest or best_selling"]
      ]
      for (const [body, message] of cases) {
        const [tag, text] = yield* refusal(fixtures.transaction(sections.update(writer, body)))
        assert.strictEqual(tag, "InvalidBody", JSON.stringify(body))
        assert.isTrue(text.startsWith(message), `${JSON.stringify(body)}: ${text}`)
      }
    })
  )

  it.effect("home layout: add, update, move and remove sections, each recorded as an update of the whole layout", () =>
    Effect.gen(function* () {
      const layout = yield* HomeLayout
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const write = <A, E>(effect: Effect.Effect<A, E, never>) => fixtures.transaction(effect)
      assert.deepStrictEqual(yield* layout.get(store), { sections: [], in_use: false })
      const hero = yield* write(layout.add(writer, { type: "hero", settings: { title: "Bienvenue" } }))
      assert.deepStrictEqual(hero.section, {
        id: 1,
        type: "hero",
        enabled: true,
        settings: { title: "Bienvenue", subtitle: null, image: null, button_text: null, button_link: null }
      })
      assert.strictEqual(hero.position, 1)
      const added = yield* newest(store)
      assert.strictEqual(hero.change_id, added.id)
      assert.deepInclude(added, {
        entity: "store.home_layout",
        entity_id: "layout",
        action: "update",
        summary: "Added hero section #1 to the home layout",
        before: { sections: [] },
        after: { sections: [hero.section] }
      })
      const banner = yield* write(
        layout.add(writer, { type: "banner", settings: { image: "stores/1/b.jpg", link: "/p/1" }, position: 1 })
      )
      assert.deepStrictEqual([banner.section.id, banner.position], [2, 1])
      const text = yield* write(
        layout.add(writer, { type: "rich_text", enabled: false, settings: { text: "Livraison 48 h" } })
      )
      assert.deepStrictEqual([text.section.id, text.position], [3, 3])
      assert.deepStrictEqual(
        (yield* layout.get(store)).sections.map((section) => section.id),
        [2, 1, 3]
      )
      const patched = yield* write(layout.update(writer, 3, { enabled: true, settings: { title: "Livraison" } }))
      assert.deepStrictEqual(patched.section, {
        id: 3,
        type: "rich_text",
        enabled: true,
        settings: { title: "Livraison", text: "Livraison 48 h" }
      })
      assert.strictEqual((yield* newest(store)).summary, "Updated rich_text section #3 of the home layout")
      const same = yield* write(layout.update(writer, 3, { type: "rich_text", settings: { title: "Livraison" } }))
      assert.strictEqual(same.change_id, null, "nothing changed, nothing recorded")
      const moved = yield* write(layout.move(writer, { id: 3, position: 1 }))
      assert.deepStrictEqual(
        moved.sections.map((section) => section.id),
        [3, 2, 1]
      )
      assert.isTrue(moved.in_use)
      assert.strictEqual((yield* newest(store)).summary, "Moved rich_text section #3 to position 1 of the home layout")
      assert.strictEqual((yield* write(layout.move(writer, { id: 3, position: 1 }))).change_id, null)
      const removed = yield* write(layout.remove(writer, 2))
      assert.deepStrictEqual([removed.deleted, removed.id], [true, 2])
      assert.strictEqual(removed.change_id, (yield* newest(store)).id)
      assert.deepStrictEqual(
        (yield* layout.get(store)).sections.map((section) => section.id),
        [3, 1]
      )
      // Ids are never given twice.
      assert.strictEqual((yield* write(layout.add(writer, { type: "faq" }))).section.id, 4)
    })
  )

  it.effect("home layout: the refusals", () =>
    Effect.gen(function* () {
      const layout = yield* HomeLayout
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const write = <A, E>(effect: Effect.Effect<A, E, never>) => fixtures.transaction(effect)
      yield* write(layout.add(writer, { type: "categories" }))
      const expect = (
        effect: Effect.Effect<unknown, { readonly reason: { readonly _tag: string; message: string } }>,
        tag: string,
        message: string
      ) =>
        Effect.map(refusal(write(effect)), ([got, text]) => {
          assert.strictEqual(got, tag, message)
          assert.isTrue(text.startsWith(message), text)
        })
      yield* expect(layout.add(writer, []), "InvalidBody", "Body must be a JSON object")
      yield* expect(layout.add(writer, { type: "carousel" }), "InvalidBody", "type must be one of hero, categories")
      yield* expect(layout.add(writer, { type: "banner" }), "InvalidBody", "settings.image is required")
      yield* expect(layout.add(writer, { type: "rich_text" }), "InvalidBody", "settings.text must be 1 to 5000")
      yield* expect(
        layout.add(writer, { type: "rich_text", settings: { text: "x".repeat(5001) } }),
        "InvalidBody",
        "settings.text must be 1 to 5000"
      )
      yield* expect(
        layout.add(writer, { type: "faq", position: 3 }),
        "InvalidBody",
        "position must be a whole number from 1 to 2"
      )
      yield* expect(layout.add(writer, { type: "faq", position: 1e308 }), "InvalidBody", "position must be")
      yield* expect(layout.add(writer, { type: "faq", enabled: 1 }), "InvalidBody", "enabled must be true or false")
      yield* expect(layout.update(writer, 99, {}), "SectionNotFound", "Section 99 not found")
      yield* expect(layout.update(writer, 2 ** 53, {}), "SectionNotFound", "Section")
      yield* expect(layout.update(writer, 1, { type: "faq" }), "InvalidBody", "A section's type cannot change")
      yield* expect(layout.update(writer, 1, { settings: { limit: 0 } }), "InvalidBody", "settings.limit must be")
      yield* expect(layout.remove(writer, 7), "SectionNotFound", "Section 7 not found")
      yield* expect(layout.move(writer, { id: 7, position: 1 }), "SectionNotFound", "Section 7 not found")
      yield* expect(layout.move(writer, { id: "1", position: 1 }), "InvalidBody", "id must be the id of a section")
      yield* expect(
        layout.move(writer, { id: 1, position: 2 }),
        "InvalidBody",
        "position must be a whole number from 1 to 1"
      )
      for (let i = 1; i < MAX_SECTIONS; i++) yield* write(layout.add(writer, { type: "trust_badges", enabled: false }))
      yield* expect(layout.add(writer, { type: "faq" }), "InvalidBody", `The home layout holds at most ${MAX_SECTIONS}`)
    })
  )

  it.effect("home layout: an undo is refused while a later layout change stands; newest first restores each step", () =>
    Effect.gen(function* () {
      const layout = yield* HomeLayout
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore()
      const writer = { storeId: store, keyId: KEY }
      const write = <A, E>(effect: Effect.Effect<A, E, never>) => fixtures.transaction(effect)
      const ids = () => Effect.map(layout.get(store), (view) => view.sections.map((section) => section.id))
      const first = yield* write(layout.add(writer, { type: "hero" }))
      const second = yield* write(layout.add(writer, { type: "faq" }))
      const moved = yield* write(layout.move(writer, { id: 2, position: 1 }))
      const refused = yield* Effect.flip(undo(store, first.change_id!))
      assert.strictEqual(refused.reason._tag, "LaterChangeExists")
      assert.strictEqual(
        refused.reason.message,
        `The home layout changed after change #${first.change_id}; undo the later changes first, newest first`
      )
      // Other entities' later changes do not count.
      yield* write((yield* Settings).update(writer, { name: "Autre nom" }))
      yield* undo(store, moved.change_id!)
      assert.deepStrictEqual(yield* ids(), [1, 2])
      yield* undo(store, second.change_id!)
      assert.deepStrictEqual(yield* ids(), [1])
      // Adding a section is undone: its id stays given.
      yield* undo(store, first.change_id!)
      assert.deepStrictEqual(yield* ids(), [])
      assert.strictEqual((yield* write(layout.add(writer, { type: "faq" }))).section.id, 3)
      // The undo of an undo re-applies, refused too while a later change stands.
      const undoOfFirst = (yield* (yield* Changes.Changes).get(
        { storeId: store, keyId: null, scopes: ["store:read"] },
        first.change_id!
      )).undone_by_id!
      assert.strictEqual((yield* Effect.flip(undo(store, undoOfFirst))).reason._tag, "LaterChangeExists")
      yield* undo(store, (yield* newest(store)).id)
      yield* undo(store, undoOfFirst)
      assert.deepStrictEqual(yield* ids(), [1])
    })
  )
}
