/**
 * Every place the app keeps sealed values, as a key rotation walks them: one `Resealing.run` over each table column
 * holding values sealed by `@tawsil/secrets`. A package that stores a sealed value adds its column's walk here, so
 * that `npm run admin -- secrets reseal` and `secrets rotate` re-seal it (docs/operations.md "Secret key").
 */
import { Resealing, type Secrets, type SecretsError } from "@tawsil/secrets"
import { CourierAccountStoreSql, CourierAccounts } from "@tawsil/shipments"
import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

export type Walk = Effect.Effect<
  Resealing.Report,
  SqlError.SqlError | SecretsError.SecretsError,
  Secrets.Secrets | SqlClient.SqlClient
>

/** The walks, one per column holding sealed values. */
export const walks: ReadonlyArray<Walk> = CourierAccounts.sealedColumns.map((column) =>
  Resealing.run(column).pipe(Effect.provide(CourierAccountStoreSql.layer))
)

/** One pass over every column, one after the other. */
export const pass = Effect.all(walks, { concurrency: 1 })
