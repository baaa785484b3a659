/**
 * Promo codes through the store API in memory (`src/store/promo-codes`; spec store-api-config "Promo codes"):
 * scopes, list, create with every 4xx in the spec's order, PATCH, DELETE, path ids, the 100% confirmation flow, the
 * add-on gate and the stored refusals.
 */
import { assert, layer } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { PromoCode, PromoStore } from "@tawsil/promos"
import { DateTime, Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

const summer = { code: " summer-10 ", discount_type: "Percentage", discount_value: 10 }

/** An Algeria wall time `hours` from now, as `YYYY-MM-DD HH:MM:SS`. */
const algiers = (hours: number) =>
  new Date(Date.now() + hours * 3_600_000 + 3_600_000).toISOString().slice(0, 19).replace("T", " ")

/** A code's expiry a day ago, written as the dashboard would (the API refuses one in the past). */
const expireNow = (storeId: number, id: number) =>
  Effect.flatMap(Effect.service(PromoStore.PromoStore), (store) =>
    store
      .update(Ids.StoreId.make(storeId), PromoCode.PromoCodeId.make(id), {
        expires_at: DateTime.makeUnsafe(Date.now() - 86_400_000)
      })
      .pipe(Effect.orDie)
  )

layer(InMemory.layer(), { excludeTestServices: true })("promo codes (memory)", (it) => {
  it.effect("dashboard keys carry the promo scopes; keys minted through POST /v1/keys do not", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const minted = yield* InMemory.apiKey(dashboard)
      const whoami = yield* minted.get("/v1/whoami")
      assert.notInclude(whoami.body.data.scopes, "promos:read")
      const refused = yield* minted.get("/v1/promo-codes")
      assert.deepStrictEqual(
        [refused.status, refused.body.error.code, refused.body.error.message],
        [403, "forbidden", "Missing scope: promos:read"]
      )
      const write = yield* minted.write("POST", "/v1/promo-codes", summer)
      assert.strictEqual(write.body.error.message, "Missing scope: promos:write")
      const mine = yield* dashboard.get("/v1/whoami")
      for (const scope of ["promos:read", "promos:write", "pixels:read", "pixels:write", "shipping:write"]) {
        assert.include(mine.body.data.scopes, scope)
      }
    })
  )

  it.effect("creates a code (201), normalised, and lists codes newest first with addon_enabled", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const created = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...summer,
        min_order_amount: "2500.50",
        max_uses: "100",
        starts_at: "2026-01-01T00:00:00Z",
        expires_at: "2099-12-31T22:00:00-02:00"
      })
      assert.strictEqual(created.status, 201, created.text)
      const code = created.body.data
      assert.deepStrictEqual(
        { ...code, id: 0, created_at: "", updated_at: "" },
        {
          id: 0,
          code: "SUMMER-10",
          discount_type: "percentage",
          discount_value: 10,
          min_order_amount: 2500.5,
          max_uses: 100,
          used_count: 0,
          is_active: true,
          starts_at: "2026-01-01 01:00:00",
          expires_at: "2100-01-01 01:00:00",
          created_at: "",
          updated_at: ""
        }
      )
      assert.match(code.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      for (const [text, active] of [
        ["B", true],
        ["C", false],
        ["D", "false"]
      ] as const) {
        yield* dashboard.write("POST", "/v1/promo-codes", {
          code: `CODE-${text}`,
          discount_type: "fixed",
          discount_value: 300,
          is_active: active
        })
      }
      const all = yield* dashboard.get("/v1/promo-codes")
      assert.strictEqual(all.status, 200)
      assert.deepStrictEqual(
        all.body.data.items.map((item: { code: string }) => item.code),
        ["CODE-D", "CODE-C", "CODE-B", "SUMMER-10"]
      )
      assert.strictEqual(all.body.data.addon_enabled, true)
      assert.strictEqual(all.body.data.has_more, false)
      const codes = (query: string) =>
        Effect.map(dashboard.get(`/v1/promo-codes?${query}`), (answer) =>
          answer.body.data.items.map((item: { code: string }) => item.code)
        )
      for (const truthy of ["true", "1", "yes", "on"]) {
        assert.deepStrictEqual(yield* codes(`is_active=${truthy}`), ["CODE-D", "CODE-B", "SUMMER-10"])
      }
      assert.deepStrictEqual(yield* codes("is_active=false"), ["CODE-C"])
      assert.deepStrictEqual(yield* codes("is_active=nope"), ["CODE-C"])
      const page = yield* dashboard.get("/v1/promo-codes?limit=3")
      assert.strictEqual(page.body.data.items.length, 3)
      assert.isTrue(page.body.data.has_more)
      assert.deepStrictEqual(yield* codes(`limit=3&cursor=${page.body.data.next_cursor}`), ["SUMMER-10"])
      assert.strictEqual((yield* dashboard.get("/v1/promo-codes?limit=500")).body.data.items.length, 4)
      assert.strictEqual((yield* dashboard.get("/v1/promo-codes?limit=0")).body.data.items.length, 1)
    })
  )

  it.effect("refuses a create with the spec's codes, in the spec's order", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const create = (body: unknown) => Effect.map(dashboard.write("POST", "/v1/promo-codes", body), codeOf)
      let body: Record<string, unknown> = {
        code: "x",
        discount_type: "free",
        discount_value: 0,
        min_order_amount: "a lot",
        max_uses: -1,
        starts_at: "soon",
        expires_at: "later"
      }
      for (const [field, fix, code] of [
        ["code", "WINTER", "invalid_code"],
        ["discount_type", "percentage", "invalid_discount_type"],
        ["discount_value", 150, "invalid_discount_value"],
        ["discount_value", 15, "invalid_discount_value"],
        ["min_order_amount", "", "invalid_min_order_amount"],
        ["max_uses", 0, "invalid_max_uses"],
        ["starts_at", "2026-01-01", "invalid_starts_at"],
        ["expires_at", "2020-01-01 00:00:00", "invalid_expires_at"],
        ["expires_at", "2030-01-01 00:00:00", "expires_at_in_past"]
      ] as const) {
        assert.deepStrictEqual(yield* create(body), [422, code], field)
        body = { ...body, [field]: fix }
      }
      assert.deepStrictEqual(yield* create({ ...body, starts_at: "2031-01-01" }), [422, "invalid_date_window"])
      assert.deepStrictEqual(yield* create(body), [201, undefined])
      assert.deepStrictEqual(yield* create({ ...body, code: "winter " }), [409, "code_exists"])
      assert.deepStrictEqual(yield* create([1, 2]), [400, "bad_request"])
      const malformed = yield* dashboard.write("POST", "/v1/promo-codes", undefined)
      assert.strictEqual(malformed.status, 400, "no body at all")
      // The spec's pair rule and bounds.
      assert.deepStrictEqual(yield* create({ code: "PCT", discount_type: "percentage", discount_value: 100.01 }), [
        422,
        "invalid_discount_value"
      ])
      assert.deepStrictEqual(yield* create({ code: "BIGFIXED", discount_type: "fixed", discount_value: 250000 }), [
        201,
        undefined
      ])
      assert.deepStrictEqual(yield* create({ code: "NOTYPE", discount_value: 5 }), [422, "invalid_discount_type"])
      assert.deepStrictEqual(yield* create({ code: "A".repeat(31), discount_type: "fixed", discount_value: 5 }), [
        422,
        "invalid_code"
      ])
    })
  )

  it.effect("PATCH: only sent fields change, the pair rule, future expiry only when sent, 404 and 400", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const fixed = (yield* dashboard.write("POST", "/v1/promo-codes", {
        code: "FIX500",
        discount_type: "fixed",
        discount_value: 500,
        max_uses: 5
      })).body.data
      const other = (yield* dashboard.write("POST", "/v1/promo-codes", {
        code: "OTHER",
        discount_type: "fixed",
        discount_value: 1
      })).body.data
      const patch = (id: number | string, body: unknown) => dashboard.write("PATCH", `/v1/promo-codes/${id}`, body)
      assert.deepStrictEqual(codeOf(yield* patch(fixed.id, { discount_type: "percentage" })), [
        422,
        "invalid_discount_value"
      ])
      const renamed = yield* patch(fixed.id, { code: "fix-600", discount_value: 600, used_count: 99 })
      assert.strictEqual(renamed.status, 200)
      assert.deepInclude(renamed.body.data, { code: "FIX-600", discount_value: 600, max_uses: 5, used_count: 0 })
      assert.deepStrictEqual(codeOf(yield* patch(fixed.id, { code: "other" })), [409, "code_exists"])
      const empty = yield* patch(fixed.id, {})
      assert.deepStrictEqual(empty.body.data, renamed.body.data, "an empty body changes nothing")
      assert.deepStrictEqual(codeOf(yield* patch(fixed.id, { expires_at: "2020-01-01" })), [422, "expires_at_in_past"])
      // A code that has expired stays editable while expires_at is not sent.
      yield* expireNow(dashboard.id, fixed.id)
      const paused = yield* patch(fixed.id, { is_active: false })
      assert.deepStrictEqual([paused.status, paused.body.data.is_active], [200, false])
      const future = yield* patch(fixed.id, { expires_at: algiers(48) })
      assert.strictEqual(future.body.data.expires_at, algiers(48))
      assert.deepStrictEqual(codeOf(yield* patch(fixed.id, { starts_at: algiers(72) })), [422, "invalid_date_window"])
      const cleared = yield* patch(fixed.id, { max_uses: "", min_order_amount: null, expires_at: "" })
      assert.deepInclude(cleared.body.data, { max_uses: null, min_order_amount: null, expires_at: null })
      assert.deepStrictEqual(codeOf(yield* patch("12abc", {})), [400, "bad_request"])
      assert.deepStrictEqual(codeOf(yield* patch(99_999_999, {})), [404, "not_found"])
      const elsewhere = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* elsewhere.write("PATCH", `/v1/promo-codes/${other.id}`, {})), [
        404,
        "not_found"
      ])
      assert.deepStrictEqual(codeOf(yield* elsewhere.write("DELETE", `/v1/promo-codes/${other.id}`)), [
        404,
        "not_found"
      ])
      const deleted = yield* dashboard.write("DELETE", `/v1/promo-codes/${other.id}`)
      assert.deepStrictEqual([deleted.status, deleted.body.data], [200, { deleted: true, id: other.id }])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("DELETE", `/v1/promo-codes/${other.id}`)), [
        404,
        "not_found"
      ])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("DELETE", "/v1/promo-codes/x1")), [400, "bad_request"])
    })
  )

  it.effect("a 100% code: confirmation_required with a single-use token, confirmation_stale with a fresh one", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const free = { code: "FREE", discount_type: "percentage", discount_value: 100 }
      const first = yield* dashboard.write("POST", "/v1/promo-codes", free)
      assert.deepStrictEqual(codeOf(first), [422, "confirmation_required"])
      const error = first.body.error
      assert.match(error.confirm_token, /^[0-9a-f]{32}\.\d+\.[0-9a-f]{64}$/)
      assert.strictEqual(error.confirm_token_expires_in, 600)
      assert.strictEqual(error.action, "promo.full_discount:new")
      assert.deepStrictEqual(Object.keys(error.will_change).sort(), [
        "action",
        "code",
        "discount",
        "note",
        "reversible"
      ])
      assert.strictEqual(error.will_change.code, "FREE")
      assert.strictEqual((yield* dashboard.get("/v1/promo-codes")).body.data.items.length, 0, "nothing written")
      // The same key with the same body replays the refusal (stored 24 h), with the same token.
      const k = key()
      const once = yield* dashboard.write("POST", "/v1/promo-codes", free, k)
      const replay = yield* dashboard.write("POST", "/v1/promo-codes", free, k)
      assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
      assert.strictEqual(replay.text, once.text)
      // Confirmed with a new key: written.
      const confirmed = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...free,
        confirm_token: error.confirm_token
      })
      assert.strictEqual(confirmed.status, 201, confirmed.text)
      // Used once: the token is stale now, and a fresh one comes with the refusal.
      const reused = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...free,
        code: "FREE2",
        confirm_token: error.confirm_token
      })
      assert.deepStrictEqual(codeOf(reused), [422, "confirmation_stale"])
      assert.notStrictEqual(reused.body.error.confirm_token, error.confirm_token)
      const mismatched = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...free,
        code: "FREE3",
        confirm_token: reused.body.error.confirm_token
      })
      assert.deepStrictEqual(codeOf(mismatched), [422, "confirmation_stale"], "issued for FREE2")
      const garbage = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...free,
        code: "FREE2",
        confirm_token: "x"
      })
      assert.deepStrictEqual(codeOf(garbage), [422, "confirmation_stale"])
      const fresh = yield* dashboard.write("POST", "/v1/promo-codes", {
        ...free,
        code: "FREE2",
        confirm_token: reused.body.error.confirm_token
      })
      assert.strictEqual(fresh.status, 201)
      // An update that makes a code 100% is confirmed for that code.
      const half = (yield* dashboard.write("POST", "/v1/promo-codes", {
        code: "HALF",
        discount_type: "percentage",
        discount_value: 50
      })).body.data
      const update = yield* dashboard.write("PATCH", `/v1/promo-codes/${half.id}`, { discount_value: 100 })
      assert.deepStrictEqual(codeOf(update), [422, "confirmation_required"])
      assert.strictEqual(update.body.error.action, `promo.full_discount:${half.id}`)
      assert.strictEqual(update.body.error.will_change.action, `Change promo code #${half.id} to make orders free`)
      const done = yield* dashboard.write("PATCH", `/v1/promo-codes/${half.id}`, {
        discount_value: 100,
        confirm_token: update.body.error.confirm_token
      })
      assert.strictEqual(done.body.data.discount_value, 100)
      // Other changes of a 100% code need nothing.
      assert.strictEqual((yield* dashboard.write("PATCH", `/v1/promo-codes/${half.id}`, { max_uses: 3 })).status, 200)
    })
  )

  it.effect("confirm_full_discount skips the round trip for dashboard keys only", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const id = dashboard.id
      const body = { code: "GIFT", discount_type: "percentage", discount_value: 100, confirm_full_discount: true }
      const minted = yield* InMemory.apiKey(dashboard)
      // A minted key has no promo scope at all; an app token with the scope is not a dashboard key either.
      assert.strictEqual((yield* minted.write("POST", "/v1/promo-codes", body)).status, 403)
      const app = yield* InMemory.appToken(id, ["promos:write", "promos:read"])
      assert.deepStrictEqual(codeOf(yield* app.write("POST", "/v1/promo-codes", body)), [422, "confirmation_required"])
      assert.strictEqual((yield* dashboard.write("POST", "/v1/promo-codes", body)).status, 201)
    })
  )

  it.effect("the Promo codes add-on: on for new stores; off, every write answers 409 addon_inactive", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const id = dashboard.id
      const created = (yield* dashboard.write("POST", "/v1/promo-codes", summer)).body.data
      yield* InMemory.setPromoAddon(id, false)
      assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", "/v1/promo-codes", { code: "X1" })), [
        409,
        "addon_inactive"
      ])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, {})), [
        409,
        "addon_inactive"
      ])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("DELETE", `/v1/promo-codes/${created.id}`)), [
        409,
        "addon_inactive"
      ])
      const list = yield* dashboard.get("/v1/promo-codes")
      assert.deepStrictEqual([list.status, list.body.data.addon_enabled, list.body.data.items.length], [200, false, 1])
    })
  )

  it.effect("writes need an Idempotency-Key; a refusal is replayed with the same key even once fixed", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const base = dashboard
      const k = key()
      const first = yield* base.write(
        "POST",
        "/v1/promo-codes",
        { code: "DUP", discount_type: "fixed", discount_value: 5 },
        k
      )
      assert.strictEqual(first.status, 201)
      const taken = key()
      const refused = yield* base.write(
        "POST",
        "/v1/promo-codes",
        { code: "DUP", discount_type: "fixed", discount_value: 5 },
        taken
      )
      assert.deepStrictEqual(codeOf(refused), [409, "code_exists"])
      yield* base.write("DELETE", `/v1/promo-codes/${first.body.data.id}`)
      const again = yield* base.write(
        "POST",
        "/v1/promo-codes",
        { code: "DUP", discount_type: "fixed", discount_value: 5 },
        taken
      )
      assert.deepStrictEqual([...codeOf(again), again.headers.get("idempotency-replay")], [409, "code_exists", "1"])
      const fresh = yield* base.write("POST", "/v1/promo-codes", {
        code: "DUP",
        discount_type: "fixed",
        discount_value: 5
      })
      assert.strictEqual(fresh.status, 201)
      const reuse = yield* base.write(
        "POST",
        "/v1/promo-codes",
        { code: "OTHER", discount_type: "fixed", discount_value: 5 },
        k
      )
      assert.deepStrictEqual(codeOf(reuse), [422, "idempotency_key_reuse"])
    })
  )

  it.effect("path ids: digits only (400), past any code or 0 (404), for PATCH and DELETE", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      for (const method of ["PATCH", "DELETE"]) {
        const letters = yield* dashboard.write(method, "/v1/promo-codes/abc", {})
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"],
          method
        )
        for (const id of ["0", "2147483647", "2147483648", "99999999999999999999"]) {
          assert.deepStrictEqual(codeOf(yield* dashboard.write(method, `/v1/promo-codes/${id}`, {})), [
            404,
            "not_found"
          ])
        }
      }
    })
  )
})
