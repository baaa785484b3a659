/**
 * Shipping rates and settings through the store API in memory (`src/store/shipping`; docs/store-api-config.md,
 * "Shipping rates and settings"): the 58-wilaya table, upserts and their refusals, the settings, the courier rate
 * sync over the sandbox and a test courier (each failure of a courier answered with the shipping API's code, the
 * rates untouched), the change history of both entities with their scopes, the idempotency of every write and the
 * snapshot limit. The same flows on both databases, and with a real adapter's loopback fake, are
 * `../store-shipping/StoreShipping.db.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { ShippingRates } from "@tawsil/store-shipping"
import { Effect, Layer } from "effect"
import { priceOf } from "../../../../packages/store-shipping/test/TestCourier.ts"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

/** The priced wilayas of a table: `{ 16: [home, desk] }`. */
const pricesOf = (items: ReadonlyArray<{ wilaya_id: number; home_price: number | null; desk_price: number | null }>) =>
  Object.fromEntries(
    items
      .filter((item) => item.home_price !== null || item.desk_price !== null)
      .map((item) => [item.wilaya_id, [item.home_price, item.desk_price]])
  )

const pricesNow = (caller: InMemory.Caller) =>
  Effect.map(caller.get("/v1/shipping/rates"), (answer) => pricesOf(answer.body.data.items))

const newest = (caller: InMemory.Caller) =>
  Effect.map(caller.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

layer(InMemory.layer(), { excludeTestServices: true })("shipping rates and settings (memory)", (it) => {
  it.effect("lists the 58 wilayas; a write upserts the listed ones and answers the table", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const empty = yield* dashboard.get("/v1/shipping/rates")
      assert.strictEqual(empty.status, 200)
      assert.strictEqual(empty.body.data.items.length, 58)
      assert.deepStrictEqual(empty.body.data.items[0], {
        wilaya_id: 1,
        wilaya_name: "Adrar",
        wilaya_name_ar: empty.body.data.items[0].wilaya_name_ar,
        home_price: null,
        desk_price: null,
        updated_at: null
      })
      const written = yield* dashboard.write("POST", "/v1/shipping/rates", {
        rates: [
          { wilaya_id: 16, home_price: 400, desk_price: 250 },
          { wilaya_id: 31, home_price: "650.50" }
        ]
      })
      assert.strictEqual(written.status, 200, written.text)
      assert.deepStrictEqual(pricesOf(written.body.data.items), { 16: [400, 250], 31: [650.5, null] })
      assert.match(written.body.data.items[15].updated_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: null }] })
      assert.deepStrictEqual(yield* pricesNow(dashboard), { 16: [null, 250], 31: [650.5, null] })
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, desk_price: null }] })
      assert.deepStrictEqual(yield* pricesNow(dashboard), { 31: [650.5, null] }, "neither price: no rate")
    })
  )

  it.effect("refuses bad rate bodies with 400 bad_request naming the field, and stores the refusal", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const refused = (body: unknown) => dashboard.write("POST", "/v1/shipping/rates", body)
      for (const [body, message] of [
        [{ rates: [{ wilaya_id: 59, home_price: 400 }] }, "rates[0].wilaya_id: wilaya 59 (Aflou) is not accepted"],
        [{ rates: [{ wilaya_id: 69, home_price: 400 }] }, "send 17 (Djelfa)"],
        [{ rates: [{ wilaya_id: 16, home_price: 100_000_001 }] }, "rates[0].home_price must be an amount from 0"],
        [{ rates: [{ wilaya_id: 16, home_price: "4\u000000" }] }, "rates[0].home_price must be an amount"],
        [{ rates: [{ wilaya_id: 16, desk_price: "\ud800" }] }, "rates[0].desk_price must be an amount"],
        [{ rates: {} }, "rates must be an array of 1 to 58 rates"],
        [[1, 2], "Body must be a JSON object"]
      ] as const) {
        const answer = yield* refused(body)
        assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], answer.text)
        assert.include(answer.body.error.message, message)
      }
      // 1e309 is infinity once parsed, and 1e308 is over the maximum.
      for (const raw of [
        '{"rates":[{"wilaya_id":16,"home_price":1e309}]}',
        '{"rates":[{"wilaya_id":16,"home_price":1e308}]}'
      ]) {
        const answer = yield* InMemory.call("POST", "/v1/shipping/rates", { token: dashboard.token, key: key(), raw })
        assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], raw)
      }
      const once = key()
      const first = yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 63 }] }, once)
      const again = yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 63 }] }, once)
      assert.strictEqual(again.headers.get("idempotency-replay"), "1")
      assert.strictEqual(again.text, first.text)
      const missing = yield* InMemory.call("POST", "/v1/shipping/rates", {
        token: dashboard.token,
        body: { rates: [{ wilaya_id: 16, home_price: 1 }] }
      })
      assert.deepStrictEqual(codeOf(missing), [400, "bad_request"])
      assert.deepStrictEqual(yield* pricesNow(dashboard), {})
    })
  )

  it.effect("a write is replayed byte for byte under its key, and records one change", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const once = key()
      const body = { rates: [{ wilaya_id: 9, home_price: 500, desk_price: 350 }] }
      const first = yield* dashboard.write("POST", "/v1/shipping/rates", body, once)
      const replay = yield* dashboard.write("POST", "/v1/shipping/rates", body, once)
      assert.strictEqual(replay.text, first.text)
      assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
      const other = yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 9 }] }, once)
      assert.deepStrictEqual(codeOf(other), [422, "idempotency_key_reuse"])
      const changes = (yield* dashboard.get("/v1/changes?entity=shipping.rates")).body.data.items
      assert.strictEqual(changes.length, 1)
      assert.deepInclude(changes[0], {
        entity: "shipping.rates",
        entity_id: "rates",
        action: "update",
        summary: "Updated shipping rates of 1 wilaya: 9",
        undone: false
      })
    })
  )

  it.effect("rates: listed in the history, detail with before and after, undo, and its undo", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 400 }] })
      const start = yield* pricesNow(dashboard)
      yield* dashboard.write("POST", "/v1/shipping/rates", {
        rates: [
          { wilaya_id: 16, home_price: 450, desk_price: 300 },
          { wilaya_id: 25, home_price: 550 }
        ]
      })
      const after = yield* pricesNow(dashboard)
      const change = yield* newest(dashboard)
      const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
      assert.deepStrictEqual(detail.before, {
        rates: [{ wilaya_id: 16, home_price: 400, desk_price: null }],
        absent: [25]
      })
      assert.deepStrictEqual(detail.after, {
        rates: [
          { wilaya_id: 16, home_price: 450, desk_price: 300 },
          { wilaya_id: 25, home_price: 550, desk_price: null }
        ],
        absent: []
      })
      assert.isString(detail.key_id)
      const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      assert.deepStrictEqual(undone.body.data.entity, "shipping.rates")
      assert.deepStrictEqual(yield* pricesNow(dashboard), start, "25 had no rate: removed")
      const again = yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
      assert.strictEqual(again.status, 200, again.text)
      assert.deepStrictEqual(yield* pricesNow(dashboard), after)
      assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)), [
        409,
        "already_undone"
      ])
    })
  )

  it.effect("settings: defaults, PATCH, history, undo and its undo; refusals name the field", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const initial = yield* dashboard.get("/v1/shipping/settings")
      assert.deepStrictEqual(initial.body.data, {
        origin_wilaya: null,
        default_courier: null,
        free_shipping_threshold: null,
        default_delivery_type: "home",
        cod_fee_payer: "merchant",
        cod_fee_percent: 0,
        updated_at: null
      })
      const patched = yield* dashboard.write("PATCH", "/v1/shipping/settings", {
        origin_wilaya: 16,
        default_courier: "SANDBOX",
        free_shipping_threshold: 9000
      })
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepInclude(patched.body.data, {
        origin_wilaya: 16,
        default_courier: "sandbox",
        free_shipping_threshold: 9000
      })
      const before = (yield* dashboard.get("/v1/shipping/settings")).body.data
      yield* dashboard.write("PATCH", "/v1/shipping/settings", { cod_fee_payer: "customer", cod_fee_percent: "1.25" })
      const after = (yield* dashboard.get("/v1/shipping/settings")).body.data
      const change = yield* newest(dashboard)
      assert.deepInclude(change, { entity: "shipping.settings", entity_id: "settings" })
      const detail = (yield* dashboard.get(`/v1/changes/${change.id}`)).body.data
      assert.deepInclude(detail.before, { cod_fee_payer: "merchant", cod_fee_percent: 0 })
      assert.deepInclude(detail.after, { cod_fee_payer: "customer", cod_fee_percent: 1.25 })
      const undone = yield* dashboard.write("POST", `/v1/changes/${change.id}/undo`)
      const { updated_at: _, ...restored } = (yield* dashboard.get("/v1/shipping/settings")).body.data
      const { updated_at: __, ...expected } = before
      assert.deepStrictEqual(restored, expected)
      yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
      const { updated_at: ___, ...reapplied } = (yield* dashboard.get("/v1/shipping/settings")).body.data
      const { updated_at: ____, ...expectedAfter } = after
      assert.deepStrictEqual(reapplied, expectedAfter)
      for (const [body, message] of [
        [
          { origin_wilaya: 64 },
          "origin_wilaya: wilaya 64 (Bou Saâda) is not accepted by couriers yet: send 28 (M'Sila)"
        ],
        [{ default_courier: "la-poste" }, "default_courier must be a courier key of GET /v1/couriers, or null"],
        [{ default_courier: "\ud800" }, "default_courier must be a courier key"],
        [{ cod_fee_percent: 100.5 }, "cod_fee_percent must be an amount from 0 to 100"],
        [{ free_shipping_threshold: 1e308 }, "free_shipping_threshold must be an amount from 0 to 100000000"],
        [{ default_delivery_type: "digital" }, "default_delivery_type must be home or desk"]
      ] as const) {
        const answer = yield* dashboard.write("PATCH", "/v1/shipping/settings", body)
        assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], answer.text)
        assert.include(answer.body.error.message, message)
      }
    })
  )

  it.effect("the sync prices every wilaya from the origin, answers its change, and its undo keeps what it added", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const noOrigin = yield* dashboard.write("POST", "/v1/shipping/rates/sync", { courier: "sandbox" })
      assert.deepStrictEqual(codeOf(noOrigin), [400, "bad_request"])
      assert.include(noOrigin.body.error.message, "origin_wilaya")
      yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 31 })
      yield* dashboard.write("POST", "/v1/shipping/rates", {
        rates: [
          { wilaya_id: 16, home_price: 1, desk_price: 1 },
          { wilaya_id: 33, home_price: 2000 }
        ]
      })
      const manual = yield* pricesNow(dashboard)
      const synced = yield* dashboard.write("POST", "/v1/shipping/rates/sync", {
        courier: "test_co",
        credentials: { token: "a-token" }
      })
      assert.strictEqual(synced.status, 200, synced.text)
      const data = synced.body.data
      assert.deepInclude(data, { courier: "testco", origin_wilaya: 31, updated: [16], unchanged: [] })
      assert.strictEqual(data.added.length, 55)
      assert.deepStrictEqual(
        data.skipped.map((skip: { wilaya_id: number }) => skip.wilaya_id),
        [33, 56]
      )
      assert.strictEqual(data.items.length, 58)
      const afterSync = pricesOf(data.items)
      assert.deepStrictEqual(afterSync[16], [priceOf(16).home, priceOf(16).desk])
      assert.deepStrictEqual(afterSync[33], [2000, null], "a wilaya the courier does not serve keeps its rate")
      const change = (yield* dashboard.get(`/v1/changes/${data.change_id}`)).body.data
      assert.deepInclude(change, {
        entity: "shipping.rates",
        entity_id: "rates",
        summary: "Synced shipping rates from testco: 1 updated, 55 added",
        after: null
      })
      assert.deepStrictEqual(change.before, {
        courier: "testco",
        rates: [{ wilaya_id: 16, home_price: 1, desk_price: 1 }]
      })
      assert.notInclude(JSON.stringify(change), "a-token")
      const undone = yield* dashboard.write("POST", `/v1/changes/${data.change_id}/undo`)
      assert.strictEqual(undone.status, 200, undone.text)
      const restored = yield* pricesNow(dashboard)
      assert.deepStrictEqual(restored[16], manual[16], "the overwritten price is back")
      assert.deepStrictEqual(restored[5], afterSync[5], "an added rate is kept")
      const reapply = yield* dashboard.write("POST", `/v1/changes/${undone.body.data.undo_change_id}/undo`)
      assert.deepStrictEqual(codeOf(reapply), [422, "nothing_to_restore"])
      assert.deepStrictEqual(yield* pricesNow(dashboard), restored)
    })
  )

  it.effect("a courier's failure answers the shipping API's code, leaves the rates untouched and records nothing", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 1 }] })
      const start = yield* pricesNow(dashboard)
      const last = (yield* newest(dashboard)).id
      const sync = (body: unknown, idempotencyKey?: string) =>
        dashboard.write("POST", "/v1/shipping/rates/sync", body, idempotencyKey)
      const cases: ReadonlyArray<readonly [unknown, number, string]> = [
        [{ courier: "nobody" }, 400, "unknown_courier"],
        [{ courier: "testco" }, 400, "invalid_credentials"],
        [{ courier: "testco", credentials: { token: "t", extra: "x" } }, 400, "invalid_credentials"],
        [{ courier: "sandbox", base_url: "https://evil.example" }, 400, "blocked_egress"],
        [{ courier: "testco", credentials: { token: "rejected" } }, 422, "credentials_rejected"],
        [{ courier: "testco", credentials: { token: "t" }, wilaya_ids: [33, 56] }, 422, "courier_refused"],
        [{ courier: "testco", credentials: { token: "down" } }, 502, "courier_unreachable"],
        [{ courier: "testco", credentials: { token: "limited" } }, 429, "rate_limited"]
      ]
      for (const [body, status, code] of cases) {
        const answer = yield* sync(body)
        assert.deepStrictEqual(codeOf(answer), [status, code], answer.text)
        if (status === 429) assert.strictEqual(answer.headers.get("retry-after"), "42")
      }
      // A 502 is not stored: the same key runs again; a 4xx is.
      const retried = key()
      assert.strictEqual((yield* sync({ courier: "testco", credentials: { token: "down" } }, retried)).status, 502)
      const fixed = yield* sync({ courier: "testco", credentials: { token: "down" } }, retried)
      assert.isNull(fixed.headers.get("idempotency-replay"))
      assert.deepStrictEqual(yield* pricesNow(dashboard), start)
      assert.strictEqual((yield* newest(dashboard)).id, last, "nothing recorded")
    })
  )

  it.effect("reads need shipping:read, writes and undos shipping:write; keys minted through the API have neither", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 400 }] })
      const change = yield* newest(dashboard)
      const minted = yield* InMemory.apiKey(dashboard)
      for (const path of ["/v1/shipping/rates", "/v1/shipping/settings"]) {
        const answer = yield* minted.get(path)
        assert.deepStrictEqual(codeOf(answer), [403, "forbidden"])
        assert.strictEqual(answer.body.error.message, "Missing scope: shipping:read")
      }
      for (const [method, path] of [
        ["POST", "/v1/shipping/rates"],
        ["POST", "/v1/shipping/rates/sync"],
        ["PATCH", "/v1/shipping/settings"]
      ] as const) {
        const answer = yield* minted.write(method, path, {})
        assert.strictEqual(answer.body.error.message, "Missing scope: shipping:write", `${method} ${path}`)
      }
      const reader = yield* InMemory.keyWithScopes(dashboard.id, ["store:read", "shipping:read"])
      assert.strictEqual((yield* reader.get(`/v1/changes/${change.id}`)).status, 200)
      const undo = yield* reader.write("POST", `/v1/changes/${change.id}/undo`)
      assert.deepStrictEqual([undo.status, undo.body.error.message], [403, "Missing scope: shipping:write"])
      // A store holds at most 3 active keys: the narrower ones in a second store.
      const other = yield* createStore()
      yield* other.write("POST", "/v1/shipping/rates", { rates: [{ wilaya_id: 16, home_price: 400 }] })
      const otherChange = yield* newest(other)
      const storeOnly = yield* InMemory.keyWithScopes(other.id, ["store:read", "store:write"])
      const detail = yield* storeOnly.get(`/v1/changes/${otherChange.id}`)
      assert.deepStrictEqual([detail.status, detail.body.error.message], [403, "Missing scope: shipping:read"])
      const writer = yield* InMemory.keyWithScopes(other.id, ["shipping:write"])
      assert.strictEqual((yield* writer.write("POST", `/v1/changes/${otherChange.id}/undo`)).status, 200)
    })
  )
})

layer(InMemory.layer().pipe(Layer.provide(Layer.succeed(ShippingRates.SnapshotLimit, 1000))), {
  excludeTestServices: true
})("shipping rates past the snapshot limit (memory)", (it) => {
  it.effect("a rate write or sync whose record would pass the limit is 422 snapshot_too_large and does not run", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const all = Array.from({ length: 58 }, (_, index) => ({ wilaya_id: index + 1, home_price: 500, desk_price: 400 }))
      const refused = yield* dashboard.write("POST", "/v1/shipping/rates", { rates: all })
      assert.deepStrictEqual(codeOf(refused), [422, "snapshot_too_large"])
      assert.deepStrictEqual(yield* pricesNow(dashboard), {})
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: all.slice(0, 15) })
      yield* dashboard.write("POST", "/v1/shipping/rates", { rates: all.slice(15, 30) })
      yield* dashboard.write("PATCH", "/v1/shipping/settings", { origin_wilaya: 16 })
      const sync = yield* dashboard.write("POST", "/v1/shipping/rates/sync", { courier: "sandbox" })
      assert.deepStrictEqual(codeOf(sync), [422, "snapshot_too_large"])
      assert.strictEqual(Object.keys(yield* pricesNow(dashboard)).length, 30)
    })
  )
})
