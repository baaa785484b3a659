/** The courier account store on PostgreSQL (table `courier_accounts` of storage migration 0017), needing only `SqlClient`. */
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { AccountRecord } from "./CourierAccount.ts"
import { CourierAccountStore } from "./CourierAccountStore.ts"

const Row = Schema.Struct({
  id: Schema.Int,
  store_id: Schema.Int,
  courier: Schema.String,
  label: Schema.String,
  base_url: Schema.NullOr(Schema.String),
  credentials: Schema.String,
  webhook_secret: Schema.NullOr(Schema.String),
  fingerprint: Schema.String,
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})

const SealedRow = Schema.Struct({ id: Schema.Int, store_id: Schema.Int, courier: Schema.String, sealed: Schema.String })

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const decodeSealed = Schema.decodeUnknownEffect(Schema.Array(SealedRow))

const recordOf = (row: typeof Row.Type): AccountRecord => ({
  id: row.id,
  storeId: row.store_id,
  courier: row.courier,
  label: row.label,
  baseUrl: row.base_url,
  credentials: row.credentials,
  webhookSecret: row.webhook_secret,
  fingerprint: row.fingerprint,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

const columns =
  "id, store_id, courier, label, base_url, credentials, webhook_secret, fingerprint, created_at, updated_at"

export const layer: Layer.Layer<CourierAccountStore, never, SqlClient.SqlClient> = Layer.effect(
  CourierAccountStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const all = sql.literal(columns)
    const rows = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
      query.pipe(
        Effect.orDie,
        Effect.flatMap((found) => Effect.orDie(decodeRows(found))),
        Effect.map((found) => found.map(recordOf))
      )
    const column = (name: "credentials" | "webhook_secret") => sql(name)
    return CourierAccountStore.of({
      insert: (account) =>
        Effect.map(
          rows(sql`
            INSERT INTO courier_accounts (store_id, courier, label, base_url, credentials, webhook_secret, fingerprint)
            VALUES (${account.storeId}, ${account.courier}, ${account.label}, ${account.baseUrl}::text,
              ${account.credentials}, ${account.webhookSecret}::text, ${account.fingerprint})
            RETURNING ${all}`),
          (inserted) => inserted[0]!
        ),
      list: (storeId) => rows(sql`SELECT ${all} FROM courier_accounts WHERE store_id = ${storeId} ORDER BY id`),
      find: (storeId, id) =>
        Effect.map(
          rows(sql`SELECT ${all} FROM courier_accounts WHERE store_id = ${storeId} AND id = ${id}`),
          (found) => found[0]
        ),
      findById: (id) =>
        Effect.map(rows(sql`SELECT ${all} FROM courier_accounts WHERE id = ${id}`), (found) => found[0]),
      remove: (storeId, id) =>
        sql`DELETE FROM courier_accounts WHERE store_id = ${storeId} AND id = ${id} RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((deleted) => deleted.length > 0)
        ),
      sealedPage: (name, { after, limit, skip }) =>
        sql`
          SELECT id, store_id, courier, ${column(name)} AS sealed FROM courier_accounts
          WHERE id > ${after ?? 0} AND ${column(name)} IS NOT NULL AND left(${column(name)}, ${skip.length}) <> ${skip}
          ORDER BY id LIMIT ${limit}`.pipe(
          Effect.orDie,
          Effect.flatMap((found) => Effect.orDie(decodeSealed(found))),
          Effect.map((found) =>
            found.map((row) => ({ id: row.id, storeId: row.store_id, courier: row.courier, sealed: row.sealed }))
          )
        ),
      replaceSealed: (name, id, was, resealed) =>
        sql`
          UPDATE courier_accounts SET ${column(name)} = ${resealed}
          WHERE id = ${id} AND ${column(name)} = ${was} RETURNING id`.pipe(
          Effect.orDie,
          Effect.map((updated) => updated.length > 0)
        )
    })
  })
)
