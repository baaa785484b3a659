/**
 * The record each start of the app leaves in the database (`app_instances`): when, where, which version.
 */
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

export class AppInstance extends Schema.Class<AppInstance>("@tawsil/storage/AppInstance")({
  id: Schema.String,
  startedAt: Schema.Date,
  hostname: Schema.String,
  pid: Schema.Int,
  version: Schema.String
}) {}

const Row = Schema.Struct({
  id: Schema.BigInt,
  started_at: Schema.Date,
  hostname: Schema.String,
  pid: Schema.Int,
  version: Schema.String
})

const fromRow = (row: typeof Row.Type) =>
  new AppInstance({
    id: String(row.id),
    startedAt: row.started_at,
    hostname: row.hostname,
    pid: row.pid,
    version: row.version
  })

/** Inserts this start's row and returns it. */
export const register = Effect.fn("AppInstance.register")(function* (input: {
  readonly hostname: string
  readonly pid: number
  readonly version: string
}) {
  const sql = yield* SqlClient.SqlClient
  const insert = SqlSchema.findOne({
    Request: Schema.Struct({ hostname: Schema.String, pid: Schema.Int, version: Schema.String }),
    Result: Row,
    execute: (request) =>
      sql`INSERT INTO app_instances ${sql.insert(request)} RETURNING id, started_at, hostname, pid, version`
  })
  return fromRow(yield* insert(input).pipe(Effect.orDie))
})

/** The row with this id, if any. */
export const find = Effect.fn("AppInstance.find")(function* (id: string) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`SELECT id, started_at, hostname, pid, version FROM app_instances WHERE id = ${id}`.pipe(
    Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Row))),
    Effect.orDie
  )
  return rows.map(fromRow)[0]
})
