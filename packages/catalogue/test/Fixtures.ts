/**
 * What the suites need besides the services under test: a fresh store per test (so lists start empty), and a
 * transaction around a write like the HTTP layer's (the SQL store's own; nothing for memory).
 */
import { Ids } from "@tawsil/domain"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export class Fixtures extends Context.Service<
  Fixtures,
  {
    readonly newStore: Effect.Effect<Ids.StoreId>
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("test/catalogue/Fixtures") {}

export const layerMemory: Layer.Layer<Fixtures> = Layer.sync(Fixtures, () => {
  let last = 0
  return Fixtures.of({
    newStore: Effect.sync(() => Ids.StoreId.make(++last)),
    transaction: (effect) => effect
  })
})

/** Stores are rows of `stores` (the products' and pages' foreign key needs them). */
export const layerSql: Layer.Layer<Fixtures, never, SqlClient.SqlClient> = Layer.effect(
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
