/**
 * The contract of the change history and its undo (spec "Change history", "Undo rules"), written against the
 * `note` and `layout` entities of `Fixtures`, run over every implementation of `ChangeStore`.
 */
import { assert, type Vitest } from "@effect/vitest"
import { Ids } from "@tawsil/domain"
import { Effect, Option } from "effect"
import { MAX_VALUES_BYTES } from "../src/Change.ts"
import { ChangeLog } from "../src/ChangeLog.ts"
import { type Actor, Changes } from "../src/Changes.ts"
import { Cards, Fixtures, KEY_ID, Notes } from "./Fixtures.ts"

type Services = Changes | ChangeLog | Notes | Cards | Fixtures

const actor = (storeId: Ids.StoreId, scopes = ["store:read", "notes:read", "notes:write"]): Actor => ({
  storeId,
  keyId: KEY_ID,
  scopes
})

/** The reason tag an effect fails with. */
const reasonOf = <A, R>(effect: Effect.Effect<A, { readonly reason: { readonly _tag: string } }, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason._tag)

/** The newest change of the store. */
const newest = (storeId: Ids.StoreId) =>
  Effect.map(
    Effect.flatMap(Effect.service(Changes), (changes) => changes.list(storeId, { limit: "1" })),
    (page) => page.items[0]!
  )

export const ChangesSuite = (it: Vitest.MethodsNonLive<Services>) => {
  it.effect("lists a store's changes newest first, by entity, in cursor pages", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const store = yield* (yield* Fixtures).newStore
      const other = yield* (yield* Fixtures).newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      yield* notes.create(store, "c", "layout")
      yield* notes.create(other, "elsewhere")
      const all = yield* changes.list(store)
      assert.deepStrictEqual(
        all.items.map((item) => [item.entity, item.action, item.undone]),
        [
          ["layout", "create", false],
          ["note", "update", false],
          ["note", "create", false]
        ]
      )
      assert.strictEqual(all.items[1]!.entity_id, id)
      assert.match(all.items[0]!.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      assert.isNull(all.items[0]!.undone_at)
      // `note` is not an entity of the spec's table: the filter ignores it; `promo_code` is one.
      assert.strictEqual((yield* changes.list(store, { entity: "note" })).items.length, 3)
      assert.strictEqual((yield* changes.list(store, { entity: "promo_code" })).items.length, 0)
      const first = yield* changes.list(store, { limit: "2" })
      assert.isTrue(first.has_more)
      const second = yield* changes.list(store, { limit: "2", cursor: first.next_cursor! })
      assert.deepStrictEqual(
        second.items.map((item) => item.action),
        ["create"]
      )
      assert.isFalse(second.has_more)
      assert.strictEqual((yield* changes.list(store, { limit: "0" })).items.length, 1, "limit clamped to 1")
      assert.strictEqual((yield* changes.list(store, { cursor: "garbage" })).items.length, 3)
    })
  )

  it.effect("defaults to 25 changes a page and never more than 100", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const store = yield* (yield* Fixtures).newStore
      const id = yield* notes.create(store, "0")
      for (let n = 1; n <= 101; n++) yield* notes.update(store, id, String(n))
      assert.strictEqual((yield* changes.list(store)).items.length, 25)
      assert.strictEqual((yield* changes.list(store, { limit: "abc" })).items.length, 25)
      assert.strictEqual((yield* changes.list(store, { limit: "500" })).items.length, 100)
    })
  )

  it.effect("shows a change's detail to a caller holding its entity's read scope", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const store = yield* (yield* Fixtures).newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      const change = yield* newest(store)
      const detail = yield* changes.get(actor(store), change.id)
      assert.deepStrictEqual(detail, {
        ...change,
        key_id: KEY_ID,
        undone_by_id: null,
        before: { text: "a" },
        after: { text: "b" }
      })
      assert.strictEqual(yield* reasonOf(changes.get(actor(store, ["store:read"]), change.id)), "MissingEntityScope")
      const other = yield* (yield* Fixtures).newStore
      assert.strictEqual(yield* reasonOf(changes.get(actor(other), change.id)), "ChangeNotFound")
      assert.strictEqual(yield* reasonOf(changes.get(actor(store), 999_999)), "ChangeNotFound")
      assert.strictEqual(yield* reasonOf(changes.get(actor(store), 99_999_999_999)), "ChangeNotFound")
      assert.strictEqual(yield* reasonOf(changes.get(actor(store), Ids.MAX_ID + 1)), "ChangeNotFound")
      assert.strictEqual(yield* reasonOf(changes.get(actor(store), 0)), "ChangeNotFound")
    })
  )

  it.effect("undoes an update: the earlier values written back, recorded as an update, the change linked", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      const change = yield* newest(store)
      const undone = yield* fixtures.transaction(changes.undo({ ...actor(store), scopes: ["notes:write"] }, change.id))
      assert.strictEqual(undone.undone, true)
      assert.strictEqual(undone.change_id, change.id)
      assert.strictEqual(undone.entity, "note")
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "a" }))
      const undo = yield* changes.get(actor(store), undone.undo_change_id!)
      assert.strictEqual(undo.summary, `Undo of change #${change.id}`)
      assert.strictEqual(undo.action, "update")
      assert.deepStrictEqual([undo.before, undo.after, undo.entity_id], [{ text: "b" }, { text: "a" }, id])
      const original = yield* changes.get(actor(store), change.id)
      assert.isTrue(original.undone)
      assert.isNotNull(original.undone_at)
      assert.strictEqual(original.undone_by_id, undone.undo_change_id)
      assert.strictEqual(yield* reasonOf(fixtures.transaction(changes.undo(actor(store), change.id))), "AlreadyUndone")
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "a" }))
    })
  )

  it.effect("an undo of an undo applies the original change's after again, whatever came between", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      const change = yield* newest(store)
      yield* notes.update(store, id, "c")
      const first = yield* fixtures.transaction(changes.undo(actor(store), change.id))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "a" }))
      // The undo replaced `c`, but undoing it applies the original change (`a` → `b`) again: `b`, not `c`.
      const undo = yield* changes.get(actor(store), first.undo_change_id!)
      assert.deepStrictEqual([undo.before, undo.after], [{ text: "c" }, { text: "a" }])
      const second = yield* fixtures.transaction(changes.undo(actor(store), first.undo_change_id!))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "b" }))
      const reapplied = yield* changes.get(actor(store), second.undo_change_id!)
      assert.deepStrictEqual([reapplied.before, reapplied.after], [{ text: "a" }, { text: "b" }])
      // And the undo of that applies the first undo again.
      yield* notes.update(store, id, "d")
      yield* fixtures.transaction(changes.undo(actor(store), second.undo_change_id!))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "a" }))
    })
  )

  it.effect("an update records the fields it changed; its undo writes back those only, keeping later ones", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const cards = yield* Cards
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* cards.create(store, { title: "T", color: "red", style: { font: "Inter", size: 12 } })
      yield* cards.update(store, id, { title: "T", color: "blue", style: { size: 14 } })
      const a = yield* newest(store)
      assert.deepStrictEqual(
        yield* Effect.map(changes.get(actor(store), a.id), (detail) => [detail.before, detail.after]),
        [
          { color: "red", style: { size: 12 } },
          { color: "blue", style: { size: 14 } }
        ]
      )
      yield* cards.update(store, id, { title: "U", style: { font: "Cairo" } })
      const undone = yield* fixtures.transaction(changes.undo(actor(store), a.id))
      assert.deepStrictEqual(
        yield* cards.read(store, id),
        Option.some({ title: "U", color: "red", style: { font: "Cairo", size: 12 } })
      )
      const undo = yield* changes.get(actor(store), undone.undo_change_id!)
      assert.deepStrictEqual(
        [undo.before, undo.after],
        [
          { color: "blue", style: { size: 14 } },
          { color: "red", style: { size: 12 } }
        ]
      )
      // A later change to the same field, then the undo of the undo: the original's values again.
      yield* cards.update(store, id, { color: "green" })
      yield* fixtures.transaction(changes.undo(actor(store), undone.undo_change_id!))
      assert.deepStrictEqual(
        yield* cards.read(store, id),
        Option.some({ title: "U", color: "blue", style: { font: "Cairo", size: 14 } })
      )
    })
  )

  it.effect("a create has nothing to restore; a delete is undone by re-creating the item", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "a")
      const created = yield* newest(store)
      assert.strictEqual(
        yield* reasonOf(fixtures.transaction(changes.undo(actor(store), created.id))),
        "NothingToRestore"
      )
      assert.isFalse((yield* changes.get(actor(store), created.id)).undone)
      yield* notes.remove(store, id)
      const deleted = yield* newest(store)
      assert.deepStrictEqual((yield* changes.get(actor(store), deleted.id)).after, null)
      const undone = yield* fixtures.transaction(changes.undo(actor(store), deleted.id))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "a" }))
      // The undo of a delete replaced nothing: undoing it has nothing to restore (spec rule 8).
      const undo = yield* changes.get(actor(store), undone.undo_change_id!)
      assert.deepStrictEqual([undo.before, undo.after], [null, { text: "a" }])
      assert.strictEqual(
        yield* reasonOf(fixtures.transaction(changes.undo(actor(store), undone.undo_change_id!))),
        "NothingToRestore"
      )
    })
  )

  it.effect("an update of an item deleted since cannot be restored, and stays undoable", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      const update = yield* newest(store)
      yield* notes.remove(store, id)
      assert.strictEqual(
        yield* reasonOf(fixtures.transaction(changes.undo(actor(store), update.id))),
        "RestoreTargetMissing"
      )
      assert.isFalse((yield* changes.get(actor(store), update.id)).undone)
    })
  )

  it.effect("the entity's refusal is its own error; the change is not marked undone and can be retried", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "forbidden")
      yield* notes.update(store, id, "fine")
      const update = yield* newest(store)
      const refused = yield* Effect.flip(fixtures.transaction(changes.undo(actor(store), update.id)))
      assert.strictEqual(refused._tag, "NoteError")
      assert.strictEqual(refused.reason._tag, "ForbiddenText")
      const after = yield* changes.get(actor(store), update.id)
      assert.isFalse(after.undone)
      assert.isNull(after.undone_by_id)
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "fine" }))
    })
  )

  it.effect("needs the entity's undo scope, not store:read", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "a")
      yield* notes.update(store, id, "b")
      const update = yield* newest(store)
      const refused = yield* Effect.flip(
        fixtures.transaction(changes.undo(actor(store, ["store:read", "store:write", "notes:read"]), update.id))
      )
      assert.strictEqual(refused.reason._tag, "MissingEntityScope")
      assert.strictEqual(refused.reason.message, "Missing scope: notes:write")
    })
  )

  it.effect("values over 256 KB: the write is recorded without them and cannot be undone", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "small")
      const huge = "x".repeat(MAX_VALUES_BYTES)
      yield* notes.update(store, id, huge)
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: huge }), "the write succeeded")
      const change = yield* newest(store)
      const detail = yield* changes.get(actor(store), change.id)
      assert.deepStrictEqual([detail.summary, detail.before, detail.after], [`update note ${id}`, null, null])
      const refused = yield* Effect.flip(fixtures.transaction(changes.undo(actor(store), change.id)))
      assert.strictEqual(refused.reason._tag, "NotUndoable")
      // Just under the limit (its JSON text is the value plus `{"text":""}`) is kept.
      const other = yield* notes.create(store, "small")
      yield* notes.update(store, other, "y".repeat(MAX_VALUES_BYTES - '{"text":""}'.length))
      assert.isNotNull((yield* changes.get(actor(store), (yield* newest(store)).id)).after)
    })
  )

  it.effect(
    "values jsonb could not keep (a NUL, a lone surrogate, in a value or a key) are recorded without them",
    () =>
      Effect.gen(function* () {
        const changes = yield* Changes
        const log = yield* ChangeLog
        const store = yield* (yield* Fixtures).newStore
        const cases: ReadonlyArray<readonly [unknown, unknown]> = [
          [{ name: "a\u0000b" }, { name: "ok" }],
          [null, { nested: [{ label: "\ud800" }] }],
          [{ "key\u0000": 1 }, null]
        ]
        for (const [before, after] of cases) {
          const id = yield* log.record({
            storeId: store,
            entity: "note",
            entityId: "7",
            action: "update",
            summary: "A write whose entity missed a refusal",
            keyId: KEY_ID,
            before,
            after
          })
          const detail = yield* changes.get(actor(store), id!)
          assert.deepStrictEqual([detail.before, detail.after], [null, null], JSON.stringify([before, after]))
          const refused = yield* Effect.flip(changes.undo(actor(store), id!))
          assert.strictEqual(refused.reason._tag, "NotUndoable")
        }
      })
  )

  it.effect("changes of an entity this process does not register cannot be undone", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const log = yield* ChangeLog
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* log.record({
        storeId: store,
        entity: "stock",
        entityId: "12",
        action: "update",
        summary: "Stock of product 12 set to 4",
        keyId: KEY_ID,
        before: { stock: 9 },
        after: { stock: 4 }
      })
      const refused = yield* Effect.flip(
        fixtures.transaction(changes.undo({ ...actor(store), scopes: ["store:write"] }, id!))
      )
      assert.strictEqual(refused.reason._tag, "NotUndoable")
    })
  )

  it.effect("an entity may refuse an undo while a later change stands; newest first walks back", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "v1", "layout")
      yield* notes.update(store, id, "v2", "layout")
      const second = yield* newest(store)
      yield* notes.update(store, id, "v3", "layout")
      const third = yield* newest(store)
      const refused = yield* Effect.flip(fixtures.transaction(changes.undo(actor(store), second.id)))
      assert.strictEqual(refused.reason._tag, "LaterChangeExists")
      assert.strictEqual(refused.reason.message, `Layout changed after change #${second.id}; undo newest first`)
      yield* fixtures.transaction(changes.undo(actor(store), third.id))
      yield* fixtures.transaction(changes.undo(actor(store), second.id))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "v1" }))
    })
  )

  it.effect("a change re-applied by the undo of its undo counts as a later change; walking back still works", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const undo = (id: number) => fixtures.transaction(changes.undo(actor(store), id))
      const id = yield* notes.create(store, "v0", "layout")
      yield* notes.update(store, id, "v1", "layout")
      const c1 = yield* newest(store)
      yield* notes.update(store, id, "v2", "layout")
      const c2 = yield* newest(store)
      const u1 = yield* undo(c2.id)
      const u2 = yield* undo(u1.undo_change_id!)
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "v2" }))
      assert.strictEqual(yield* reasonOf(undo(c1.id)), "LaterChangeExists")
      // The re-application walked back (an odd number of undos from c2): c1 is the newest standing change.
      yield* undo(u2.undo_change_id!)
      yield* undo(c1.id)
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "v0" }))
    })
  )

  it.effect("an undo of an older layout change made after the one undone counts as a later change", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const undo = (id: number) => fixtures.transaction(changes.undo(actor(store), id))
      const id = yield* notes.create(store, "v0", "layout")
      yield* notes.update(store, id, "v1", "layout")
      const c1 = yield* newest(store)
      yield* notes.update(store, id, "v2", "layout")
      const c2 = yield* newest(store)
      yield* undo(c2.id)
      yield* undo(c1.id)
      // c1's undo reverted a change older than c2's undo: undoing c2's undo must wait for it.
      const [, c2Undo] = (yield* changes.list(store, { limit: "3" })).items
      assert.strictEqual(yield* reasonOf(undo(c2Undo!.id)), "LaterChangeExists")
    })
  )

  it.effect("other entities write back whatever came later (undo newest first to walk back)", () =>
    Effect.gen(function* () {
      const changes = yield* Changes
      const notes = yield* Notes
      const fixtures = yield* Fixtures
      const store = yield* fixtures.newStore
      const id = yield* notes.create(store, "v1")
      yield* notes.update(store, id, "v2")
      const second = yield* newest(store)
      yield* notes.update(store, id, "v3")
      yield* fixtures.transaction(changes.undo(actor(store), second.id))
      assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "v1" }))
    })
  )
}
