/**
 * The engine under test over each implementation of its port: memory, and SQL on every database of `TestDatabase`
 * (embedded always, the real server with `DATABASE_URL`), migrated; with the `note` and `layout` entities.
 */
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Layer } from "effect"
import * as ChangeLog from "../src/ChangeLog.ts"
import * as ChangeStore from "../src/ChangeStore.ts"
import * as ChangeStoreSql from "../src/ChangeStoreSql.ts"
import * as Changes from "../src/Changes.ts"
import * as Fixtures from "./Fixtures.ts"

export const backends = TestDatabase.backends

export const migrated = TestDatabase.migrated

/** `Changes`, the log and the notes over a change store. */
export const engine = <E, R>(store: Layer.Layer<ChangeStore.ChangeStore, E, R>) =>
  Changes.layer.pipe(
    Layer.provideMerge(Fixtures.entitiesLayer),
    Layer.provideMerge(Fixtures.notesLayer),
    Layer.provideMerge(Fixtures.cardsLayer),
    Layer.provideMerge(ChangeLog.layer),
    Layer.provideMerge(store)
  )

export const memory = engine(ChangeStore.layerMemory).pipe(Layer.provideMerge(Fixtures.fixturesMemory))

export const sql = (backend: TestDatabase.Backend) =>
  engine(ChangeStoreSql.layer).pipe(Layer.provideMerge(Fixtures.fixturesSql), Layer.provideMerge(migrated(backend)))
