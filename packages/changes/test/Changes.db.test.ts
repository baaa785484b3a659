import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as ChangeLog from "../src/ChangeLog.ts"
import * as ChangeStore from "../src/ChangeStore.ts"
import { Changes } from "../src/Changes.ts"
import { backends, engine, memory, sql } from "./Backends.ts"
import { ChangesSuite } from "./ChangesSuite.ts"
import { Fixtures, fixturesMemory, KEY_ID, Notes } from "./Fixtures.ts"

layer(memory)("Changes (memory)", (it) => {
  ChangesSuite(it)
})

/** 50 undos of one change at once, each in its own transaction: exactly one runs, the others are refused. */
const race = Effect.gen(function* () {
  const changes = yield* Changes
  const notes = yield* Notes
  const fixtures = yield* Fixtures
  const store = yield* fixtures.newStore
  const id = yield* notes.create(store, "before")
  yield* notes.update(store, id, "after")
  const [change] = (yield* changes.list(store, { limit: "1" })).items
  const outcomes = yield* Effect.all(
    Array.from({ length: 50 }, () =>
      fixtures
        .transaction(changes.undo({ storeId: store, keyId: KEY_ID, scopes: ["notes:write"] }, change!.id))
        .pipe(Effect.result)
    ),
    { concurrency: "unbounded" }
  )
  const succeeded = outcomes.filter((outcome) => outcome._tag === "Success")
  const refused = outcomes.flatMap((outcome) => (outcome._tag === "Failure" ? [outcome.failure.reason._tag] : []))
  assert.strictEqual(succeeded.length, 1)
  assert.deepStrictEqual(new Set(refused), new Set(["AlreadyUndone"]))
  assert.strictEqual(refused.length, 49)
  assert.deepStrictEqual(yield* notes.read(store, id), Option.some({ text: "before" }))
  // One undo recorded, one change undone.
  const listed = (yield* changes.list(store)).items
  assert.deepStrictEqual(
    listed.map((item) => [item.summary, item.undone]),
    [
      [`Undo of change #${change!.id}`, false],
      [`update note ${id}`, true],
      [`create note ${id}`, false]
    ]
  )
})

it.effect("Changes (memory): of 50 simultaneous undos exactly one runs", () => race.pipe(Effect.provide(memory)))

for (const backend of backends) {
  layer(sql(backend), { excludeTestServices: true, timeout: "90 seconds" })(`Changes (sql, ${backend.name})`, (it) => {
    ChangesSuite(it)

    it.effect("of 50 simultaneous undos exactly one runs", () => race)

    it.effect("a claim rolled back with its transaction leaves the change undoable", () =>
      Effect.gen(function* () {
        const changes = yield* Changes
        const notes = yield* Notes
        const fixtures = yield* Fixtures
        const store = yield* fixtures.newStore
        const id = yield* notes.create(store, "a")
        yield* notes.update(store, id, "b")
        const [change] = (yield* changes.list(store, { limit: "1" })).items
        const actor = { storeId: store, keyId: KEY_ID, scopes: ["notes:write", "notes:read"] }
        // The HTTP layer's transaction fails after the undo (a defect stands in for any later failure).
        const exit = yield* fixtures
          .transaction(Effect.andThen(changes.undo(actor, change!.id), Effect.die("boom")))
          .pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure")
        assert.isFalse((yield* changes.get(actor, change!.id)).undone)
        yield* fixtures.transaction(changes.undo(actor, change!.id))
        assert.isTrue((yield* changes.get(actor, change!.id)).undone)
      })
    )
  })
}

describe("ChangeLog", () => {
  it.effect("records an entity's write through its recorder, the entity named once", () =>
    Effect.gen(function* () {
      const store = yield* ChangeStore.ChangeStore
      const storeId = yield* (yield* Fixtures).newStore
      const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, "note")
      const id = yield* record({ storeId, keyId: KEY_ID }, "update", 7, "Updated note 7", { text: "a" }, { text: "b" })
      assert.isNotNull(id)
      const kept = Option.getOrThrow(yield* store.get(storeId, id!))
      assert.deepStrictEqual(
        [kept.entity, kept.entityId, kept.action, kept.summary, kept.keyId, kept.before, kept.after],
        ["note", "7", "update", "Updated note 7", KEY_ID, { text: "a" }, { text: "b" }]
      )
    }).pipe(Effect.provide(engine(ChangeStore.layerMemory).pipe(Layer.provideMerge(fixturesMemory))))
  )

  it.effect("with recording off keeps nothing, and an undo answers no undo change", () =>
    Effect.gen(function* () {
      const log = yield* ChangeLog.ChangeLog
      const store = yield* ChangeStore.ChangeStore
      const fixtures = yield* Fixtures
      const storeId = yield* fixtures.newStore
      const id = yield* log.record({
        storeId,
        entity: "note",
        entityId: "1",
        action: "create",
        summary: "create note 1",
        keyId: null,
        before: null,
        after: { text: "a" }
      })
      assert.isNull(id)
      assert.deepStrictEqual(yield* store.list(storeId, { limit: 10, afterId: undefined, entity: undefined }), [])
    }).pipe(
      Effect.provide(
        engine(ChangeStore.layerMemory).pipe(
          Layer.provideMerge(fixturesMemory),
          Layer.provide(Layer.succeed(ChangeLog.Recording, false))
        )
      )
    )
  )
})
