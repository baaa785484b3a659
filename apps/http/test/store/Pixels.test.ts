/**
 * Tracking pixels through the store API in memory (`src/store/pixels`; spec store-api-config "Tracking pixels"): the
 * seven platforms and their ids, the create checks in the spec's order, the refusal stored 24 h, the write-only
 * token, PATCH rules, one default per type, plan limits and the `limits` object, scopes and path ids. The token as
 * the database keeps it and the 1 MB body limit are `../StoreApi.db.test.ts`'s.
 */
import { assert, layer } from "@effect/vitest"
import { Pixel, StorefrontStore } from "@tawsil/storefront"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

const META_TOKEN = "EAAGm0PX4ZCpsBAKZBZCZAbcdefghijklmnopqrstuvwxyz0123"

const examples = {
  facebook: "1234567890123456",
  tiktok: "CABCDE1234567890FGHI",
  snapchat: "1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d",
  pinterest: "2612345678901",
  google_analytics: "G-ABC123XYZ9",
  gtm: "GTM-5X7K2LP",
  google_ads: "AW-1234567890"
} as const

layer(InMemory.layer(), { excludeTestServices: true })("pixels (memory)", (it) => {
  it.effect("adds one pixel of each of the seven platforms, any letter case, with the type alias", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      for (const [type, id] of Object.entries(examples)) {
        const created = yield* dashboard.write("POST", "/v1/pixels", {
          type: type.toUpperCase(),
          pixel_id: id.toLowerCase()
        })
        assert.strictEqual(created.status, 201, `${type}: ${created.text}`)
        assert.deepStrictEqual([created.body.data.pixel_type, created.body.data.pixel_id], [type, id])
      }
      const list = yield* dashboard.get("/v1/pixels")
      assert.strictEqual(list.body.data.items.length, 7)
      assert.deepStrictEqual(
        list.body.data.items.map((item: { pixel_type: string }) => item.pixel_type),
        ["google_ads", "gtm", "google_analytics", "pinterest", "snapchat", "tiktok", "facebook"]
      )
      assert.deepStrictEqual(list.body.data.limits, {
        plan: "enterprise",
        can_add: true,
        per_type_limit: null,
        total_limit: null,
        counts: { facebook: 1, tiktok: 1, snapchat: 1, pinterest: 1, google_analytics: 1, gtm: 1, google_ads: 1 },
        total: 7
      })
      const gtm = yield* dashboard.get("/v1/pixels?pixel_type=GTM")
      assert.deepStrictEqual(
        [gtm.body.data.items.length, gtm.body.data.limits.total],
        [1, 7],
        "limits describe the whole store whatever the filter"
      )
      const unknown = yield* dashboard.get("/v1/pixels?pixel_type=social_a")
      assert.deepStrictEqual([unknown.status, unknown.body.data.items], [200, []])
      const page = yield* dashboard.get("/v1/pixels?limit=5")
      assert.deepStrictEqual([page.body.data.items.length, page.body.data.has_more], [5, true])
      const rest = yield* dashboard.get(`/v1/pixels?limit=5&cursor=${page.body.data.next_cursor}`)
      assert.deepStrictEqual([rest.body.data.items.length, rest.body.data.has_more], [2, false])
    })
  )

  it.effect("checks a create in the spec's order, and stores the refusal for 24 hours against its key", () =>
    Effect.gen(function* () {
      const { id } = yield* createStore({ plan: "pro" })
      // A Pro store: only an installed app (any plan) can write its pixels, and it meets the plan's limits.
      const app = yield* InMemory.appToken(id, ["pixels:read", "pixels:write"])
      const first = yield* app.write("POST", "/v1/pixels", { pixel_type: "facebook", pixel_id: examples.facebook })
      assert.strictEqual(first.status, 201)
      const create = (body: unknown, idempotencyKey?: string) =>
        Effect.map(app.write("POST", "/v1/pixels", body, idempotencyKey), codeOf)
      const broken = { pixel_type: "myspace", pixel_id: "!", access_token: "<bad>" }
      assert.deepStrictEqual(yield* create(broken), [422, "invalid_pixel_type"])
      assert.deepStrictEqual(yield* create({ ...broken, pixel_type: "facebook" }), [422, "invalid_pixel_id"])
      assert.deepStrictEqual(yield* create({ ...broken, pixel_type: "facebook", pixel_id: "1234567890123" }), [
        422,
        "invalid_pixel_id"
      ])
      const limitKey = key()
      const limited = { ...broken, pixel_type: "facebook", pixel_id: "9234567890123456" }
      assert.deepStrictEqual(yield* create(limited, limitKey), [409, "limit_reached"])
      assert.deepStrictEqual(yield* create({ ...broken, pixel_type: "tiktok", pixel_id: examples.tiktok }), [
        422,
        "invalid_access_token"
      ])
      assert.deepStrictEqual(yield* create({ pixel_type: "tiktok", pixel_id: examples.tiktok }), [201, undefined])
      assert.deepStrictEqual(yield* create({ pixel_type: "tiktok", pixel_id: examples.tiktok, access_token: "<" }), [
        409,
        "limit_reached"
      ])
      // The refusal is stored: after the cause is fixed, the same key still answers it; a new key runs.
      yield* app.write("DELETE", `/v1/pixels/${first.body.data.id}`)
      const replayed = yield* app.write("POST", "/v1/pixels", limited, limitKey)
      assert.deepStrictEqual(
        [...codeOf(replayed), replayed.headers.get("idempotency-replay")],
        [409, "limit_reached", "1"]
      )
      assert.deepStrictEqual(yield* create(limited), [422, "invalid_access_token"])
      assert.deepStrictEqual(yield* create({ ...limited, access_token: undefined }), [201, undefined])
      // Duplicates on an unlimited plan.
      const dashboard = yield* createStore()
      yield* dashboard.write("POST", "/v1/pixels", { pixel_type: "gtm", pixel_id: examples.gtm })
      const duplicate = yield* dashboard.write("POST", "/v1/pixels", {
        pixel_type: "gtm",
        pixel_id: examples.gtm.toLowerCase(),
        access_token: "<"
      })
      assert.deepStrictEqual(codeOf(duplicate), [409, "pixel_exists"])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", "/v1/pixels", [])), [400, "bad_request"])
    })
  )

  it.effect("plan limits: Free none, Pro one of each type, an expired plan counted as free", () =>
    Effect.gen(function* () {
      const { id } = yield* createStore({ plan: "free" })
      const app = yield* InMemory.appToken(id, ["pixels:read", "pixels:write"])
      const list = yield* app.get("/v1/pixels")
      assert.deepStrictEqual(list.body.data.limits, {
        plan: "free",
        can_add: false,
        per_type_limit: 0,
        total_limit: 0,
        counts: { facebook: 0, tiktok: 0, snapchat: 0, pinterest: 0, google_analytics: 0, gtm: 0, google_ads: 0 },
        total: 0
      })
      assert.deepStrictEqual(
        codeOf(yield* app.write("POST", "/v1/pixels", { pixel_type: "gtm", pixel_id: examples.gtm })),
        [409, "limit_reached"]
      )
      yield* InMemory.setPlan(id, "pro")
      assert.strictEqual(
        (yield* app.write("POST", "/v1/pixels", { pixel_type: "gtm", pixel_id: examples.gtm })).status,
        201
      )
      const pro = (yield* app.get("/v1/pixels")).body.data.limits
      assert.deepInclude(pro, { plan: "pro", can_add: true, per_type_limit: 1, total_limit: null, total: 1 })
      yield* InMemory.setPlan(id, "pro", new Date(Date.now() - 1000))
      const expired = (yield* app.get("/v1/pixels")).body.data.limits
      assert.deepInclude(expired, { plan: "free", can_add: false, total: 1 })
    })
  )

  it.effect("cleans the token, never returns it, and refuses it by the spec's rules", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const create = (type: keyof typeof examples, access_token: string) =>
        dashboard.write("POST", "/v1/pixels", { pixel_type: type, pixel_id: examples[type], access_token })
      for (const bad of [
        "EAAB<script>alert(1)</script>".padEnd(45, "x"),
        `${META_TOKEN.slice(0, 20)} ${META_TOKEN.slice(20)}`,
        `${META_TOKEN}\nsecond line`,
        META_TOKEN.slice(0, 39),
        examples.facebook
      ]) {
        assert.deepStrictEqual(codeOf(yield* create("facebook", bad)), [422, "invalid_access_token"], bad)
      }
      const created = yield* create("facebook", `  \u201c\u200b${META_TOKEN}\ufeff\u201d \n`)
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.body.data.has_token, true)
      assert.notInclude(created.text, META_TOKEN)
      assert.notInclude((yield* dashboard.get("/v1/pixels")).text, META_TOKEN)
      // Short tokens are fine beyond Meta; a token of only spaces and invisible characters is none.
      assert.strictEqual((yield* create("tiktok", "tt-short")).body.data.has_token, true)
      const none = yield* create("snapchat", ' " \u200b " ')
      assert.deepStrictEqual([none.status, none.body.data.has_token], [201, false])
    })
  )

  it.effect("PATCH: immutable fields, the mask keeps the token, fields cleared and cut, test_event_code cleared", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const created = (yield* dashboard.write("POST", "/v1/pixels", {
        pixel_type: "pinterest",
        pixel_id: examples.pinterest,
        name: "Pins",
        access_token: "pina_AAAA",
        ad_account_id: "549755885175"
      })).body.data
      const patch = (body: unknown) => dashboard.write("PATCH", `/v1/pixels/${created.id}`, body)
      for (const body of [{ pixel_type: "pinterest" }, { type: "gtm" }, { pixel_id: examples.pinterest }]) {
        assert.deepStrictEqual(codeOf(yield* patch({ pixel_name: "x", ...body })), [422, "immutable_field"])
      }
      const setCode = Effect.flatMap(Effect.service(StorefrontStore.MemoryStores), (stores) =>
        stores.setTestEventCode(Pixel.PixelId.make(created.id), "TEST4821")
      )
      yield* setCode
      for (const kept of ["", null, "••••••••", "pina_••••••••_tail"]) {
        const answer = yield* patch({ access_token: kept })
        assert.deepStrictEqual([answer.status, answer.body.data.has_token], [200, true])
        assert.strictEqual(answer.body.data.test_event_code, "TEST4821", "nothing was written")
      }
      const empty = yield* patch({})
      assert.deepStrictEqual(empty.body.data, { ...created, test_event_code: "TEST4821" })
      const written = yield* patch({
        pixel_name: "n".repeat(120),
        conversion_label: "l".repeat(80),
        is_active: false
      })
      assert.deepInclude(written.body.data, {
        pixel_name: "n".repeat(100),
        conversion_label: "l".repeat(64),
        is_active: false,
        test_event_code: null,
        has_token: true
      })
      yield* setCode
      const cleared = yield* patch({ pixel_name: "", ad_account_id: null, access_token: "pina_BBBB" })
      assert.deepInclude(cleared.body.data, { pixel_name: null, ad_account_id: null, test_event_code: null })
      assert.deepStrictEqual(codeOf(yield* patch({ access_token: "has space" })), [422, "invalid_access_token"])
      assert.deepStrictEqual(codeOf(yield* patch({ access_token: examples.pinterest })), [422, "invalid_access_token"])
      assert.deepStrictEqual(codeOf(yield* patch({ pixel_name: 5 })), [400, "bad_request"])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("PATCH", "/v1/pixels/99999999", {})), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("PATCH", "/v1/pixels/1e3", {})), [400, "bad_request"])
      const other = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* other.write("DELETE", `/v1/pixels/${created.id}`)), [404, "not_found"])
      const deleted = yield* dashboard.write("DELETE", `/v1/pixels/${created.id}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: created.id })
    })
  )

  it.effect("one default per type: making a pixel the default takes it from the others of its type", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const add = (type: keyof typeof examples, id: string, body: object = {}) =>
        Effect.map(
          dashboard.write("POST", "/v1/pixels", { pixel_type: type, pixel_id: id, ...body }),
          (a) => a.body.data
        )
      const a = yield* add("google_ads", "AW-111111111", { is_default: true })
      const b = yield* add("google_ads", "AW-222222222", { is_default: true })
      const g = yield* add("gtm", examples.gtm, { is_default: true })
      const defaults = Effect.map(dashboard.get("/v1/pixels"), (list) =>
        list.body.data.items
          .filter((item: { is_default: boolean }) => item.is_default)
          .map((item: { id: number }) => item.id)
          .sort()
      )
      assert.deepStrictEqual(yield* defaults, [b.id, g.id].sort())
      yield* dashboard.write("PATCH", `/v1/pixels/${a.id}`, { is_default: true })
      assert.deepStrictEqual(yield* defaults, [a.id, g.id].sort())
    })
  )

  it.effect("keys minted through POST /v1/keys carry no pixel scopes", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const minted = yield* InMemory.apiKey(dashboard)
      const refused = yield* minted.get("/v1/pixels")
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "Missing scope: pixels:read"]
      )
      const write = yield* minted.write("POST", "/v1/pixels", { pixel_type: "gtm", pixel_id: examples.gtm })
      assert.strictEqual(write.body.error.message, "Missing scope: pixels:write")
    })
  )

  it.effect("path ids: digits only (400), past any pixel or 0 (404), for PATCH and DELETE", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      for (const method of ["PATCH", "DELETE"]) {
        const letters = yield* dashboard.write(method, "/v1/pixels/abc", {})
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"],
          method
        )
        for (const id of ["0", "2147483647", "2147483648", "99999999999999999999"]) {
          assert.deepStrictEqual(codeOf(yield* dashboard.write(method, `/v1/pixels/${id}`, {})), [404, "not_found"])
        }
      }
    })
  )
})
