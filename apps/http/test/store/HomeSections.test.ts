/**
 * The theme's standard home sections through the store API in memory (`src/store/home-sections`):
 * `GET /v1/store/home-sections` (`store:read`, cached 30 s) and `PATCH /v1/store/home-sections` (`store:write`,
 * recorded as `store.home_sections`), the refusals, the change and its undo, on `TestClock` time.
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

const faq = [
  { question: "Combien coûte la livraison ?", answer: "400 DA à domicile, 250 DA au bureau." },
  { question: "Le paiement ?", answer: "À la livraison, en espèces." }
]

describe("home sections (memory)", () => {
  test(
    "reads the six standard sections with their defaults; store:read needed; cached 30 s",
    Effect.gen(function* () {
      const store = yield* createStore()
      const read = yield* store.get("/v1/store/home-sections")
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body.data, {
        hero: { enabled: true, title: null, subtitle: null, image: null, button_text: null, button_link: null },
        categories: { enabled: true, title: null, limit: 8 },
        featured_products: { enabled: true, title: null, source: "newest", limit: 8 },
        testimonials: { enabled: false, title: null, items: [] },
        faq: { enabled: false, title: null, items: [] },
        trust_badges: { enabled: true, title: null, badges: ["cash_on_delivery", "delivery_58_wilayas"] }
      })
      assert.strictEqual(read.headers.get("x-cache"), "MISS")
      assert.strictEqual((yield* store.get("/v1/store/home-sections")).headers.get("x-cache"), "HIT")
      const narrow = yield* InMemory.keyWithScopes(store.id, ["products:read"])
      assert.deepStrictEqual(codeOf(yield* narrow.get("/v1/store/home-sections")), [403, "forbidden"])
    })
  )

  test(
    "PATCH changes the sections and keys sent, recorded as store.home_sections; undo and its undo",
    Effect.gen(function* () {
      const store = yield* createStore()
      const start = (yield* store.get("/v1/store/home-sections")).body.data
      const patched = yield* store.write("PATCH", "/v1/store/home-sections", {
        hero: { title: "Nouvelle collection", button_text: "Commander", button_link: "/categories/robes" },
        testimonials: {
          enabled: true,
          items: [{ name: "Amina", text: "Livrée en 2 jours à Sétif", rating: 5, wilaya_id: 19 }]
        },
        faq: { enabled: true, title: "Questions", items: faq },
        categories: { enabled: false }
      })
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepStrictEqual(patched.body.data.faq, { enabled: true, title: "Questions", items: faq })
      assert.deepStrictEqual(patched.body.data.testimonials.items, [
        { name: "Amina", text: "Livrée en 2 jours à Sétif", rating: 5, wilaya_id: 19 }
      ])
      assert.deepStrictEqual(patched.body.data.categories, { enabled: false, title: null, limit: 8 })
      assert.deepStrictEqual(patched.body.data.featured_products, start.featured_products)
      const [change] = (yield* store.get("/v1/changes?entity=store.home_sections")).body.data.items
      assert.deepInclude(change, {
        entity_id: "home_sections",
        summary: "Updated home sections (hero, categories, testimonials, faq)"
      })
      const detail = (yield* store.get(`/v1/changes/${change.id}`)).body.data
      // The sections it changed, each with the keys it changed.
      assert.deepStrictEqual(detail.before, {
        hero: { title: start.hero.title, button_text: start.hero.button_text, button_link: start.hero.button_link },
        categories: { enabled: true },
        testimonials: { enabled: start.testimonials.enabled, items: [] },
        faq: { enabled: start.faq.enabled, title: null, items: [] }
      })
      assert.deepStrictEqual(detail.after, {
        hero: { title: "Nouvelle collection", button_text: "Commander", button_link: "/categories/robes" },
        categories: { enabled: false },
        testimonials: { enabled: true, items: patched.body.data.testimonials.items },
        faq: { enabled: true, title: "Questions", items: faq }
      })
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${change.id}/undo`)).status, 200)
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store/home-sections")).body.data, start)
      const [undo] = (yield* store.get("/v1/changes?limit=1")).body.data.items
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${undo.id}/undo`)).status, 200)
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store/home-sections")).body.data, patched.body.data)
    })
  )

  test(
    "a section or key breaking its rule is 400 bad_request with its message; nothing written",
    Effect.gen(function* () {
      const store = yield* createStore()
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [null, "Body must be a JSON object of home sections"],
        [{ rich_text: {} }, "rich_text is not a standard home section"],
        [{ hero: "off" }, "hero must be an object"],
        [{ hero: { enabled: 0 } }, "hero.enabled must be true or false"],
        [{ hero: { image: "http://cdn/x.jpg" } }, "hero.image must be a path"],
        [{ hero: { subtitle: "x".repeat(201) } }, "hero.subtitle must be a string of at most 200 characters"],
        [{ faq: { items: [{ question: "Q\u0000", answer: "R" }] } }, "faq.items[0].question must be 1 to 200"],
        [{ faq: { items: Array.from({ length: 31 }, () => faq[0]) } }, "faq.items must be a list of at most 30"],
        [{ testimonials: { items: [{ name: "A", text: "B", rating: 1e308 }] } }, "testimonials.items[0].rating"],
        [
          { testimonials: { items: [{ name: "A", text: "B", rating: 5, wilaya_id: 59 }] } },
          "testimonials.items[0].wilaya_id"
        ],
        [{ featured_products: { limit: 49 } }, "featured_products.limit must be a whole number from 1 to 48"],
        [{ trust_badges: { badges: ["free_shipping"] } }, "trust_badges.badges must be a list of distinct badges"]
      ]
      for (const [body, message] of cases) {
        const refused = yield* store.write("PATCH", "/v1/store/home-sections", body)
        assert.deepStrictEqual(codeOf(refused), [400, "bad_request"], JSON.stringify(body))
        assert.isTrue(refused.body.error.message.startsWith(message), refused.body.error.message)
      }
      assert.strictEqual((yield* store.get("/v1/changes")).body.data.items.length, 0)
    })
  )
})
