/**
 * What the suites need besides the engine: a fresh store per test, a transaction around a write like the HTTP
 * layer's (the SQL store's own; nothing for memory), and three recorded entities of our own making — `note`, undone
 * freely, `layout`, whose undo a later change blocks, and `card`, whose updates record the fields they changed —
 * kept in memory like any entity's storage would be.
 */
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as ChangeLogModule from "../src/ChangeLog.ts"
import { ChangeLog } from "../src/ChangeLog.ts"
import type { Entities, Entity } from "../src/Entity.ts"
import * as EntityModule from "../src/Entity.ts"

export class Fixtures extends Context.Service<
  Fixtures,
  {
    readonly newStore: Effect.Effect<Ids.StoreId>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("test/changes/Fixtures") {}

export const fixturesMemory: Layer.Layer<Fixtures> = Layer.sync(Fixtures, () => {
  let last = 0
  return Fixtures.of({ newStore: Effect.sync(() => Ids.StoreId.make(++last)), transaction: (effect) => effect })
})

export const fixturesSql: Layer.Layer<Fixtures, never, SqlClient.SqlClient> = Layer.effect(
  Fixtures,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return Fixtures.of({
      newStore: TestDatabase.newStore().pipe(
        Effect.map(Ids.StoreId.make),
        Effect.provideService(SqlClient.SqlClient, sql)
      ),
      transaction: TestDatabase.transaction(sql)
    })
  })
)

/** The refusal of the `note` entity's checks: a module error with a reason, as every entity raises. */
export class ForbiddenText extends Schema.TaggedError<ForbiddenText>()("ForbiddenText", { message: Schema.String }) {}
export class NoteError extends Schema.TaggedError<NoteError>()("NoteError", { reason: ForbiddenText }) {}

export interface Note {
  readonly text: string
}

/** Notes: an entity module in miniature, whose writes record their changes. */
export class Notes extends Context.Service<
  Notes,
  {
    readonly create: (storeId: Ids.StoreId, text: string, entity?: string) => Effect.Effect<string>
    readonly update: (storeId: Ids.StoreId, id: string, text: string, entity?: string) => Effect.Effect<void>
    readonly remove: (storeId: Ids.StoreId, id: string) => Effect.Effect<void>
    readonly read: (storeId: Ids.StoreId, id: string) => Effect.Effect<Option.Option<Note>>
    /** Writes a note without recording a change: what the entity's restore does (the engine records the undo). */
    readonly put: (storeId: Ids.StoreId, id: string, text: string) => Effect.Effect<void>
    /** The store's notes by id. */
    readonly all: (storeId: Ids.StoreId) => Effect.Effect<ReadonlyMap<string, string>>
  }
>()("test/changes/Notes") {}

export const KEY_ID = "twpk_live_test0000000000"

export const notesLayer: Layer.Layer<Notes, never, ChangeLog> = Layer.effect(
  Notes,
  Effect.gen(function* () {
    const log = yield* ChangeLog
    const notes = new Map<string, Note & { readonly storeId: Ids.StoreId }>()
    let last = 0
    const current = (storeId: Ids.StoreId, id: string) => {
      const note = notes.get(id)
      return note !== undefined && note.storeId === storeId ? { text: note.text } : null
    }
    const record = (
      storeId: Ids.StoreId,
      entity: string,
      entityId: string,
      action: "create" | "update" | "delete",
      before: Note | null,
      after: Note | null
    ) =>
      log.record({
        storeId,
        entity,
        entityId,
        action,
        summary: `${action} note ${entityId}`,
        keyId: KEY_ID,
        before,
        after
      })
    return Notes.of({
      create: (storeId, text, entity = "note") =>
        Effect.gen(function* () {
          const id = String(++last)
          notes.set(id, { storeId, text })
          yield* record(storeId, entity, id, "create", null, { text })
          return id
        }),
      update: (storeId, id, text, entity = "note") =>
        Effect.gen(function* () {
          const before = current(storeId, id)
          notes.set(id, { storeId, text })
          yield* record(storeId, entity, id, "update", before, { text })
        }),
      remove: (storeId, id) =>
        Effect.gen(function* () {
          const before = current(storeId, id)
          notes.delete(id)
          yield* record(storeId, "note", id, "delete", before, null)
        }),
      read: (storeId, id) => Effect.sync(() => Option.fromNullishOr(current(storeId, id))),
      put: (storeId, id, text) =>
        Effect.sync(() => {
          notes.set(id, { storeId, text })
        }),
      all: (storeId) =>
        Effect.sync(
          () =>
            new Map(
              [...notes.entries()].filter(([, note]) => note.storeId === storeId).map(([id, note]) => [id, note.text])
            )
        )
    })
  })
)

/** How the engine reads, validates and writes notes, registered under `name`; the text `forbidden` is refused. */
const noteEntity = (name: string, laterChangesBlockUndo?: (id: number) => string) =>
  Effect.map(
    Effect.service(Notes),
    (notes): Entity<Note> => ({
      name,
      readScope: "notes:read",
      undoScope: "notes:write",
      laterChangesBlockUndo,
      values: Schema.Struct({ text: Schema.String }),
      snapshot: (storeId, id) => notes.read(storeId, id),
      write: (storeId, id, values) =>
        values.text === "forbidden"
          ? Effect.fail(new NoteError({ reason: new ForbiddenText({ message: "This text is refused" }) }))
          : Effect.as(notes.put(storeId, id, values.text), id)
    })
  )

/** A card: two fields, and `style`, an object written key by key. */
export interface Card {
  readonly title: string
  readonly color: string
  readonly style: { readonly font: string; readonly size: number }
}

export const CARD_LAYOUT = { nested: ["style"] }

const CardValues = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  color: Schema.optionalKey(Schema.String),
  style: Schema.optionalKey(
    Schema.Struct({ font: Schema.optionalKey(Schema.String), size: Schema.optionalKey(Schema.Int) })
  )
})
type CardValues = typeof CardValues.Type

/** Cards: updates patch some fields, and hand the whole card before and after to the entity's recorder. */
export class Cards extends Context.Service<
  Cards,
  {
    readonly create: (storeId: Ids.StoreId, card: Card) => Effect.Effect<string>
    readonly update: (storeId: Ids.StoreId, id: string, patch: CardValues) => Effect.Effect<void>
    readonly read: (storeId: Ids.StoreId, id: string) => Effect.Effect<Option.Option<Card>>
    /** Writes a card without recording a change: what the entity's restore does (the engine records the undo). */
    readonly put: (storeId: Ids.StoreId, id: string, card: Card) => Effect.Effect<void>
  }
>()("test/changes/Cards") {}

const patched = (card: Card, patch: CardValues): Card => ({
  ...card,
  ...(patch.title === undefined ? {} : { title: patch.title }),
  ...(patch.color === undefined ? {} : { color: patch.color }),
  style: { ...card.style, ...patch.style }
})

export const cardsLayer: Layer.Layer<Cards, never, ChangeLog> = Layer.effect(
  Cards,
  Effect.gen(function* () {
    const record = ChangeLogModule.recorder(yield* ChangeLog, "card", CARD_LAYOUT)
    const cards = new Map<string, Card & { readonly storeId: Ids.StoreId }>()
    let last = 0
    const current = (storeId: Ids.StoreId, id: string): Card | undefined => {
      const found = cards.get(id)
      if (found === undefined || found.storeId !== storeId) return undefined
      const { storeId: _, ...card } = found
      return card
    }
    return Cards.of({
      create: (storeId, card) =>
        Effect.gen(function* () {
          const id = `c${++last}`
          cards.set(id, { ...card, storeId })
          yield* record({ storeId, keyId: KEY_ID }, "create", id, `create card ${id}`, null, card)
          return id
        }),
      update: (storeId, id, patch) =>
        Effect.gen(function* () {
          const before = current(storeId, id)!
          const after = patched(before, patch)
          cards.set(id, { ...after, storeId })
          yield* record({ storeId, keyId: KEY_ID }, "update", id, `update card ${id}`, before, after)
        }),
      read: (storeId, id) => Effect.sync(() => Option.fromNullishOr(current(storeId, id))),
      put: (storeId, id, card) =>
        Effect.sync(() => {
          cards.set(id, { ...card, storeId })
        })
    })
  })
)

const cardEntity = Effect.map(
  Effect.service(Cards),
  (cards): Entity<CardValues> => ({
    name: "card",
    readScope: "notes:read",
    undoScope: "notes:write",
    values: CardValues,
    layout: CARD_LAYOUT,
    snapshot: (storeId, id) => cards.read(storeId, id),
    write: (storeId, id, values) =>
      Effect.flatMap(cards.read(storeId, id), (found) =>
        Effect.as(cards.put(storeId, id, patched(Option.getOrThrow(found), values)), id)
      )
  })
)

export const entitiesLayer: Layer.Layer<Entities, never, Notes | Cards> = EntityModule.layer(
  noteEntity("note"),
  noteEntity("layout", (id) => `Layout changed after change #${id}; undo newest first`),
  cardEntity
)
