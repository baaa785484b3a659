import { assert, describe, it } from "@effect/vitest"
import * as Pixel from "../src/Pixel.ts"
import * as Catalogue from "../src/ThemeCatalogue.ts"

describe("Pixel", () => {
  it("reads the seven types in any letter case, and nothing else", () => {
    assert.strictEqual(Pixel.pixelTypeOf(" FaceBook "), "facebook")
    assert.strictEqual(Pixel.pixelTypeOf("GOOGLE_ADS"), "google_ads")
    for (const name of ["social_a", "meta", "google-ads", ""]) assert.isUndefined(Pixel.pixelTypeOf(name))
  })

  it("refuses only what the spec refuses: 1 to 100 letters, digits, - and _, and 15 to 17 digits for facebook", () => {
    const refused: ReadonlyArray<readonly [Pixel.PixelType, string]> = [
      ["facebook", "12345678901234"],
      ["facebook", "123456789012345678"],
      ["facebook", "12345678901234a"],
      ["gtm", "GTM-ABC 123"],
      ["gtm", "GTM-ABC\u0000"],
      ["tiktok", "x".repeat(101)],
      ["google_ads", ""],
      ["google_ads", "  "],
      ["snapchat", "é"],
      ["pinterest", "26123\ud800"]
    ]
    for (const [type, raw] of refused) assert.isUndefined(Pixel.pixelIdOf(type, raw), `${type} ${JSON.stringify(raw)}`)
    assert.strictEqual(Pixel.requiredId("facebook"), "15 to 17 digits")
    assert.strictEqual(Pixel.requiredId("gtm"), "1 to 100 letters, digits, - or _")
  })

  it("keeps an id in its platform's usual format in the platform's letter case, with no warning", () => {
    const usual: ReadonlyArray<readonly [Pixel.PixelType, string, string]> = [
      ["facebook", "123456789012345", "123456789012345"],
      ["facebook", "12345678901234567", "12345678901234567"],
      ["tiktok", "c4abcdef1234567890ab", "C4ABCDEF1234567890AB"],
      ["snapchat", "1B2C3D4E-5F60-4A1B-9C2D-3E4F5A6B7C8D", "1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d"],
      ["pinterest", "2612345678901", "2612345678901"],
      ["google_analytics", " g-abc123xyz9 ", "G-ABC123XYZ9"],
      ["gtm", "gtm-5x7k2lp", "GTM-5X7K2LP"],
      ["google_ads", "aw-1234567890", "AW-1234567890"]
    ]
    for (const [type, raw, stored] of usual) {
      assert.strictEqual(Pixel.pixelIdOf(type, raw), stored, `${type} ${raw}`)
      assert.deepStrictEqual(Pixel.warningsOf(type, stored), [], `${type} ${stored}`)
    }
  })

  it("keeps any other id as sent, with a warning naming the platform's usual format", () => {
    const unusual: ReadonlyArray<readonly [Pixel.PixelType, string]> = [
      ["tiktok", "C4ABCDEF1234567890A"],
      ["snapchat", "1b2c3d4e5f604a1b9c2d3e4f5a6b7c8d"],
      ["pinterest", "261234567890"],
      ["google_analytics", "UA-12345-1"],
      ["gtm", "GTM-AB"],
      ["google_ads", "AW-12345"],
      ["google_ads", "custom_tag-1"]
    ]
    for (const [type, raw] of unusual) {
      assert.strictEqual(Pixel.pixelIdOf(type, raw), raw, `${type} ${raw}`)
      const warnings = Pixel.warningsOf(type, raw)
      assert.deepStrictEqual(
        warnings.map((warning) => [warning.field, warning.code]),
        [["pixel_id", "unusual_pixel_id"]]
      )
      assert.include(warnings[0]!.message, Pixel.ID_FORMATS[type].expected)
    }
  })

  it("cleans a pasted token, then refuses it by the spec's rules", () => {
    const token = "EAAB".padEnd(44, "x")
    assert.strictEqual(Pixel.cleanToken(`  "\u200b${token}\ufeff"\n`), token)
    assert.strictEqual(Pixel.cleanToken(`'${token}'`), token)
    assert.strictEqual(Pixel.cleanToken(`\u201c${token}\u201d`), token)
    assert.strictEqual(Pixel.cleanToken(" \u200d "), "")
    const problem = (value: string, type: Pixel.PixelType = "tiktok") => Pixel.tokenProblem(value, type, "P1")
    assert.isUndefined(problem(token, "facebook"))
    assert.isDefined(problem("abc<script>"))
    assert.isDefined(problem("abc def"))
    assert.isDefined(problem("abc\ndef"))
    // Text PostgreSQL cannot keep is refused, not cleaned away: the token would be stored altered.
    assert.isDefined(problem("abc\u0000def"))
    assert.isDefined(problem("abc\udc00def"))
    assert.isDefined(problem("P1"))
    assert.isDefined(problem("x".repeat(39), "facebook"))
    assert.isUndefined(problem("short", "tiktok"))
  })

  it("tells which pixels send server-side events", () => {
    const sends = (pixel_type: Pixel.PixelType, has_token: boolean, ad_account_id: string | null = null) =>
      Pixel.sendsServerEvents({ pixel_type, has_token, ad_account_id })
    assert.deepStrictEqual(
      [sends("facebook", true), sends("tiktok", true), sends("snapchat", false), sends("pinterest", true)],
      [true, true, false, false]
    )
    assert.isTrue(sends("pinterest", true, "549755885175"))
    assert.isFalse(sends("google_analytics", true))
    assert.isFalse(sends("gtm", true))
    assert.isFalse(sends("google_ads", true))
  })

  it("limits pixels by plan: Free none, Pro one of each type, Unlimited and Enterprise no limit", () => {
    const counts = { ...Pixel.emptyCounts, facebook: 1, gtm: 3 }
    assert.isFalse(Pixel.fits("free", Pixel.emptyCounts, "facebook"))
    assert.isFalse(Pixel.fits("pro", counts, "facebook"))
    assert.isTrue(Pixel.fits("pro", counts, "tiktok"))
    assert.isTrue(Pixel.fits("unlimited", counts, "gtm"))
    assert.deepStrictEqual(Pixel.limitsView("free", counts), {
      plan: "free",
      can_add: false,
      per_type_limit: 0,
      total_limit: 0,
      counts,
      total: 4
    })
    assert.deepStrictEqual(
      [Pixel.limitsView("pro", counts).can_add, Pixel.limitsView("pro", counts).per_type_limit],
      [true, 1]
    )
    assert.deepStrictEqual(
      [Pixel.limitsView("enterprise", counts).per_type_limit, Pixel.limitsView("enterprise", counts).total_limit],
      [null, null]
    )
  })
})

describe("ThemeCatalogue", () => {
  it("swaps only the colours still at the stock values, in either direction", () => {
    const chosen = { ...Catalogue.LIGHT_PALETTE, primary_color: "#AA0000", background_color: "#FFFFFF" }
    const digital = Catalogue.switchColors(chosen, Catalogue.LIGHT_PALETTE, Catalogue.DIGITAL_PALETTE)
    assert.deepStrictEqual(digital, {
      primary_color: "#AA0000",
      secondary_color: Catalogue.DIGITAL_PALETTE.secondary_color,
      background_color: Catalogue.DIGITAL_PALETTE.background_color
    })
    assert.deepStrictEqual(Catalogue.switchColors(digital, Catalogue.DIGITAL_PALETTE, Catalogue.LIGHT_PALETTE), {
      ...Catalogue.LIGHT_PALETTE,
      primary_color: "#AA0000"
    })
  })

  it("has one digital theme, unique keys, and the spec's fast-checkout and style plans", () => {
    assert.deepStrictEqual(
      Catalogue.STOREFRONT_THEMES.filter((theme) => theme.digitalOnly).map((theme) => theme.key),
      ["digital"]
    )
    for (const list of [Catalogue.STOREFRONT_THEMES, Catalogue.FAST_CHECKOUT_THEMES, Catalogue.VARIANT_STYLES]) {
      assert.strictEqual(new Set(list.map((item) => item.key)).size, list.length)
    }
    const plan = (list: ReadonlyArray<Catalogue.Choice>, key: string) => list.find((item) => item.key === key)?.plan
    assert.deepStrictEqual(
      ["classic", "commerce", "editorial", "compact", "stepper"].map((key) =>
        plan(Catalogue.FAST_CHECKOUT_THEMES, key)
      ),
      ["free", "pro", "unlimited", "enterprise", "enterprise"]
    )
    assert.deepStrictEqual(
      ["default", "clay", "offer", "mashrabiya"].map((key) => plan(Catalogue.VARIANT_STYLES, key)),
      ["free", "pro", "unlimited", "enterprise"]
    )
  })
})
