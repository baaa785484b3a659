import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Slug from "../src/Slug.ts"

describe("Slug", () => {
  it.each([
    ["Summer Sale 2026", "summer-sale-2026"],
    ["  --Hello,   World!--  ", "hello-world"],
    ["Crème brûlée à l'œuf", "creme-brulee-a-l-uf"],
    ["ÉTÉ_2026", "ete-2026"],
    ["عرض Promo ٢٠٢٦", "promo"],
    ["تخفيضات الصيف", ""],
    ["🔥🔥🔥", ""],
    ["", ""],
    ["ﬁne ①", "fine-1"]
  ])("fromText(%j) is %j", (text, slug) => {
    assert.strictEqual(Slug.fromText(text), slug)
  })

  it("fromText keeps only lowercase ASCII letters, digits and single inner hyphens", () => {
    for (const text of ["A—B", "x\u0000y", "Ωmega 3", "a - - b", "İstanbul", "naïve café"]) {
      const slug = Slug.fromText(text)
      assert.match(slug, /^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$/, text)
    }
  })

  it("fromText cuts a long title to MAX_DERIVED_LENGTH without a trailing hyphen", () => {
    const slug = Slug.fromText(`${"a".repeat(99)} ${"b".repeat(50)}`)
    assert.strictEqual(slug, "a".repeat(99))
    assert.strictEqual(Slug.fromText("word ".repeat(60)).length <= Slug.MAX_DERIVED_LENGTH, true)
  })

  it.effect("derive falls back to landing- and 6 hex characters when the text gives nothing", () =>
    Effect.gen(function* () {
      for (let n = 0; n < 50; n++) assert.match(yield* Slug.derive("مرحبا"), /^landing-[0-9a-f]{6}$/)
      assert.strictEqual(yield* Slug.derive("Promo"), "promo")
    })
  )

  it("firstFree takes the base, else the first free of -2, -3, …", () => {
    const taken =
      (...slugs: Array<string>) =>
      (slug: string) =>
        slugs.includes(slug)
    assert.strictEqual(Slug.firstFree("promo", taken()), "promo")
    assert.strictEqual(Slug.firstFree("promo", taken("promo")), "promo-2")
    assert.strictEqual(Slug.firstFree("promo", taken("promo", "promo-2", "promo-4")), "promo-3")
    assert.strictEqual(Slug.firstFree("promo", taken("promo-2")), "promo")
  })
})
