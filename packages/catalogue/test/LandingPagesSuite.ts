/**
 * The contract of `LandingPages` and its `LandingPageStore`, from the spec's "Landing page" section, its endpoint
 * rows, "Landing page create body" and "Landing page create 400 messages", run against every implementation.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import * as LandingPage from "../src/LandingPage.ts"
import { LandingPages } from "../src/LandingPages.ts"
import { Products } from "../src/Products.ts"
import { Fixtures } from "./Fixtures.ts"

const badRequest = <A, E extends { readonly reason: { readonly _tag: string }; readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>
) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.strictEqual(error.reason._tag, "InvalidLandingPage")
    return error.message
  })

const notFound = <A, E extends { readonly reason: { readonly _tag: string } }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => assert.strictEqual(error.reason._tag, "LandingPageNotFound"))

const slugs = (pages: ReadonlyArray<{ readonly slug: string }>) => pages.map((page) => page.slug)

export const LandingPagesSuite = (it: Vitest.MethodsNonLive<LandingPages | Products | Fixtures>) => {
  it.effect("creates a draft `ar` page with a slug from the title, no sections, and reads it back", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const created = yield* pages.create(store, { title: "Soldes d'été 2026 — Crème brûlée!" })
      assert.deepStrictEqual(
        {
          slug: created.slug,
          status: created.status,
          language: created.language,
          product_id: created.product_id,
          views: created.views,
          is_purchased: created.is_purchased,
          meta_title: created.meta_title,
          meta_description: created.meta_description,
          section_count: created.section_count
        },
        {
          slug: "soldes-d-ete-2026-creme-brulee",
          status: "draft",
          language: "ar",
          product_id: null,
          views: 0,
          is_purchased: false,
          meta_title: null,
          meta_description: null,
          section_count: 0
        }
      )
      assert.deepStrictEqual(yield* pages.get(store, created.id), created)
    })
  )

  it.effect("encodes to the wire shape; the list item leaves out the meta fields and section_count", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const created = yield* pages.create(store, { title: "Promo", meta_title: "Promo -50%", meta_description: "…" })
      const wire = yield* Schema.encodeEffect(LandingPage.LandingPage)(created)
      assert.deepStrictEqual(Object.keys(wire), [
        "id",
        "title",
        "slug",
        "status",
        "language",
        "product_id",
        "views",
        "is_purchased",
        "created_at",
        "updated_at",
        "meta_title",
        "meta_description",
        "section_count"
      ])
      assert.match(wire.updated_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const [item] = (yield* pages.list(store)).items
      const summary = yield* Schema.encodeEffect(LandingPage.LandingPageSummary)(item!)
      assert.deepStrictEqual(Object.keys(summary), Object.keys(wire).slice(0, 10))
    })
  )

  it.effect("coerces status and language out of their sets on create, keeps the valid ones", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const coerced = yield* pages.create(store, { title: "A", status: "published", language: "de" })
      assert.deepStrictEqual([coerced.status, coerced.language], ["draft", "ar"])
      const odd = yield* pages.create(store, { title: "B", status: 1, language: null })
      assert.deepStrictEqual([odd.status, odd.language], ["draft", "ar"])
      const kept = yield* pages.create(store, { title: "C", status: "active", language: "fr" })
      assert.deepStrictEqual([kept.status, kept.language], ["active", "fr"])
      const english = yield* pages.create(store, { title: "D", language: "en" })
      assert.strictEqual(english.language, "en")
    })
  )

  it.effect("stores a sent slug without normalisation; null or empty derives one from the title", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const sent = yield* pages.create(store, { title: "Été", slug: "Promo_ÉTÉ 2026" })
      assert.strictEqual(sent.slug, "Promo_ÉTÉ 2026")
      const empty = yield* pages.create(store, { title: "Offre Spéciale", slug: "" })
      assert.strictEqual(empty.slug, "offre-speciale")
      const nul = yield* pages.create(store, { title: "Offre Spéciale", slug: null })
      assert.strictEqual(nul.slug, "offre-speciale-2")
    })
  )

  it.effect("makes slugs unique per store with -2, -3, …, for derived and sent slugs alike", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const other = yield* fixtures.newStore
      const created = yield* Effect.forEach(
        [{ title: "Promo" }, { title: "PROMO" }, { title: "x", slug: "promo" }, { title: "promo!!" }],
        (body) => pages.create(store, body)
      )
      assert.deepStrictEqual(slugs(created), ["promo", "promo-2", "promo-3", "promo-4"])
      // Another store's slugs do not count.
      assert.strictEqual((yield* pages.create(other, { title: "Promo" })).slug, "promo")
      // The first free suffix, gaps included.
      yield* pages.remove(store, created[1]!.id)
      assert.strictEqual((yield* pages.create(store, { title: "Promo" })).slug, "promo-2")
      assert.strictEqual((yield* pages.create(store, { title: "Promo" })).slug, "promo-5")
    })
  )

  it.effect("an Arabic-only title gives landing- and 6 hex characters", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const arabic = yield* pages.create(store, { title: "تخفيضات الصيف" })
      assert.match(arabic.slug, /^landing-[0-9a-f]{6}$/)
      const mixed = yield* pages.create(store, { title: "عرض Promo ٢٠٢٦" })
      assert.strictEqual(mixed.slug, "promo")
    })
  )

  it.effect("10 concurrent creates with one title get 10 distinct slugs", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const created = yield* Effect.all(
        Array.from({ length: 10 }, () => fixtures.transaction(pages.create(store, { title: "Black Friday" }))),
        { concurrency: "unbounded" }
      )
      const expected = ["black-friday", ...Array.from({ length: 9 }, (_, i) => `black-friday-${i + 2}`)]
      assert.deepStrictEqual([...slugs(created)].sort(), [...expected].sort())
      assert.deepStrictEqual(slugs((yield* pages.list(store)).items).sort(), [...expected].sort())
    })
  )

  it.effect("links the store's own product; another store's, a deleted or an unknown one is refused", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const products = yield* Products
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const other = yield* fixtures.newStore
      const mine = yield* products.create(store, { name: "Mine", price: 1 })
      const theirs = yield* products.create(other, { name: "Theirs", price: 1 })
      const deleted = yield* products.create(store, { name: "Deleted", price: 1 })
      yield* products.remove(store, deleted.id)

      const linked = yield* pages.create(store, { title: "Linked", product_id: mine.id })
      assert.strictEqual(linked.product_id, mine.id)
      for (const id of [theirs.id, deleted.id, 0, -4, 99_999_999_999]) {
        assert.strictEqual(
          yield* badRequest(pages.create(store, { title: "Bad", product_id: id })),
          `product_id ${id} does not belong to this store`
        )
        assert.strictEqual(
          yield* badRequest(pages.update(store, linked.id, { product_id: id })),
          `product_id ${id} does not belong to this store`
        )
      }
      assert.strictEqual(
        yield* badRequest(pages.create(store, { title: "Bad", product_id: "1" })),
        "product_id must be an integer or null"
      )
      const unlinked = yield* pages.update(store, linked.id, { product_id: null })
      assert.isNull(unlinked.product_id)
      assert.deepStrictEqual(slugs((yield* pages.list(store)).items), ["linked"])
    })
  )

  it.effect("refuses an invalid create with the spec's messages", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        ["title", "Body must be a JSON object"],
        [null, "Body must be a JSON object"],
        [{}, "title is required (1-255 chars)"],
        [{ title: "" }, "title is required (1-255 chars)"],
        [{ title: "t".repeat(256) }, "title is required (1-255 chars)"],
        [{ title: 5 }, "title is required (1-255 chars)"],
        [{ title: "A", slug: 5 }, "slug must be a string of at most 255 chars"],
        [{ title: "A", meta_title: "m".repeat(256) }, "meta_title must be a string of at most 255 chars or null"],
        [{ title: "A", meta_description: 1 }, "meta_description must be a string or null"],
        // Text PostgreSQL cannot keep as sent: a NUL character, a lone surrogate.
        [{ title: "Pro\u0000mo" }, "title is required (1-255 chars)"],
        [{ title: "A", slug: "promo\ud800" }, "slug must be a string of at most 255 chars"],
        [{ title: "A", meta_title: "\udc00" }, "meta_title must be a string of at most 255 chars or null"],
        [{ title: "A", meta_description: "\u0000" }, "meta_description must be a string or null"]
      ]
      for (const [body, message] of cases) {
        assert.strictEqual(yield* badRequest(pages.create(store, body)), message, JSON.stringify(body))
      }
      assert.deepStrictEqual((yield* pages.list(store)).items, [])
    })
  )

  it.effect("PATCH validates strictly and changes nothing when it refuses", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const page = yield* pages.create(store, { title: "Promo" })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[], "Body must be a JSON object"],
        [{ status: "published" }, "status must be active or draft"],
        [{ language: "de" }, "language must be ar, fr, or en"],
        [{ title: "" }, "title must be 1-255 chars"],
        [{ title: "t".repeat(256) }, "title must be 1-255 chars"],
        [{ slug: null }, "slug must be a string of at most 255 chars"],
        [{ title: "Promo\u0000" }, "title must be 1-255 chars"],
        [{ slug: "\ud83d" }, "slug must be a string of at most 255 chars"],
        [{ meta_description: "a\u0000b" }, "meta_description must be a string or null"]
      ]
      for (const [body, message] of cases) {
        assert.strictEqual(yield* badRequest(pages.update(store, page.id, body)), message, JSON.stringify(body))
      }
      assert.deepStrictEqual(yield* pages.get(store, page.id), page)
      assert.deepStrictEqual(yield* pages.update(store, page.id, { views: 100, is_purchased: true }), page)
    })
  )

  it.effect("PATCH changes the fields sent; a sent slug is normalised and made unique", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      yield* pages.create(store, { title: "Taken" })
      const page = yield* pages.create(store, { title: "Promo", meta_title: "Old" })
      const changed = yield* pages.update(store, page.id, {
        status: "active",
        language: "fr",
        meta_title: null,
        meta_description: "Nouveau"
      })
      assert.deepStrictEqual(
        [changed.status, changed.language, changed.meta_title, changed.meta_description, changed.slug, changed.title],
        ["active", "fr", null, "Nouveau", "promo", "Promo"]
      )
      assert.strictEqual((yield* pages.update(store, page.id, { slug: "  Été Spécial!! " })).slug, "ete-special")
      assert.strictEqual((yield* pages.update(store, page.id, { slug: "TAKEN" })).slug, "taken-2")
      // Its own slug is not taken for itself.
      assert.strictEqual((yield* pages.update(store, page.id, { slug: "taken-2" })).slug, "taken-2")
      const fallback = yield* pages.update(store, page.id, { slug: "عرض" })
      assert.match(fallback.slug, /^landing-[0-9a-f]{6}$/)
      assert.deepStrictEqual(yield* pages.get(store, page.id), fallback)
    })
  )

  it.effect("renaming regenerates the slug only when no slug is sent", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      yield* pages.create(store, { title: "Hiver" })
      const page = yield* pages.create(store, { title: "Promo", slug: "Custom_Slug" })
      // Same title: not a rename, the sent-as-is slug stays.
      assert.strictEqual((yield* pages.update(store, page.id, { title: "Promo" })).slug, "Custom_Slug")
      const renamed = yield* pages.update(store, page.id, { title: "Soldes Été" })
      assert.deepStrictEqual([renamed.title, renamed.slug], ["Soldes Été", "soldes-ete"])
      assert.strictEqual((yield* pages.update(store, page.id, { title: "Hiver" })).slug, "hiver-2")
      const both = yield* pages.update(store, page.id, { title: "Printemps", slug: "Mon Slug" })
      assert.deepStrictEqual([both.title, both.slug], ["Printemps", "mon-slug"])
      assert.deepStrictEqual(yield* pages.get(store, page.id), both)
    })
  )

  it.effect("publish makes a page active; publishing again keeps it active", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const page = yield* pages.create(store, { title: "Promo" })
      const published = yield* pages.publish(store, page.id)
      assert.strictEqual(published.status, "active")
      const again = yield* pages.publish(store, page.id)
      assert.strictEqual(again.status, "active")
      assert.deepStrictEqual(yield* pages.get(store, page.id), again)
      assert.strictEqual((yield* pages.update(store, page.id, { status: "draft" })).status, "draft")
    })
  )

  it.effect("delete removes the page: NotFound from then on, its slug free again", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      const page = yield* pages.create(store, { title: "Promo" })
      assert.deepStrictEqual(yield* pages.remove(store, page.id), { deleted: true, id: page.id })
      yield* notFound(pages.get(store, page.id))
      yield* notFound(pages.update(store, page.id, { title: "Back" }))
      yield* notFound(pages.publish(store, page.id))
      yield* notFound(pages.remove(store, page.id))
      assert.deepStrictEqual((yield* pages.list(store)).items, [])
      assert.strictEqual((yield* pages.create(store, { title: "Promo" })).slug, "promo")
    })
  )

  it.effect("keeps stores apart: another store's page is NotFound everywhere and in no list", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const fixtures = yield* Fixtures
      const mine = yield* fixtures.newStore
      const theirs = yield* fixtures.newStore
      const page = yield* pages.create(theirs, { title: "Theirs" })
      yield* notFound(pages.get(mine, page.id))
      yield* notFound(pages.update(mine, page.id, { title: "Stolen" }))
      yield* notFound(pages.update(mine, page.id, "not a body"))
      yield* notFound(pages.publish(mine, page.id))
      yield* notFound(pages.remove(mine, page.id))
      assert.deepStrictEqual((yield* pages.list(mine)).items, [])
      assert.deepStrictEqual(yield* pages.get(theirs, page.id), page)
      for (const id of [99_999_999_999, Ids.MAX_ID + 1, 0]) {
        const huge = id as Ids.LandingPageId
        yield* notFound(pages.get(mine, huge))
        yield* notFound(pages.publish(mine, huge))
        yield* notFound(pages.remove(mine, huge))
      }
    })
  )

  it.effect("lists newest first in cursor pages; status filters, an unknown status is ignored", () =>
    Effect.gen(function* () {
      const pages = yield* LandingPages
      const store = yield* (yield* Fixtures).newStore
      for (let n = 1; n <= 5; n++) {
        yield* pages.create(store, { title: `Page ${n}`, status: n <= 2 ? "active" : "draft" })
      }
      const first = yield* pages.list(store, { limit: 3 })
      assert.deepStrictEqual(slugs(first.items), ["page-5", "page-4", "page-3"])
      assert.isTrue(first.has_more)
      const second = yield* pages.list(store, { limit: 3, cursor: first.next_cursor! })
      assert.deepStrictEqual(slugs(second.items), ["page-2", "page-1"])
      assert.deepStrictEqual([second.has_more, second.next_cursor], [false, null])
      const restarted = yield* pages.list(store, { limit: "500", cursor: "bm90LWEtY3Vyc29y" })
      assert.strictEqual(restarted.items.length, 5)
      assert.deepStrictEqual(slugs((yield* pages.list(store, { status: "active" })).items), ["page-2", "page-1"])
      assert.strictEqual((yield* pages.list(store, { status: "ACTIVE" })).items.length, 5)
    })
  )
}
