/**
 * The undo rules as the spec writes them (store-api-config "Change record": `before` is the values replaced, `after`
 * the values written; "Undo rules" 3 and 8), for each of the twelve recorded entities, through HTTP on each database:
 *
 * - a change A, then a later change B of another field (for stock, an order taking some): undoing A restores A's
 *   fields and keeps B's, and undoing that undo applies A's `after` again — not what the undo replaced;
 * - a delete (and a courier rate sync) has no `after`: the undo of its undo is 422 `nothing_to_restore`;
 * - the home layout counts every later change, a re-application by the undo of an undo included: 409
 *   `layout_changed`.
 *
 * Reads under `/v1/store` are cached 30 s per key and URL: each read here has a query string of its own.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type Client, codeOf, dashboardStore } from "./ConfigHarness.ts"
import type { Answer } from "./StoreHarness.ts"
import { backends, storeServer } from "./StoreHarness.ts"

let reads = 0
/** A read of `path` with a query string of its own each time it runs: the read cache never answers it. */
const fresh = (c: Client, path: string) => Effect.suspend(() => c.get(`${path}?fresh=${++reads}`))

const data = (answer: Answer) => {
  assert.isBelow(answer.status, 300, answer.text)
  return answer.body.data
}

/** The newest change of the store. */
const newest = (c: Client) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => data(answer).items[0])

const undo = (c: Client, id: number) =>
  Effect.map(c.write("POST", `/v1/changes/${id}/undo`), (answer) => data(answer).undo_change_id as number)

/** One entity's case: what A and B write, and how A's fields and B's read. */
interface Case {
  readonly entity: string
  readonly setup: (c: Client) => Effect.Effect<{
    readonly a: Effect.Effect<Answer>
    readonly b: Effect.Effect<Answer>
    readonly readA: Effect.Effect<unknown>
    /** None for stock: its B (an order) takes from A's own quantity. */
    readonly readB?: Effect.Effect<unknown> | undefined
  }>
}

const customer = { name: "Amine Kaci", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" }

const page = (c: Client) =>
  Effect.gen(function* () {
    const landing = data(yield* c.write("POST", "/v1/landing-pages", { title: "Montre connectée" }))
    const path = `/v1/landing-pages/${landing.id}/sections`
    const section = data(yield* c.write("POST", path, { type: "faq", settings: { title: "Questions" } }))
    return { path, section }
  })

const cases: ReadonlyArray<Case> = [
  {
    entity: "store.settings",
    setup: (c) =>
      Effect.succeed({
        a: c.write("PATCH", "/v1/store", { name: "Maison A", contact: { phone: "0555 11 22 33" } }),
        b: c.write("PATCH", "/v1/store", { description: "Artisanat", contact: { email: "b@boutique.dz" } }),
        readA: Effect.map(fresh(c, "/v1/store"), (answer) => [data(answer).name, data(answer).contact.phone]),
        readB: Effect.map(fresh(c, "/v1/store"), (answer) => [data(answer).description, data(answer).contact.email])
      })
  },
  {
    entity: "store.design",
    setup: (c) =>
      Effect.succeed({
        a: c.write("PATCH", "/v1/store/design", { border_radius: 12, colors: { text_color: "#111111" } }),
        b: c.write("PATCH", "/v1/store/design", { font_family: "Tajawal", colors: { button_color: "#f97316" } }),
        readA: Effect.map(fresh(c, "/v1/store/design"), (answer) => [
          data(answer).border_radius,
          data(answer).colors.text_color
        ]),
        readB: Effect.map(fresh(c, "/v1/store/design"), (answer) => [
          data(answer).font_family,
          data(answer).colors.button_color
        ])
      })
  },
  {
    entity: "store.theme",
    setup: (c) =>
      Effect.succeed({
        a: c.write("POST", "/v1/store/theme", { theme: "souk" }),
        b: c.write("POST", "/v1/store/variant-style", { style: "minimal" }),
        readA: Effect.map(c.get("/v1/themes"), (answer) => data(answer).current),
        readB: Effect.map(fresh(c, "/v1/store/design"), (answer) => data(answer).variant_card_style)
      })
  },
  {
    entity: "store.home_sections",
    setup: (c) =>
      Effect.succeed({
        a: c.write("PATCH", "/v1/store/home-sections", { hero: { title: "Soldes" } }),
        b: c.write("PATCH", "/v1/store/home-sections", { hero: { subtitle: "Hiver" }, faq: { enabled: true } }),
        readA: Effect.map(fresh(c, "/v1/store/home-sections"), (answer) => data(answer).hero.title),
        readB: Effect.map(fresh(c, "/v1/store/home-sections"), (answer) => [
          data(answer).hero.subtitle,
          data(answer).faq.enabled
        ])
      })
  },
  {
    // The layout counts every later change of itself (below); B is the home page's other part, its standard sections.
    entity: "store.home_layout",
    setup: (c) =>
      Effect.succeed({
        a: c.write("POST", "/v1/store/home-layout/sections", { type: "categories" }),
        b: c.write("PATCH", "/v1/store/home-sections", { categories: { limit: 12 } }),
        readA: Effect.map(fresh(c, "/v1/store/home-layout"), (answer) =>
          data(answer).sections.map((section: { type: string }) => section.type)
        ),
        readB: Effect.map(fresh(c, "/v1/store/home-sections"), (answer) => data(answer).categories.limit)
      })
  },
  {
    entity: "category",
    setup: (c) =>
      Effect.gen(function* () {
        const category = data(yield* c.write("POST", "/v1/categories", { name: "Robes" }))
        const path = `/v1/categories/${category.id}`
        const read = Effect.map(c.get(path), data)
        return {
          a: c.write("PATCH", path, { name: "Caftans" }),
          b: c.write("PATCH", path, { description: "Soie" }),
          readA: Effect.map(read, (found) => [found.name, found.slug]),
          readB: Effect.map(read, (found) => found.description)
        }
      })
  },
  {
    // B is an order taking 2 of the quantity A set: the undo of A's undo sets A's number again, not the order's.
    entity: "stock",
    setup: (c) =>
      Effect.gen(function* () {
        const product = data(yield* c.write("POST", "/v1/products", { name: "Chéchia", price: 1500, stock: 10 }))
        return {
          a: c.write("POST", `/v1/products/${product.id}/stock`, { stock: 40 }),
          b: Effect.gen(function* () {
            const order = data(
              yield* c.write("POST", "/v1/orders", { customer, items: [{ product_id: product.id, quantity: 2 }] })
            )
            return yield* c.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
          }),
          readA: Effect.map(c.get(`/v1/products/${product.id}/stock`), (answer) => data(answer).stock)
        }
      })
  },
  {
    entity: "promo_code",
    setup: (c) =>
      Effect.gen(function* () {
        const code = data(
          yield* c.write("POST", "/v1/promo-codes", { code: "ETE", discount_type: "fixed", discount_value: 300 })
        )
        const read = Effect.map(c.get("/v1/promo-codes"), (answer) =>
          data(answer).items.find((item: { id: number }) => item.id === code.id)
        )
        return {
          a: c.write("PATCH", `/v1/promo-codes/${code.id}`, { discount_value: 450, is_active: false }),
          b: c.write("PATCH", `/v1/promo-codes/${code.id}`, { max_uses: 20 }),
          readA: Effect.map(read, (found) => [found.discount_value, found.is_active]),
          readB: Effect.map(read, (found) => found.max_uses)
        }
      })
  },
  {
    entity: "pixels",
    setup: (c) =>
      Effect.gen(function* () {
        const pixel = data(yield* c.write("POST", "/v1/pixels", { pixel_type: "tiktok", pixel_id: "CABCDE12345" }))
        const read = Effect.map(c.get("/v1/pixels"), (answer) =>
          data(answer).items.find((item: { id: number }) => item.id === pixel.id)
        )
        return {
          a: c.write("PATCH", `/v1/pixels/${pixel.id}`, { pixel_name: "Principal", is_active: false }),
          b: c.write("PATCH", `/v1/pixels/${pixel.id}`, { ad_account_id: "549755885175" }),
          readA: Effect.map(read, (found) => [found.pixel_name, found.is_active]),
          readB: Effect.map(read, (found) => found.ad_account_id)
        }
      })
  },
  {
    entity: "shipping.rates",
    setup: (c) =>
      Effect.gen(function* () {
        yield* c.write("POST", "/v1/shipping/rates", {
          rates: [
            { wilaya_id: 16, home_price: 400, desk_price: 250 },
            { wilaya_id: 31, home_price: 600 }
          ]
        })
        const price = (wilaya: number) =>
          Effect.map(c.get("/v1/shipping/rates"), (answer) => {
            const rate = data(answer).items.find((item: { wilaya_id: number }) => item.wilaya_id === wilaya)
            return rate === undefined ? null : [rate.home_price, rate.desk_price]
          })
        return {
          a: c.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 450 }] }),
          b: c.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 31, desk_price: 350 }] }),
          readA: price(16),
          readB: price(31)
        }
      })
  },
  {
    entity: "shipping.settings",
    setup: (c) =>
      Effect.succeed({
        a: c.write("PATCH", "/v1/shipping/settings", { cod_fee_payer: "customer", cod_fee_percent: 1.5 }),
        b: c.write("PATCH", "/v1/shipping/settings", { default_delivery_type: "desk" }),
        readA: Effect.map(c.get("/v1/shipping/settings"), (answer) => [
          data(answer).cod_fee_payer,
          data(answer).cod_fee_percent
        ]),
        readB: Effect.map(c.get("/v1/shipping/settings"), (answer) => data(answer).default_delivery_type)
      })
  },
  {
    entity: "lp.section",
    setup: (c) =>
      Effect.gen(function* () {
        const { path, section } = yield* page(c)
        const read = Effect.map(c.get(`${path}/${section.id}`), data)
        return {
          a: c.write("PATCH", `${path}/${section.id}`, { settings: { title: "FAQ" } }),
          b: c.write("PATCH", `${path}/${section.id}`, { is_visible: false }),
          readA: Effect.map(read, (found) => found.settings),
          readB: Effect.map(read, (found) => found.is_visible)
        }
      })
  }
]

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `undo rules (${backend.name})`,
    (it) => {
      it.effect("each entity: undo A restores A's fields and keeps B's; the undo of that undo applies A again", () =>
        Effect.gen(function* () {
          assert.strictEqual(cases.length, 12, "the spec's twelve recorded entities")
          for (const { entity, setup } of cases) {
            const { dashboard } = yield* dashboardStore()
            const { a, b, readA, readB } = yield* setup(dashboard)
            const a0 = yield* readA
            const b0 = readB === undefined ? undefined : yield* readB
            data(yield* a)
            const changeA = yield* newest(dashboard)
            assert.strictEqual(changeA.entity, entity)
            const a1 = yield* readA
            assert.notDeepEqual(a1, a0, `${entity}: A changed its fields`)
            data(yield* b)
            const b1 = readB === undefined ? undefined : yield* readB
            if (readB !== undefined) assert.notDeepEqual(b1, b0, `${entity}: B changed its own`)
            const undoneA = yield* undo(dashboard, changeA.id)
            assert.deepStrictEqual(yield* readA, a0, `${entity}: A's fields restored`)
            if (readB !== undefined) assert.deepStrictEqual(yield* readB, b1, `${entity}: B's kept`)
            yield* undo(dashboard, undoneA)
            assert.deepStrictEqual(yield* readA, a1, `${entity}: the undo of the undo applies A's after`)
            if (readB !== undefined) assert.deepStrictEqual(yield* readB, b1, `${entity}: B's kept again`)
          }
        })
      )

      it.effect("the issue's two: a design radius and a stock count, with a later write of the same between", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const radius = Effect.map(fresh(dashboard, "/v1/store/design"), (answer) => data(answer).border_radius)
          yield* dashboard.write("PATCH", "/v1/store/design", { border_radius: 8 })
          data(yield* dashboard.write("PATCH", "/v1/store/design", { border_radius: 12 }))
          const a = yield* newest(dashboard)
          data(yield* dashboard.write("PATCH", "/v1/store/design", { border_radius: 16 }))
          const undone = yield* undo(dashboard, a.id)
          assert.strictEqual(yield* radius, 8)
          yield* undo(dashboard, undone)
          assert.strictEqual(yield* radius, 12, "the original change's after, not the 16 the undo replaced")

          const product = data(yield* dashboard.write("POST", "/v1/products", { name: "Savon", price: 300, stock: 10 }))
          const stock = Effect.map(dashboard.get(`/v1/products/${product.id}/stock`), (answer) => data(answer).stock)
          data(yield* dashboard.write("POST", `/v1/products/${product.id}/stock`, { stock: 40 }))
          const write = yield* newest(dashboard)
          const order = data(
            yield* dashboard.write("POST", "/v1/orders", { customer, items: [{ product_id: product.id, quantity: 2 }] })
          )
          data(yield* dashboard.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" }))
          assert.strictEqual(yield* stock, 38)
          const stockUndone = yield* undo(dashboard, write.id)
          assert.strictEqual(yield* stock, 10)
          yield* undo(dashboard, stockUndone)
          assert.strictEqual(yield* stock, 40, "the write's 40, not the 38 the undo replaced")
        })
      )

      it.effect(
        "a delete and a courier rate sync have no after: the undo of their undo is 422 nothing_to_restore",
        () =>
          Effect.gen(function* () {
            const { dashboard } = yield* dashboardStore()
            const deleted = (path: string) =>
              Effect.gen(function* () {
                data(yield* dashboard.write("DELETE", path))
                const deletion = yield* newest(dashboard)
                assert.strictEqual(deletion.action, "delete", path)
                const undone = yield* undo(dashboard, deletion.id)
                assert.deepStrictEqual(
                  codeOf(yield* dashboard.write("POST", `/v1/changes/${undone}/undo`)),
                  [422, "nothing_to_restore"],
                  path
                )
              })
            const category = data(yield* dashboard.write("POST", "/v1/categories", { name: "Bijoux" }))
            yield* deleted(`/v1/categories/${category.id}`)
            const code = data(
              yield* dashboard.write("POST", "/v1/promo-codes", {
                code: "HIVER",
                discount_type: "fixed",
                discount_value: 1
              })
            )
            yield* deleted(`/v1/promo-codes/${code.id}`)
            const pixel = data(
              yield* dashboard.write("POST", "/v1/pixels", { pixel_type: "tiktok", pixel_id: "CABCDE99999" })
            )
            yield* deleted(`/v1/pixels/${pixel.id}`)
            const { path, section } = yield* page(dashboard)
            yield* deleted(`${path}/${section.id}`)

            data(yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 }))
            data(yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 9, home_price: 1 }] }))
            const synced = data(
              yield* dashboard.write("POST", "/v1/shipping/rates/sync", { courier: "sandbox", wilaya_ids: [9, 31] })
            )
            const undone = yield* undo(dashboard, synced.change_id)
            for (let attempt = 0; attempt < 2; attempt++) {
              assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${undone}/undo`)), [
                422,
                "nothing_to_restore"
              ])
            }
          })
      )

      it.effect("a layout change re-applied by the undo of its undo blocks an older undo: 409 layout_changed", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const layout = Effect.map(fresh(dashboard, "/v1/store/home-layout"), (answer) => data(answer).sections)
          const added = data(yield* dashboard.write("POST", "/v1/store/home-layout/sections", { type: "faq" }))
          const c1 = added.change_id as number
          const edited = data(
            yield* dashboard.write("PATCH", `/v1/store/home-layout/sections/${added.section.id}`, {
              settings: { title: "Vos questions" }
            })
          )
          const u1 = yield* undo(dashboard, edited.change_id)
          yield* undo(dashboard, u1)
          assert.strictEqual((yield* layout)[0].settings.title, "Vos questions", "c2's edit is back")
          assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${c1}/undo`)), [
            409,
            "layout_changed"
          ])
          assert.strictEqual((yield* layout)[0].settings.title, "Vos questions", "and stays")
          // Walking back newest first still works: the re-application, then the add.
          const [reapplied] = data(yield* dashboard.get("/v1/changes?entity=store.home_layout&limit=1")).items
          yield* undo(dashboard, reapplied.id)
          yield* undo(dashboard, c1)
          assert.deepStrictEqual(yield* layout, [])
        })
      )
    }
  )
}
