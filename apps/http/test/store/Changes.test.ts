/**
 * The change history and undo through the store API in memory (`src/store/changes`; spec store-api-config "Change
 * history", "Undo rules"): list and detail with their scopes, installed-app tokens refused, every undo rule and
 * code, the replay of an undo. Simultaneous undos, undos that touch the database's own rows (a pixel's assignments)
 * and the exact-restore property are `../Changes.db.test.ts`'s, on both databases.
 */
import { assert, layer } from "@effect/vitest"
import { ChangeStore } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

/** The newest change of the store. */
const newest = (c: InMemory.Caller) => Effect.map(c.get("/v1/changes?limit=1"), (answer) => answer.body.data.items[0])

/** A change of an entity this server cannot undo, as the dashboard records one. */
const recordForeign = (storeId: number) =>
  Effect.flatMap(Effect.service(ChangeStore.ChangeStore), (store) =>
    store.insert({
      storeId: Ids.StoreId.make(storeId),
      entity: "lp.page",
      entityId: "12",
      action: "update",
      summary: "Landing page 12 renamed",
      keyId: null,
      before: { title: "Soldes" },
      after: { title: "Promo" },
      valuesRecorded: true,
      undoOf: null
    })
  )

const promo = { code: "SPRING", discount_type: "fixed", discount_value: 400 }

layer(InMemory.layer(), { excludeTestServices: true })("change history (memory)", (it) => {
  it.effect("lists changes newest first with their filters; detail needs the entity's read scope", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const id = dashboard.id
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
      const minted = yield* InMemory.apiKey(dashboard)
      assert.strictEqual((yield* minted.get("/v1/changes")).status, 200)
      const hidden = yield* minted.get(`/v1/changes/${update.id}`)
      assert.deepStrictEqual(
        [...codeOf(hidden), hidden.body.error.message],
        [403, "forbidden", "Missing scope: promos:read"]
      )
      assert.strictEqual((yield* minted.get(`/v1/changes/${first.id}`)).status, 200, "store.theme needs store:read")
      const noRead = yield* InMemory.keyWithScopes(id, ["promos:read"])
      assert.strictEqual((yield* noRead.get("/v1/changes")).body.error.message, "Missing scope: store:read")
      assert.deepStrictEqual(codeOf(yield* dashboard.get("/v1/changes/99999999")), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* dashboard.get("/v1/changes/abc")), [400, "bad_request"])
      const other = yield* createStore()
      assert.deepStrictEqual(codeOf(yield* other.get(`/v1/changes/${update.id}`)), [404, "not_found"])
      assert.strictEqual((yield* other.get("/v1/changes")).body.data.items.length, 0)
    })
  )

  it.effect("installed-app tokens get 403 on the change endpoints; their writes are recorded", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const id = dashboard.id
      const app = yield* InMemory.appToken(id, ["store:read", "store:write", "promos:read", "promos:write"])
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
      const noKey = yield* InMemory.call("POST", `/v1/changes/${change.id}/undo`, { token: app.token })
      assert.deepStrictEqual(codeOf(noKey), [403, "forbidden"])
    })
  )

  it.effect("undoes an update: earlier values back, recorded as an update, once only", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
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
      const dashboard = yield* createStore()
      const id = dashboard.id
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
      const row = yield* recordForeign(id)
      assert.deepStrictEqual(codeOf(yield* undo(row.id)), [422, "not_undoable"])
      assert.deepStrictEqual(codeOf(yield* undo(99_999_999)), [404, "not_found"])
      assert.deepStrictEqual(codeOf(yield* dashboard.write("POST", "/v1/changes/1x/undo")), [400, "bad_request"])
      // The add-on gate applies to a promo undo as to any promo write.
      yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { max_uses: 3 })
      const later = yield* newest(dashboard)
      yield* InMemory.setPromoAddon(id, false)
      assert.deepStrictEqual(codeOf(yield* undo(later.id)), [409, "addon_inactive"])
    })
  )

  it.effect("needs the entity's undo scope, not store:read; the same key for another change is 422", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      const id = dashboard.id
      const created = (yield* dashboard.write("POST", "/v1/promo-codes", promo)).body.data
      yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { max_uses: 7 })
      const first = yield* newest(dashboard)
      yield* dashboard.write("PATCH", `/v1/promo-codes/${created.id}`, { min_order_amount: 900 })
      const second = yield* newest(dashboard)
      const minted = yield* InMemory.apiKey(dashboard)
      const refused = yield* minted.write("POST", `/v1/changes/${second.id}/undo`)
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "Missing scope: promos:write"]
      )
      const undoOnly = yield* InMemory.keyWithScopes(id, ["promos:write"])
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

  it.effect("path ids: digits only (400), past any change or 0 (404), for the detail and the undo", () =>
    Effect.gen(function* () {
      const dashboard = yield* createStore()
      for (const at of [
        (id: string) => dashboard.get(`/v1/changes/${id}`),
        (id: string) => dashboard.write("POST", `/v1/changes/${id}/undo`)
      ]) {
        const letters = yield* at("abc")
        assert.deepStrictEqual(
          [...codeOf(letters), letters.body.error.message],
          [400, "bad_request", "Invalid path.id: must be all digits"]
        )
        for (const id of ["0", "2147483647", "2147483648", "99999999999999999999"]) {
          assert.deepStrictEqual(codeOf(yield* at(id)), [404, "not_found"], id)
        }
      }
    })
  )
})
