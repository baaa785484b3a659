/**
 * The change history and undo over a socket, on each database (spec store-api-config "Change history", "Undo
 * rules"): an undo that touches the database's own rows (a deleted pixel's assignments), 50 simultaneous undos of one
 * change, and a property: any sequence of writes of every recorded entity (promo codes, pixels, the store's settings,
 * design, home sections and layout, categories, stock, landing page sections, shipping rates and settings, a courier
 * rate sync), undone newest first, restores the exact starting state as the database keeps it. Every other rule and code of the change endpoints is tested in memory
 * (`store/Changes.test.ts`).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { type Client, codeOf, dashboardStore } from "./ConfigHarness.ts"
import * as CatalogueWrites from "./catalogue/CatalogueWrites.ts"
import * as SectionWrites from "./landing-page-sections/SectionWrites.ts"
import { backends, sql, storeServer } from "./StoreHarness.ts"
import * as ConfigWrites from "./store-config/ConfigWrites.ts"
import * as ShippingWrites from "./store-shipping/Writes.ts"

/** Runs a statement on the server's database (the dashboard's writes, a fixture). */
const exec = <A>(statement: (client: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(sql, (client) => Effect.orDie(statement(client)))

/** The newest change of the store. */
const newest = (c: Client) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

const promo = { code: "SPRING", discount_type: "fixed", discount_value: 400 }

/** What the API shows of a store's promo codes and pixels, without the times every write moves. */
const stateOf = (c: Client) =>
  Effect.gen(function* () {
    const strip = ({ updated_at: _, ...item }: Record<string, unknown>) => item
    const promos = (yield* c.get("/v1/promo-codes?limit=200")).body.data.items.map(strip)
    const pixels = (yield* c.get("/v1/pixels?limit=200")).body.data.items.map(strip)
    return { promos, pixels }
  })

// --- the property's writes ----------------------------------------------------------------------------------

type Write =
  | { readonly kind: "promo"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "promoDelete"; readonly index: number }
  | { readonly kind: "pixel"; readonly index: number; readonly body: Record<string, unknown> }
  | { readonly kind: "pixelDelete"; readonly index: number }
  | { readonly kind: "config"; readonly write: ConfigWrites.ConfigWrite }
  | { readonly kind: "catalogue"; readonly write: CatalogueWrites.CatalogueWrite }
  | { readonly kind: "section"; readonly write: SectionWrites.SectionWrite }
  | { readonly kind: "shipping"; readonly write: ShippingWrites.ShippingWrite }

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

const promoBody = fc
  .record(
    {
      code: fc.constantFrom("ALPHA", "BETA", "GAMMA", "DELTA"),
      discount: fc.oneof(
        fc.record({ discount_type: fc.constant("percentage"), discount_value: fc.integer({ min: 1, max: 99 }) }),
        fc.record({ discount_type: fc.constant("fixed"), discount_value: fc.integer({ min: 1, max: 5000 }) }),
        fc.constant({ discount_type: "percentage", discount_value: 100, confirm_full_discount: true })
      ),
      min_order_amount: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 10_000 })),
      max_uses: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 100 })),
      is_active: fc.boolean(),
      starts_at: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 30 }).map(inDays)),
      expires_at: fc.oneof(fc.constant(null), fc.integer({ min: 31, max: 365 }).map(inDays))
    },
    { requiredKeys: [] }
  )
  .filter((body) => Object.keys(body).length > 0)
  .map(({ discount, ...rest }) => ({ ...rest, ...(discount ?? {}) }))

const pixelBody = fc
  .record(
    {
      pixel_name: fc.oneof(fc.constant(null), fc.constantFrom("Main", "Retargeting", "")),
      ad_account_id: fc.oneof(fc.constant(null), fc.constantFrom("549755885175", "549755885176")),
      conversion_label: fc.oneof(fc.constant(null), fc.constantFrom("AbC-123", "purchase")),
      is_active: fc.boolean(),
      is_default: fc.boolean()
    },
    { requiredKeys: [] }
  )
  .filter((body) => Object.keys(body).length > 0)

const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("promo" as const), index: fc.nat(2), body: promoBody }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("promoDelete" as const), index: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("pixel" as const), index: fc.nat(2), body: pixelBody }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("pixelDelete" as const), index: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("config" as const), write: ConfigWrites.configWrite }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("catalogue" as const), write: CatalogueWrites.catalogueWrite })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("section" as const), write: SectionWrites.sectionWrite }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("shipping" as const), write: ShippingWrites.arbitrary }) }
)

/** A store with three promo codes and three pixels (two of one type, one the default). */
const seeded = Effect.gen(function* () {
  const { dashboard } = yield* dashboardStore()
  const promos: Array<number> = []
  for (const body of [
    { code: "ALPHA", discount_type: "percentage", discount_value: 10 },
    { code: "BETA", discount_type: "fixed", discount_value: 250, max_uses: 20, min_order_amount: 1000 },
    { code: "GAMMA", discount_type: "percentage", discount_value: 5, is_active: false, expires_at: inDays(200) }
  ]) {
    promos.push((yield* dashboard.write("POST", "/v1/promo-codes", body)).body.data.id)
  }
  const pixels: Array<number> = []
  for (const body of [
    { pixel_type: "google_ads", pixel_id: "AW-111111111", is_default: true, conversion_label: "lead" },
    { pixel_type: "google_ads", pixel_id: "AW-222222222", pixel_name: "Second" },
    { pixel_type: "pinterest", pixel_id: "2612345678901", is_default: true, ad_account_id: "549755885170" }
  ]) {
    pixels.push((yield* dashboard.write("POST", "/v1/pixels", body)).body.data.id)
  }
  const request = CatalogueWrites.requestOf(dashboard)
  const catalogue = yield* CatalogueWrites.seed(request)
  const sections = yield* SectionWrites.seed(SectionWrites.requestOf(dashboard))
  yield* ShippingWrites.seed(dashboard)
  return { dashboard, promos, pixels, catalogue, sections }
})

/** Everything the property compares: each entity as the API shows it (reads that skip the read cache). */
const everything = (seed: Effect.Success<typeof seeded>) =>
  Effect.gen(function* () {
    const { dashboard } = seed
    return {
      configuration: yield* stateOf(dashboard),
      store: yield* ConfigWrites.stateOf(ConfigWrites.requestOf(dashboard)),
      catalogue: yield* CatalogueWrites.stateOf(CatalogueWrites.requestOf(dashboard), seed.catalogue),
      sections: yield* SectionWrites.stateOf(SectionWrites.requestOf(dashboard), seed.sections),
      shipping: yield* ShippingWrites.stateOf(dashboard)
    }
  })

/** How many changes the property's runs undid: it must not hold only because every write was refused. */
let undoneInAllRuns = 0
/** The entities those changes were of: the property must reach every recorded entity. */
const undoneEntities = new Set<string>()

const run = (writes: ReadonlyArray<Write>) =>
  Effect.gen(function* () {
    const seed = yield* seeded
    const { dashboard, promos, pixels } = seed
    const before = yield* everything(seed)
    const since = (yield* newest(dashboard)).id as number
    for (const step of writes) {
      if (step.kind === "promo") yield* dashboard.write("PATCH", `/v1/promo-codes/${promos[step.index]}`, step.body)
      if (step.kind === "promoDelete") yield* dashboard.write("DELETE", `/v1/promo-codes/${promos[step.index]}`)
      if (step.kind === "pixel") yield* dashboard.write("PATCH", `/v1/pixels/${pixels[step.index]}`, step.body)
      if (step.kind === "pixelDelete") yield* dashboard.write("DELETE", `/v1/pixels/${pixels[step.index]}`)
      if (step.kind === "config") yield* ConfigWrites.applyWrite(ConfigWrites.requestOf(dashboard), step.write)
      if (step.kind === "catalogue") {
        yield* CatalogueWrites.applyWrite(CatalogueWrites.requestOf(dashboard), seed.catalogue, step.write)
      }
      if (step.kind === "section") {
        yield* SectionWrites.applyWrite(SectionWrites.requestOf(dashboard), seed.sections, step.write)
      }
      if (step.kind === "shipping") yield* ShippingWrites.write(dashboard, step.write)
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    undoneInAllRuns += recorded.length
    for (const change of recorded) undoneEntities.add(change.entity)
    for (const change of recorded) {
      const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      if (undone.status !== 200) return `undo of #${change.id} (${change.summary}) answered ${undone.text}`
    }
    const after = yield* everything(seed)
    assert.deepStrictEqual(after, before)
    return true
  })

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `change history (${backend.name})`,
    (it) => {
      it.effect(
        "pixels: an update's undo keeps the token and gives the default back; a delete's returns without token",
        () =>
          Effect.gen(function* () {
            const { dashboard } = yield* dashboardStore()
            const add = (body: object) => Effect.map(dashboard.write("POST", "/v1/pixels", body), (a) => a.body.data)
            const a = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHI", is_default: true })
            const b = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHJ", access_token: "tt_1" })
            yield* exec(
              (client) =>
                client`INSERT INTO pixel_assignments (pixel_id, target_type, target_id) VALUES (${b.id}, 'product', 7)`
            )
            yield* dashboard.write("PATCH", `/v1/pixels/${b.id}`, {
              is_default: true,
              pixel_name: "B",
              access_token: "tt_2"
            })
            const update = yield* newest(dashboard)
            assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${update.id}/undo`)).status, 200)
            const items = (yield* dashboard.get("/v1/pixels")).body.data.items
            assert.deepStrictEqual(
              items.map((item: Record<string, unknown>) => [item.id, item.is_default, item.pixel_name, item.has_token]),
              [
                [b.id, false, null, true],
                [a.id, true, null, false]
              ]
            )
            yield* dashboard.write("DELETE", `/v1/pixels/${b.id}`)
            const deletion = yield* newest(dashboard)
            // The same pixel added again since: the undo is refused as that create would be.
            const again = yield* add({ pixel_type: "tiktok", pixel_id: "CABCDE1234567890FGHJ" })
            assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${deletion.id}/undo`)), [
              409,
              "pixel_exists"
            ])
            yield* dashboard.write("DELETE", `/v1/pixels/${again.id}`)
            assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${deletion.id}/undo`)).status, 200)
            const restored = (yield* dashboard.get("/v1/pixels")).body.data.items.find(
              (item: { id: number }) => item.id === b.id
            )
            assert.deepInclude(restored, { id: b.id, has_token: false, created_at: b.created_at })
            const [assignments] = yield* exec(
              (client) =>
                client<{
                  readonly count: number
                }>`SELECT count(*)::int AS count FROM pixel_assignments WHERE pixel_id = ${b.id}`
            )
            assert.strictEqual(assignments!.count, 0)
            // An update of a pixel deleted since cannot be restored.
            yield* dashboard.write("PATCH", `/v1/pixels/${a.id}`, { pixel_name: "A" })
            const late = yield* newest(dashboard)
            yield* dashboard.write("DELETE", `/v1/pixels/${a.id}`)
            assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${late.id}/undo`)), [
              422,
              "restore_target_missing"
            ])
          })
      )

      it.effect("of 50 simultaneous undos of one change exactly one runs; the others are 409 already_undone", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { discount_value: 999 })
          const change = yield* newest(dashboard)
          const answers = yield* Effect.all(
            Array.from({ length: 50 }, () => dashboard.write("POST", `/v1/changes/${change.id}/undo`)),
            { concurrency: "unbounded" }
          )
          const statuses = answers.map(codeOf)
          assert.strictEqual(statuses.filter(([status]) => status === 200).length, 1, JSON.stringify(statuses))
          assert.deepStrictEqual(
            statuses.filter(([status]) => status !== 200),
            Array.from({ length: 49 }, () => [409, "already_undone"] as const)
          )
          assert.strictEqual((yield* dashboard.get("/v1/promo-codes")).body.data.items[0].discount_value, 400)
          const undos = (yield* dashboard.get("/v1/changes")).body.data.items.filter(
            (item: { summary: string }) => item.summary === `Undo of change #${change.id}`
          )
          assert.strictEqual(undos.length, 1, "one undo recorded")
        })
      )

      it.effect("property: any sequence of recorded writes, undone newest first, restores the exact start", () =>
        Effect.gen(function* () {
          undoneInAllRuns = 0
          undoneEntities.clear()
          const context = yield* Effect.context<Effect.Services<ReturnType<typeof run>>>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 8 }), (writes) =>
                Effect.runPromiseWith(context)(run(writes)).then(
                  (outcome) => outcome === true || Promise.reject(new Error(outcome))
                )
              ),
              { numRuns: 15, seed: 4_212_026 }
            )
          )
          assert.isAbove(undoneInAllRuns, 30, "the runs' writes were mostly accepted, and recorded")
          // Every recorded entity but the theme switches' (`store.theme`, whose undo has its own tests in memory).
          assert.deepStrictEqual(
            [...undoneEntities].sort(),
            [
              "category",
              "lp.section",
              "pixels",
              "promo_code",
              "shipping.rates",
              "shipping.settings",
              "stock",
              "store.design",
              "store.home_layout",
              "store.home_sections",
              "store.settings"
            ],
            "the runs reached every entity"
          )
        })
      )
    }
  )
}
