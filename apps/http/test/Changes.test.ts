/**
 * The change history and undo through HTTP on each database (spec store-api-config "Change history", "Undo
 * rules"): list and detail with their scopes, installed-app tokens refused, every undo rule and code, 50
 * simultaneous undos of one change, and a property: any sequence of promo and pixel writes, undone newest first,
 * restores the exact starting state.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import * as fc from "fast-check"
import { apiKey, appToken, type Client, client, codeOf, dashboardStore, key } from "./ConfigHarness.ts"
import { backends, baseUrl, call, sql, storeServer } from "./StoreHarness.ts"

/** Runs a statement on the server's database (the dashboard's writes, a fixture). */
const exec = <A>(statement: (client: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(sql, (client) => Effect.orDie(statement(client)))

/** The newest change of the store. */
const newest = (c: Client) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/** A key of the store with exactly these scopes (made, then narrowed before its first use). */
const keyWithScopes = (storeId: number, scopes: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const created = yield* (yield* Admin.Admin).createKey(storeId, "platform", "narrow").pipe(Effect.orDie)
    yield* exec((client) => client`UPDATE api_keys SET scopes = ${scopes}::text[] WHERE key_id = ${created.key_id}`)
    return yield* client(Redacted.value(created.bearer_token!))
  })

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
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("pixelDelete" as const), index: fc.nat(2) }) }
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
  return { dashboard, promos, pixels }
})

/** How many changes the property's runs undid: it must not hold only because every write was refused. */
let undoneInAllRuns = 0

const run = (writes: ReadonlyArray<Write>) =>
  Effect.gen(function* () {
    const { dashboard, promos, pixels } = yield* seeded
    const before = yield* stateOf(dashboard)
    const since = (yield* newest(dashboard)).id as number
    for (const step of writes) {
      if (step.kind === "promo") yield* dashboard.write("PATCH", `/v1/promo-codes/${promos[step.index]}`, step.body)
      if (step.kind === "promoDelete") yield* dashboard.write("DELETE", `/v1/promo-codes/${promos[step.index]}`)
      if (step.kind === "pixel") yield* dashboard.write("PATCH", `/v1/pixels/${pixels[step.index]}`, step.body)
      if (step.kind === "pixelDelete") yield* dashboard.write("DELETE", `/v1/pixels/${pixels[step.index]}`)
    }
    const recorded = (yield* dashboard.get("/v1/changes?limit=100")).body.data.items.filter(
      (change: { id: number }) => change.id > since
    )
    undoneInAllRuns += recorded.length
    for (const change of recorded) {
      const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      if (undone.status !== 200) return `undo of #${change.id} (${change.summary}) answered ${undone.text}`
    }
    const after = yield* stateOf(dashboard)
    assert.deepStrictEqual(after, before)
    return true
  })

for (const backend of backends) {
  layer(storeServer(backend), { timeout: "240 seconds", excludeTestServices: true })(
    `change history (${backend.name})`,
    (it) => {
      it.effect("lists changes newest first with their filters; detail needs the entity's read scope", () =>
        Effect.gen(function* () {
          const { id, dashboard } = yield* dashboardStore()
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { discount_value: 450 })
          yield* dashboard.write("POST", "/v1/pixels", {
            pixel_type: "facebook",
            pixel_id: "1234567890123456",
            access_token: "EAAG".padEnd(48, "q")
          })
          yield* dashboard.write("POST", "/v1/store/theme", { theme: "souk" })
          const list = yield* dashboard.get("/v1/changes")
          assert.strictEqual(list.status, 200)
          assert.deepStrictEqual(
            list.body.data.items.map((item: Record<string, unknown>) => [item.entity, item.action, item.summary]),
            [
              ["store.theme", "update", "Switched storefront theme to souk"],
              ["pixels", "create", "Added facebook pixel 1234567890123456"],
              ["promo_code", "update", "Updated promo code SPRING (discount_value)"],
              ["promo_code", "create", "Created promo code SPRING"]
            ]
          )
          const first = list.body.data.items[0]
          assert.deepStrictEqual(Object.keys(first).sort(), [
            "action",
            "created_at",
            "entity",
            "entity_id",
            "id",
            "summary",
            "undone",
            "undone_at"
          ])
          const entity = (name: string) =>
            Effect.map(dashboard.get(`/v1/changes?entity=${name}`), (answer) => answer.body.data.items.length)
          assert.deepStrictEqual(
            [yield* entity("promo_code"), yield* entity("pixels"), yield* entity("lp.page"), yield* entity("bogus")],
            [2, 1, 0, 4]
          )
          const page = yield* dashboard.get("/v1/changes?limit=3")
          assert.deepStrictEqual([page.body.data.items.length, page.body.data.has_more], [3, true])
          const rest = yield* dashboard.get(`/v1/changes?limit=3&cursor=${page.body.data.next_cursor}`)
          assert.deepStrictEqual(
            rest.body.data.items.map((item: { summary: string }) => item.summary),
            ["Created promo code SPRING"]
          )
          assert.strictEqual((yield* dashboard.get("/v1/changes?limit=0")).body.data.items.length, 1)
          assert.strictEqual((yield* dashboard.get("/v1/changes?limit=x")).body.data.items.length, 4)
          // The detail: the key, before and after; a pixel's token as the mask, never itself.
          const pixelChange = (yield* dashboard.get(`/v1/changes/${list.body.data.items[1].id}`)).body.data
          const keyId = dashboard.token.split(".")[0]
          assert.deepInclude(pixelChange, { key_id: keyId, undone_by_id: null, before: null })
          assert.strictEqual(pixelChange.after.access_token, "••••••••")
          assert.notInclude(JSON.stringify(pixelChange), "EAAG")
          const update = (yield* dashboard.get(`/v1/changes/${list.body.data.items[2].id}`)).body.data
          assert.deepStrictEqual([update.before.discount_value, update.after.discount_value], [400, 450])
          // A key with store:read but not the entity's read scope sees the list, not the detail.
          const minted = yield* apiKey(dashboard)
          assert.strictEqual((yield* minted.get("/v1/changes")).status, 200)
          const hidden = yield* minted.get(`/v1/changes/${update.id}`)
          assert.deepStrictEqual(
            [...codeOf(hidden), hidden.body.error.message],
            [403, "forbidden", "Missing scope: promos:read"]
          )
          assert.strictEqual((yield* minted.get(`/v1/changes/${first.id}`)).status, 200, "store.theme needs store:read")
          const noRead = yield* keyWithScopes(id, ["promos:read"])
          assert.strictEqual((yield* noRead.get("/v1/changes")).body.error.message, "Missing scope: store:read")
          assert.deepStrictEqual(codeOf(yield* dashboard.get("/v1/changes/99999999")), [404, "not_found"])
          assert.deepStrictEqual(codeOf(yield* dashboard.get("/v1/changes/abc")), [400, "bad_request"])
          const other = yield* dashboardStore()
          assert.deepStrictEqual(codeOf(yield* other.dashboard.get(`/v1/changes/${update.id}`)), [404, "not_found"])
          assert.strictEqual((yield* other.dashboard.get("/v1/changes")).body.data.items.length, 0)
        })
      )

      it.effect("installed-app tokens get 403 on the change endpoints; their writes are recorded", () =>
        Effect.gen(function* () {
          const { id, dashboard } = yield* dashboardStore()
          const app = yield* appToken(id, ["store:read", "store:write", "promos:read", "promos:write"])
          const created = yield* app.write("POST", "/v1/promo-codes", promo)
          assert.strictEqual(created.status, 201)
          const change = yield* newest(dashboard)
          const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
          assert.match(detail.key_id, /^app_[0-9a-f]{16}$/)
          for (const answer of [
            yield* app.get("/v1/changes"),
            yield* app.get(`/v1/changes/${change.id}`),
            yield* app.write("POST", `/v1/changes/${change.id}/undo`)
          ]) {
            assert.deepStrictEqual(
              [...codeOf(answer), answer.body.error.message],
              [403, "forbidden", "Apps cannot use this endpoint"]
            )
          }
          // Refused before its Idempotency-Key is even looked at (403, not 400).
          const noKey = yield* call(yield* baseUrl, "POST", `/v1/changes/${change.id}/undo`, { token: app.token })
          assert.deepStrictEqual(codeOf(noKey), [403, "forbidden"])
        })
      )

      it.effect("undoes an update: earlier values back, recorded as an update, once only", () =>
        Effect.gen(function* () {
          const { dashboard } = yield* dashboardStore()
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { code: "SUMMER", max_uses: 10 })
          const change = yield* newest(dashboard)
          const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
          assert.strictEqual(undone.status, 200, undone.text)
          const undo = yield* newest(dashboard)
          assert.deepStrictEqual(undone.body.data, {
            undone: true,
            change_id: change.id,
            entity: "promo_code",
            undo_change_id: undo.id
          })
          assert.deepInclude(undo, {
            action: "update",
            summary: `Undo of change #${change.id}`,
            entity_id: String(created.id)
          })
          const codes = (yield* dashboard.get("/v1/promo-codes")).body.data.items
          assert.deepInclude(codes[0], { code: "SPRING", max_uses: null })
          const original = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
          assert.deepInclude(original, { undone: true, undone_by_id: undo.id })
          assert.match(original.undone_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
          const again = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
          assert.deepStrictEqual(codeOf(again), [409, "already_undone"])
          // An undo of the undo applies the change again.
          assert.strictEqual((yield* dashboard.write("POST", `/v1/changes/${undo.id}/undo`)).status, 200)
          assert.deepInclude((yield* dashboard.get("/v1/promo-codes")).body.data.items[0], {
            code: "SUMMER",
            max_uses: 10
          })
        })
      )

      it.effect("undo refusals: nothing_to_restore, restore_target_missing, not_undoable, the write's own code", () =>
        Effect.gen(function* () {
          const { id, dashboard } = yield* dashboardStore()
          const undo = (changeId: number) => dashboard.write("POST", `/v1/changes/${changeId}/undo`)
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          const creation = yield* newest(dashboard)
          assert.deepStrictEqual(codeOf(yield* undo(creation.id)), [422, "nothing_to_restore"])
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { discount_value: 500 })
          const update = yield* newest(dashboard)
          yield* dashboard.write("DELETE", `/v1/promo-codes/${created.id}`)
          const deletion = yield* newest(dashboard)
          assert.deepStrictEqual(codeOf(yield* undo(update.id)), [422, "restore_target_missing"])
          assert.isFalse((yield* dashboard.get(`/v1/changes/${update.id}`)).body.data.undone)
          // The deleted code's text is taken since: the undo is refused as the create would be, and stays undoable.
          const taker = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          assert.deepStrictEqual(codeOf(yield* undo(deletion.id)), [409, "code_exists"])
          assert.isFalse((yield* dashboard.get(`/v1/changes/${deletion.id}`)).body.data.undone)
          yield* dashboard.write("DELETE", `/v1/promo-codes/${taker.id}`)
          const restored = yield* undo(deletion.id)
          assert.strictEqual(restored.status, 200)
          const back = (yield* dashboard.get("/v1/promo-codes")).body.data.items[0]
          assert.deepInclude(back, { id: created.id, code: "SPRING", discount_value: 500 })
          // The undo of a delete replaced nothing: undoing it has nothing to restore.
          assert.deepStrictEqual(codeOf(yield* undo(restored.body.data.undo_change_id)), [422, "nothing_to_restore"])
          // A change of an entity this server cannot undo (recorded by the dashboard).
          const [row] = yield* exec(
            (client) =>
              client<{ readonly id: number }>`
              INSERT INTO changes (store_id, entity, entity_id, action, summary, before, after)
              VALUES (${id}, 'stock', '12', 'update', 'Stock of product 12 set to 4', '{"stock":9}', '{"stock":4}')
              RETURNING id`
          )
          assert.deepStrictEqual(codeOf(yield* undo(row!.id)), [422, "not_undoable"])
          assert.deepStrictEqual(codeOf(yield* undo(99_999_999)), [404, "not_found"])
          assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", "/v1/changes/1x/undo")), [400, "bad_request"])
          // The add-on gate applies to a promo undo as to any promo write.
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { max_uses: 3 })
          const later = yield* newest(dashboard)
          yield* exec((client) => client`UPDATE stores SET promo_codes_addon = false WHERE id = ${id}`)
          assert.deepStrictEqual(codeOf(yield* undo(later.id)), [409, "addon_inactive"])
        })
      )

      it.effect("needs the entity's undo scope, not store:read; the same key for another change is 422", () =>
        Effect.gen(function* () {
          const { id, dashboard } = yield* dashboardStore()
          const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { max_uses: 7 })
          const first = yield* newest(dashboard)
          yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { min_order_amount: 900 })
          const second = yield* newest(dashboard)
          const minted = yield* apiKey(dashboard)
          const refused = yield* minted.write("POST", `/v1/changes/${second.id}/undo`)
          assert.deepStrictEqual(
            [...codeOf(refused), refused.body.error.message],
            [403, "forbidden", "Missing scope: promos:write"]
          )
          const undoOnly = yield* keyWithScopes(id, ["promos:write"])
          const k = key()
          const done = yield* undoOnly.write("POST", `/v1/changes/${second.id}/undo`, undefined, k)
          assert.strictEqual(done.status, 200, done.text)
          const replay = yield* undoOnly.write("POST", `/v1/changes/${second.id}/undo`, undefined, k)
          assert.deepStrictEqual(
            [replay.status, replay.headers.get("idempotency-replay"), replay.text],
            [200, "1", done.text]
          )
          assert.deepStrictEqual(codeOf(yield* undoOnly.write("POST", `/v1/changes/${first.id}/undo`, undefined, k)), [
            422,
            "idempotency_key_reuse"
          ])
          const undoRecord = (yield* dashboard.get(`/v1/changes/${done.body.data.undo_change_id}`)).body.data
          assert.strictEqual(undoRecord.key_id, undoOnly.token.split(".")[0])
        })
      )

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

      it.effect("property: any sequence of promo and pixel writes, undone newest first, restores the exact start", () =>
        Effect.gen(function* () {
          undoneInAllRuns = 0
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
        })
      )
    }
  )
}
