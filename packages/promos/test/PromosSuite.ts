/**
 * The contract of `Promos`, `Redemptions` and the `promo_code` entity over a `PromoStore`, from the spec's promo
 * code rules and our decisions (docs/promo-codes.md), run against every implementation of the port.
 */
import { assert, type Vitest } from "@effect/vitest"
import { type ChangeLog, Changes } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { BigDecimal, Effect, Schema } from "effect"
import { PromoAddon } from "../src/PromoAddon.ts"
import { PromoCode } from "../src/PromoCode.ts"
import type { PromoStore } from "../src/PromoStore.ts"
import { Promos, type Writer } from "../src/Promos.ts"
import { Redemptions } from "../src/Redemptions.ts"
import { Fixtures } from "./Backends.ts"

type Services = Promos | Redemptions | PromoAddon | PromoStore | Changes.Changes | ChangeLog.ChangeLog | Fixtures

const writer = (storeId: Ids.StoreId, dashboardKey = false): Writer => ({
  storeId,
  keyId: "twpk_live_promotest000000",
  dashboardKey
})

const reasonOf = <A, R>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string } }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)

const wire = Schema.encodeSync(PromoCode)

export const PromosSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("creates, lists, updates and deletes codes, each write recorded with its values", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const created = yield* promos.create(writer(store), {
        code: "summer10",
        discount_type: "percentage",
        discount_value: 10,
        min_order_amount: 2000,
        max_uses: 50
      })
      assert.deepStrictEqual(
        { ...wire(created), created_at: "", updated_at: "" },
        {
          id: created.id,
          code: "SUMMER10",
          discount_type: "percentage",
          discount_value: 10,
          min_order_amount: 2000,
          max_uses: 50,
          used_count: 0,
          is_active: true,
          starts_at: null,
          expires_at: null,
          created_at: "",
          updated_at: ""
        }
      )
      const second = yield* promos.create(writer(store), { code: "FIX", discount_type: "fixed", discount_value: 300 })
      const list = yield* promos.list(store)
      assert.deepStrictEqual(
        list.items.map((item) => item.code),
        ["FIX", "SUMMER10"]
      )
      assert.isTrue(list.addon_enabled)
      assert.deepStrictEqual(
        (yield* promos.list(store, { is_active: "no" })).items.map((item) => item.code),
        []
      )
      const updated = yield* promos.update(writer(store), created.id, { discount_value: 15, is_active: false })
      assert.strictEqual(BigDecimal.format(updated.discount_value), "15")
      assert.deepStrictEqual(
        (yield* promos.list(store, { is_active: "on" })).items.map((item) => item.code),
        ["FIX"]
      )
      // Only the spec's words as written: another letter case or a space is not one of them.
      for (const raw of ["ON", "True", " yes", "1 "]) {
        assert.deepStrictEqual(
          (yield* promos.list(store, { is_active: raw })).items.map((item) => item.code),
          ["SUMMER10"],
          JSON.stringify(raw)
        )
      }
      assert.deepStrictEqual(
        (yield* promos.list(store, { is_active: "false" })).items.map((item) => item.code),
        ["SUMMER10"]
      )
      assert.deepStrictEqual(yield* promos.remove(writer(store), second.id), { deleted: true, id: second.id })
      const history = (yield* changes.list(store)).items
      assert.deepStrictEqual(
        history.map((item) => [item.entity, item.action, item.summary]),
        [
          ["promo_code", "delete", "Deleted promo code FIX"],
          ["promo_code", "update", "Updated promo code SUMMER10 (discount_value, is_active)"],
          ["promo_code", "create", "Created promo code FIX"],
          ["promo_code", "create", "Created promo code SUMMER10"]
        ]
      )
      const actor = { storeId: store, keyId: null, scopes: ["promos:read", "promos:write"] }
      const update = yield* changes.get(actor, history[1]!.id)
      assert.strictEqual(update.key_id, "twpk_live_promotest000000")
      assert.deepStrictEqual(
        [
          (update.before as { discount_value: number }).discount_value,
          (update.after as { is_active: boolean }).is_active
        ],
        [10, false]
      )
    })
  )

  it.effect("refuses a taken text, another store's code and writes while the add-on is off", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const addon = yield* PromoAddon
      const store = yield* (yield* Fixtures).newStore
      const other = yield* (yield* Fixtures).newStore
      const first = yield* promos.create(writer(store), { code: "A1", discount_type: "fixed", discount_value: 100 })
      const second = yield* promos.create(writer(store), { code: "B2", discount_type: "fixed", discount_value: 100 })
      assert.strictEqual(
        yield* reasonOf(promos.create(writer(store), { code: " a1 ", discount_type: "fixed", discount_value: 1 })),
        "CodeExists"
      )
      yield* promos.create(writer(other), { code: "A1", discount_type: "fixed", discount_value: 1 })
      assert.strictEqual(yield* reasonOf(promos.update(writer(store), second.id, { code: "a1" })), "CodeExists")
      assert.strictEqual((yield* promos.update(writer(store), first.id, { code: "A1" })).code, "A1", "its own text")
      assert.strictEqual(yield* reasonOf(promos.update(writer(other), first.id, { is_active: false })), "PromoNotFound")
      assert.strictEqual(yield* reasonOf(promos.remove(writer(other), first.id)), "PromoNotFound")
      for (const id of [99_999_999_999, Ids.MAX_ID + 1, 0]) {
        assert.strictEqual(yield* reasonOf(promos.update(writer(store), id, {})), "PromoNotFound", String(id))
        assert.strictEqual(yield* reasonOf(promos.remove(writer(store), id)), "PromoNotFound", String(id))
      }
      yield* addon.set(store, false)
      assert.isFalse(yield* addon.isActive(store))
      assert.strictEqual(
        yield* reasonOf(promos.create(writer(store), { code: "C3", discount_type: "fixed", discount_value: 1 })),
        "AddonInactive"
      )
      assert.strictEqual(yield* reasonOf(promos.update(writer(store), first.id, {})), "AddonInactive")
      assert.strictEqual(yield* reasonOf(promos.remove(writer(store), first.id)), "AddonInactive")
      assert.isFalse((yield* promos.list(store)).addon_enabled, "reads still work")
      yield* addon.set(store, true)
      yield* promos.remove(writer(store), first.id)
    })
  )

  it.effect("an empty PATCH changes and records nothing", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const changes = yield* Changes.Changes
      const store = yield* (yield* Fixtures).newStore
      const created = yield* promos.create(writer(store), { code: "SAME", discount_type: "fixed", discount_value: 100 })
      const same = yield* promos.update(writer(store), created.id, {})
      assert.deepStrictEqual(wire(same), wire(created))
      yield* promos.update(writer(store), created.id, { discount_value: 100 })
      assert.strictEqual((yield* changes.list(store)).items.length, 1)
    })
  )

  it.effect("a 100% code needs a single-use confirmation, or a dashboard key's confirm_full_discount", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const store = yield* (yield* Fixtures).newStore
      const body = { code: "FREE", discount_type: "percentage", discount_value: 100 }
      const required = yield* Effect.flip(promos.create(writer(store), body))
      assert.strictEqual(required.reason._tag, "ConfirmationRequired")
      const first = required.reason as unknown as {
        confirmToken: string
        expiresIn: number
        action: string
        willChange: unknown
      }
      assert.strictEqual(first.expiresIn, 600)
      assert.strictEqual(first.action, "promo.full_discount:new")
      assert.deepStrictEqual((first.willChange as { code: string }).code, "FREE")
      assert.deepStrictEqual((yield* promos.list(store)).items, [], "nothing written")
      // A token for another code is stale, with a fresh token.
      const mismatch = yield* Effect.flip(
        promos.create(writer(store), { ...body, code: "OTHER", confirm_token: first.confirmToken })
      )
      assert.strictEqual(mismatch.reason._tag, "ConfirmationStale")
      assert.notStrictEqual((mismatch.reason as unknown as { confirmToken: string }).confirmToken, first.confirmToken)
      const created = yield* promos.create(writer(store), { ...body, confirm_token: first.confirmToken })
      assert.strictEqual(created.code, "FREE")
      yield* promos.remove(writer(store), created.id)
      const reused = yield* Effect.flip(promos.create(writer(store), { ...body, confirm_token: first.confirmToken }))
      assert.strictEqual(reused.reason._tag, "ConfirmationStale", "a token is used once")
      // Only a dashboard-created key may skip the round trip; for any other key the flag is ignored.
      assert.strictEqual(
        yield* reasonOf(promos.create(writer(store), { ...body, confirm_full_discount: true })),
        "ConfirmationRequired"
      )
      const skipped = yield* promos.create(writer(store, true), { ...body, confirm_full_discount: true })
      // An update to 100% is confirmed for that code; other updates of a 100% code need nothing.
      const fixed = yield* promos.create(writer(store), {
        code: "HALF",
        discount_type: "percentage",
        discount_value: 50
      })
      const update = yield* Effect.flip(promos.update(writer(store), fixed.id, { discount_value: 100 }))
      assert.strictEqual(update.reason._tag, "ConfirmationRequired")
      const token = update.reason as unknown as { confirmToken: string; action: string; willChange: { action: string } }
      assert.strictEqual(token.action, `promo.full_discount:${fixed.id}`)
      assert.strictEqual(token.willChange.action, `Change promo code #${fixed.id} to make orders free`)
      yield* promos.update(writer(store), fixed.id, { discount_value: 100, confirm_token: token.confirmToken })
      yield* promos.update(writer(store), skipped.id, { is_active: false, min_order_amount: 500 })
    })
  )

  it.effect("redeems codes at checkout by their rules, counting each use", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const redemptions = yield* Redemptions
      const addon = yield* PromoAddon
      const store = yield* (yield* Fixtures).newStore
      yield* promos.create(writer(store), {
        code: "TEN",
        discount_type: "percentage",
        discount_value: 10,
        min_order_amount: 1000,
        max_uses: 2
      })
      const subtotal = BigDecimal.fromBigInt(4500n)
      const first = yield* redemptions.redeem(store, " ten ", subtotal)
      assert.strictEqual(BigDecimal.format(BigDecimal.normalize(first.discount)), "450")
      assert.strictEqual(first.usedCount, 1)
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "TEN", BigDecimal.fromBigInt(999n))), "BelowMinimum")
      yield* redemptions.redeem(store, "TEN", subtotal)
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "TEN", subtotal)), "UsesExhausted")
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "NOPE", subtotal)), "CodeUnknown")
      const paused = yield* promos.create(writer(store), {
        code: "OFF",
        discount_type: "fixed",
        discount_value: 5,
        is_active: false
      })
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "OFF", subtotal)), "CodeInactive")
      yield* promos.update(writer(store), paused.id, { is_active: true, starts_at: "2099-01-01" })
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "OFF", subtotal)), "CodeNotStarted")
      yield* addon.set(store, false)
      assert.strictEqual(yield* reasonOf(redemptions.redeem(store, "TEN", subtotal)), "PromosOff")
      yield* addon.set(store, true)
      // Pausing keeps used_count.
      const [ten] = (yield* promos.list(store, { is_active: "1" })).items.filter((item) => item.code === "TEN")
      assert.strictEqual(ten!.used_count, 2)
    })
  )

  it.effect("an undo restores earlier values without confirmation; a deleted code returns with id and uses", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const redemptions = yield* Redemptions
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const actor = { storeId: store, keyId: null, scopes: ["promos:read", "promos:write"] }
      const free = yield* promos.create(writer(store, true), {
        code: "FREE",
        discount_type: "percentage",
        discount_value: 100,
        confirm_full_discount: true,
        expires_at: "2099-01-01"
      })
      yield* promos.update(writer(store), free.id, { discount_value: 20 })
      const [update] = (yield* changes.list(store, { limit: "1" })).items
      yield* fixtures.transaction(changes.undo(actor, update!.id))
      const restored = (yield* promos.list(store)).items[0]!
      assert.strictEqual(BigDecimal.format(BigDecimal.normalize(restored.discount_value)), "100", "no confirmation")
      yield* redemptions.redeem(store, "FREE", BigDecimal.fromBigInt(100n))
      yield* promos.remove(writer(store), free.id)
      const [deletion] = (yield* changes.list(store, { limit: "1" })).items
      yield* fixtures.transaction(changes.undo(actor, deletion!.id))
      const back = (yield* promos.list(store)).items[0]!
      // Recorded values are the wire form: times to the second, as the API shows them.
      assert.deepStrictEqual(
        [back.id, back.code, back.used_count, wire(back).created_at],
        [free.id, "FREE", 1, wire(free).created_at]
      )
      // An update of a deleted code cannot be restored.
      yield* promos.update(writer(store), free.id, { max_uses: 10 })
      const [later] = (yield* changes.list(store, { limit: "1" })).items
      yield* promos.remove(writer(store), free.id)
      assert.strictEqual(yield* reasonOf(fixtures.transaction(changes.undo(actor, later!.id))), "RestoreTargetMissing")
      // A deleted code whose text was taken since is refused as its create would be.
      const [removal] = (yield* changes.list(store, { limit: "1" })).items
      yield* promos.create(writer(store), { code: "FREE", discount_type: "fixed", discount_value: 1 })
      assert.strictEqual(yield* reasonOf(fixtures.transaction(changes.undo(actor, removal!.id))), "CodeExists")
      assert.isFalse((yield* changes.get(actor, removal!.id)).undone)
    })
  )

  it.effect("an update records the fields it changed; its undo writes back those only, through the pair rule", () =>
    Effect.gen(function* () {
      const promos = yield* Promos
      const changes = yield* Changes.Changes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const actor = { storeId: store, keyId: null, scopes: ["promos:read", "promos:write"] }
      const code = yield* promos.create(writer(store), { code: "TEN", discount_type: "fixed", discount_value: 500 })
      yield* promos.update(writer(store), code.id, { discount_value: 600, max_uses: 5 })
      const [a] = (yield* changes.list(store, { limit: "1" })).items
      const detail = yield* changes.get(actor, a!.id)
      assert.deepStrictEqual(
        [detail.before, detail.after],
        [
          { id: code.id, discount_value: 500, max_uses: null },
          { id: code.id, discount_value: 600, max_uses: 5 }
        ]
      )
      // A later change of another field is kept by the undo.
      yield* promos.update(writer(store), code.id, { is_active: false })
      const undone = yield* fixtures.transaction(changes.undo(actor, a!.id))
      const [after] = (yield* promos.list(store)).items
      assert.deepStrictEqual([wire(after!).discount_value, after!.max_uses, after!.is_active], [500, null, false])
      // The undo of the undo applies the update again; a later switch to a percentage makes its 600 refused.
      yield* promos.update(writer(store), code.id, { discount_type: "percentage", discount_value: 50 })
      assert.strictEqual(
        yield* reasonOf(fixtures.transaction(changes.undo(actor, undone.undo_change_id!))),
        "InvalidDiscountValue"
      )
      assert.isFalse((yield* changes.get(actor, undone.undo_change_id!)).undone, "refused: still undoable")
      yield* promos.update(writer(store), code.id, { discount_type: "fixed" })
      yield* fixtures.transaction(changes.undo(actor, undone.undo_change_id!))
      const [again] = (yield* promos.list(store)).items
      assert.deepStrictEqual([wire(again!).discount_value, again!.max_uses], [600, 5])
    })
  )
}
