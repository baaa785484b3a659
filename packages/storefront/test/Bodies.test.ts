import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Schema } from "effect"
import * as fc from "fast-check"
import * as Design from "../src/Design.ts"
import * as HomeLayout from "../src/HomeLayout.ts"
import * as HomeSection from "../src/HomeSection.ts"
import * as HomeSections from "../src/HomeSections.ts"
import * as Settings from "../src/Settings.ts"
import { defaultCurrency, emptyContact, emptySocialLinks } from "../src/Store.ts"
import type { DesignState, HomeSectionsValues, SettingsState } from "../src/StoreConfig.ts"
import * as Catalogue from "../src/ThemeCatalogue.ts"

const current: SettingsState = {
  name: "Boutique Amina",
  description: null,
  language: "fr",
  logo: null,
  favicon: null,
  banner: null,
  contact: emptyContact,
  social_links: emptySocialLinks,
  currency: defaultCurrency
}

const apply = (body: unknown) => Settings.apply(current, body)
const refusal = (body: unknown) => Effect.runSync(Effect.flip(apply(body)))

const nested = fc.integer({ min: 1, max: 1_000 }).map((depth) => {
  let value: unknown = "x"
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value }
  return value
})

const nasty = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom("\u0000", "Amina\u0000", "\ud800", "\u001b[2J", " ", "", "https://127.0.0.1/", "+213 555"),
  fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, 2 ** 53 + 1, -0, 0, 2, 58, 59),
  fc.double(),
  fc.jsonValue(),
  nested
)

/** A refusal names the body, or a field of the body schema (a group's key with its group), then its rule. */
const REFUSAL =
  /^(Body must be a JSON object$|(name|description|language|logo|favicon|banner|contact(\.(phone|whatsapp|email|address|wilaya_id))?|social_links(\.(facebook|instagram|tiktok|youtube))?|currency(\.(symbol|position|decimals))?) must be )/

describe("store settings body", () => {
  it("reads a PATCH over the current settings, groups key by key", () => {
    const after = Effect.runSync(
      apply({
        name: "  Amina  ",
        contact: { phone: "+213 555 12 34 56", email: " a@b.dz " },
        currency: { decimals: 2 }
      })
    )
    assert.strictEqual(after.name, "Amina")
    assert.deepStrictEqual(after.contact, { ...emptyContact, phone: "+213555123456", email: "a@b.dz" })
    assert.deepStrictEqual(after.currency, { ...defaultCurrency, decimals: 2 })
    assert.deepStrictEqual(Effect.runSync(apply({ unknown: 1, slug: "x" })), current)
  })

  it("refuses the first field that breaks its rule, naming it", () => {
    assert.strictEqual(refusal([]), "Body must be a JSON object")
    assert.strictEqual(refusal({ name: " ", language: "en" }), "name must be 1 to 100 characters")
    assert.strictEqual(refusal({ language: "en", contact: 1 }), "language must be ar or fr")
    assert.strictEqual(refusal({ contact: 1 }), "contact must be an object")
    assert.strictEqual(
      refusal({ contact: { wilaya_id: 59, email: "nobody" } }),
      "contact.email must be an email address of at most 254 characters, or null"
    )
    assert.strictEqual(refusal({ contact: { wilaya_id: 59 } }), "contact.wilaya_id must be 1-58, or null")
    assert.strictEqual(refusal({ currency: { decimals: 1 } }), "currency.decimals must be 0 or 2")
    assert.strictEqual(
      refusal({ social_links: { tiktok: "https://127.0.0.1/" } }),
      "social_links.tiktok must be an https URL of a public host, without credentials, of at most 500 characters, or null"
    )
  })

  it("answers any body with settings or a refusal naming the field, never a defect", () => {
    const field = fc.constantFrom(
      "name",
      "description",
      "language",
      "logo",
      "favicon",
      "banner",
      "contact",
      "social_links",
      "currency",
      "__proto__"
    )
    const group = fc.dictionary(
      fc.constantFrom("phone", "whatsapp", "email", "address", "wilaya_id", "tiktok", "symbol", "decimals"),
      nasty
    )
    const body = fc.oneof(nasty, fc.dictionary(field, fc.oneof(nasty, group)))
    fc.assert(
      fc.property(body, (sent) => {
        const exit = Effect.runSyncExit(apply(sent))
        assert.isTrue(
          Exit.isSuccess(exit) ||
            (!Cause.hasDies(exit.cause) &&
              Cause.findErrorOption(exit.cause).pipe(Option.exists((text) => REFUSAL.test(text)))),
          JSON.stringify(sent)
        )
      }),
      { numRuns: 150 }
    )
  })
})

const design: DesignState = {
  colors: {
    ...Catalogue.LIGHT_PALETTE,
    text_color: null,
    button_color: null,
    button_text_color: null,
    header_color: null,
    footer_color: null
  },
  font_family: "Inter",
  heading_font: null,
  border_radius: 8,
  button_style: "filled",
  product_image_ratio: "square"
}

const applyDesign = (body: unknown) => Design.apply(design, Catalogue.DIGITAL_PALETTE, body)

const DESIGN_REFUSAL =
  /^(Body must be a JSON object$|(colors(\.(primary|secondary|background|text|button|button_text|header|footer)_color)?|font_family|heading_font|border_radius|button_style|product_image_ratio) must be )/

describe("design body", () => {
  it("reads colours and fonts as kept: a palette colour's null is the store's stock one", () => {
    const after = Effect.runSync(
      applyDesign({ colors: { primary_color: null, text_color: "#ABC" }, font_family: " cairo ", heading_font: "" })
    )
    assert.strictEqual(after.colors.primary_color, Catalogue.DIGITAL_PALETTE.primary_color)
    assert.strictEqual(after.colors.text_color, "#aabbcc")
    assert.deepStrictEqual([after.font_family, after.heading_font], ["Cairo", null])
    assert.strictEqual(
      Effect.runSync(Effect.flip(applyDesign({ colors: { header_color: "red" }, border_radius: 99 }))),
      "colors.header_color must be a colour such as #1f2937 or #fff, or null for the theme's"
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(applyDesign({ border_radius: 2.5 }))),
      "border_radius must be a whole number of pixels from 0 to 24"
    )
  })

  it("answers any body with a design or a refusal naming the field, never a defect", () => {
    const field = fc.constantFrom(
      "colors",
      "font_family",
      "heading_font",
      "border_radius",
      "button_style",
      "product_image_ratio",
      "__proto__"
    )
    const colors = fc.dictionary(fc.constantFrom("primary_color", "text_color", "footer_color"), nasty)
    const body = fc.oneof(nasty, fc.dictionary(field, fc.oneof(nasty, colors)))
    fc.assert(
      fc.property(body, (sent) => {
        const exit = Effect.runSyncExit(applyDesign(sent))
        assert.isTrue(
          Exit.isSuccess(exit) ||
            (!Cause.hasDies(exit.cause) &&
              Cause.findErrorOption(exit.cause).pipe(Option.exists((text) => DESIGN_REFUSAL.test(text)))),
          JSON.stringify(sent)
        )
      }),
      { numRuns: 150 }
    )
  })
})

describe("home section settings", () => {
  it("reads settings key by key over the defaults; a required one never sent is refused", () => {
    const read = <T extends HomeSection.SectionType>(type: T, raw: unknown) =>
      HomeSection.readSettings(type, undefined, raw, "settings")
    assert.deepStrictEqual(
      Effect.runSync(read("testimonials", { items: [{ name: " Amina ", text: "Top", rating: 5 }], other: 1 })),
      { title: null, items: [{ name: "Amina", text: "Top", rating: 5, wilaya_id: null }] }
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(read("testimonials", { items: [{ name: "Amina", rating: 5 }] }))),
      "settings.items[0].text must be 1 to 500 characters"
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(read("banner", { alt: "x" }))),
      "settings.image is required: a path such as stores/12/banner.jpg (at most 500 characters)"
    )
    assert.strictEqual(
      Effect.runSync(Effect.flip(read("trust_badges", { badges: ["easy_returns", "easy_returns"] }))),
      "settings.badges must be a list of distinct badges among cash_on_delivery, delivery_58_wilayas, easy_returns, quality_guarantee, customer_support"
    )
    assert.strictEqual(Effect.runSync(Effect.flip(read("faq", 7))), "settings must be an object")
  })

  it("answers any settings with values or a refusal under its path, never a defect", () => {
    const key = fc.constantFrom("title", "image", "button_link", "limit", "source", "items", "badges", "text", "alt")
    const item = fc.dictionary(fc.constantFrom("name", "text", "rating", "wilaya_id", "question", "answer"), nasty)
    const raw = fc.oneof(nasty, fc.dictionary(key, fc.oneof(nasty, fc.array(fc.oneof(nasty, item), { maxLength: 3 }))))
    fc.assert(
      fc.property(fc.constantFrom(...HomeSection.SECTION_TYPES), raw, (type, sent) => {
        const exit = Effect.runSyncExit(HomeSection.readSettings(type, undefined, sent, "sections[0].settings"))
        assert.isTrue(
          Exit.isSuccess(exit) ||
            (!Cause.hasDies(exit.cause) &&
              Cause.findErrorOption(exit.cause).pipe(
                Option.exists((text) =>
                  /^sections\[0\]\.settings(\.[a-z_]+(\[\d+\](\.[a-z_]+)?)?)? (must be|is required)/.test(text)
                )
              )),
          JSON.stringify(sent)
        )
      }),
      { numRuns: 150 }
    )
  })
})

const sections = Object.fromEntries(
  HomeSection.STANDARD_TYPES.map((type) => [type, { enabled: true, ...HomeSection.DEFAULTS[type] }])
) as unknown as HomeSectionsValues

describe("home sections body", () => {
  it("reads sections key by key over the current ones; a section that is not standard is refused first", () => {
    const after = Effect.runSync(HomeSections.apply(sections, { faq: { enabled: false, title: " FAQ " } }))
    assert.deepStrictEqual(after.faq, { enabled: false, title: "FAQ", items: [] })
    assert.deepStrictEqual(after.hero, sections.hero)
    const refusal = (body: unknown) => Effect.runSync(Effect.flip(HomeSections.apply(sections, body)))
    assert.strictEqual(refusal({ hero: 1, banner: {} }).split(" (")[0], "banner is not a standard home section")
    assert.strictEqual(refusal({ hero: 1 }), "hero must be an object")
    assert.strictEqual(refusal({ hero: { enabled: "yes", title: 5 } }), "hero.enabled must be true or false")
    assert.strictEqual(refusal({ categories: { limit: 25 } }), "categories.limit must be a whole number from 1 to 24")
    assert.strictEqual(refusal([]), HomeSections.BODY)
  })

  it("answers any body with sections or a refusal naming the section, never a defect", () => {
    const key = fc.constantFrom("enabled", "title", "limit", "source", "items", "badges", "image")
    const section = fc.oneof(nasty, fc.dictionary(key, nasty))
    const body = fc.oneof(nasty, fc.dictionary(fc.constantFrom(...HomeSection.STANDARD_TYPES, "banner"), section))
    fc.assert(
      fc.property(body, (sent) => {
        const exit = Effect.runSyncExit(HomeSections.apply(sections, sent))
        assert.isTrue(
          Exit.isSuccess(exit) ||
            (!Cause.hasDies(exit.cause) &&
              Cause.findErrorOption(exit.cause).pipe(
                Option.exists((text) =>
                  /^(Body must be a JSON object of home sections$|[\s\S]* is not a standard home section|[a-z_]+(\.[a-z_]+(\[\d+\](\.[a-z_]+)?)?)? must be )/.test(
                    text
                  )
                )
              )),
          JSON.stringify(sent)
        )
      }),
      { numRuns: 150 }
    )
  })
})

describe("home layout bodies", () => {
  const required: Partial<Record<HomeSection.SectionType, object>> = {
    banner: { image: "stores/1/banner.jpg" },
    rich_text: { text: "Livraison partout" }
  }

  it("declares one add body per section type, with that type's settings, as the parser decodes them", () => {
    const decodeAdd = Schema.decodeUnknownOption(HomeLayout.SectionAdd)
    for (const type of HomeSection.SECTION_TYPES) {
      const body = { type, enabled: false, settings: required[type] ?? {}, position: 1 }
      assert.isTrue(Option.isSome(decodeAdd(body)), type)
    }
    assert.isTrue(Option.isNone(decodeAdd({ type: "slider" })))
    assert.isTrue(Option.isNone(decodeAdd({ type: "faq", enabled: "yes" })))
    assert.isTrue(Option.isNone(decodeAdd({ type: "categories", settings: { limit: 25 } })))
    const decodeMove = Schema.decodeUnknownOption(HomeLayout.SectionMove)
    assert.isTrue(Option.isSome(decodeMove({ id: 1, position: 2 })))
    assert.isTrue(Option.isNone(decodeMove({ id: "1", position: 2 })))
  })

  it("checks the sections an undo writes back as the writes made them", () => {
    const check = (raw: ReadonlyArray<unknown>) => Effect.runSyncExit(HomeLayout.checkSections(raw))
    const refusal = (raw: ReadonlyArray<unknown>) => Effect.runSync(Effect.flip(HomeLayout.checkSections(raw)))
    const written = Effect.runSync(
      HomeLayout.checkSections([
        { id: 1, type: "faq", enabled: true, settings: { title: " FAQ " } },
        { id: 3, type: "banner", enabled: false, settings: required.banner }
      ])
    )
    assert.deepStrictEqual(written[0], { id: 1, type: "faq", enabled: true, settings: { title: "FAQ", items: [] } })
    assert.strictEqual(written[1]!.id, 3)
    assert.strictEqual(refusal([7]), "sections[0] must be an object")
    assert.strictEqual(refusal([{ id: 1, type: "slider" }]).split(" (")[0], `sections[0].${HomeLayout.INVALID_TYPE}`)
    assert.strictEqual(
      refusal([{ id: 0, type: "faq", enabled: true }]),
      "sections[0].id must be a positive whole number"
    )
    assert.strictEqual(refusal([{ type: "faq", enabled: true }]), "sections[0].id must be a positive whole number")
    assert.strictEqual(refusal([{ id: 1, type: "faq" }]), "sections[0].enabled must be true or false")
    assert.strictEqual(
      refusal([
        { id: 1, type: "faq", enabled: true },
        { id: 1, type: "hero", enabled: true }
      ]),
      "sections[1].id 1 appears twice"
    )
    assert.strictEqual(
      refusal([{ id: 2, type: "banner", enabled: true }]).split(":")[0],
      "sections[0].settings.image is required"
    )
    assert.isTrue(Exit.isFailure(check(Array.from({ length: 31 }, (_, id) => ({ id: id + 1, type: "faq" })))))
  })

  it("answers any undo list with sections or a refusal naming the section, never a defect", () => {
    const key = fc.constantFrom("id", "type", "enabled", "settings")
    const value = fc.oneof(nasty, fc.constantFrom(...HomeSection.SECTION_TYPES), fc.dictionary(fc.string(), nasty))
    fc.assert(
      fc.property(fc.array(fc.oneof(nasty, fc.dictionary(key, value)), { maxLength: 4 }), (raw) => {
        const exit = Effect.runSyncExit(HomeLayout.checkSections(raw))
        assert.isTrue(
          Exit.isSuccess(exit) ||
            (!Cause.hasDies(exit.cause) &&
              Cause.findErrorOption(exit.cause).pipe(Option.exists((text) => /^sections\[\d+\]/.test(text)))),
          JSON.stringify(raw)
        )
      }),
      { numRuns: 150 }
    )
  })
})
