/**
 * The usage store on PostgreSQL (tables `rate_windows`, `usage_hourly`, `quota_overrides` of storage migration
 * 0003), needing only `SqlClient`. Every time is the database's `now()`, so all instances share one clock.
 *
 * `meter` is one statement: two upserts (the hour's usage, then the minute's window) whose row locks make concurrent
 * calls of one store count one after the other, so the counts they return are exact on any number of instances.
 * `meterWindow` (a signed call) is the window's upsert alone, one for the calls of a few milliseconds. Those locks last until the statement's transaction
 * ends: run both outside long transactions.
 */
import { Ids } from "@tawsil/domain"
import {
  Array as Arr,
  DateTime,
  Duration,
  Effect,
  Exit,
  Layer,
  Option,
  Request,
  RequestResolver,
  Schema,
  SchemaTransformation
} from "effect"
import { SqlClient } from "effect/sql"
import type { QuotaOverride } from "./Limits.ts"
import { REQUEST_GROUP, UsageStore, type WindowCount } from "./UsageStore.ts"

const ZONE = "Africa/Algiers"

/** int8 and numeric columns arrive as bigint or string: counts are safe integers. */
const Count = Schema.Union([Schema.BigInt, Schema.String, Schema.Number]).pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform<number, bigint | string | number>({ decode: Number, encode: (count) => count })
  )
)

const MeterRow = Schema.Struct({
  window_count: Schema.Number,
  reset_seconds: Schema.Number,
  month_count: Schema.NullOr(Count)
})

const GroupWindowRow = Schema.Struct({
  store_id: Schema.Number,
  window_count: Schema.Number,
  reset_seconds: Schema.Number
})

/** One signed call to count in its store's window (`meterWindow`). */
interface MeterWindow extends Request.Request<WindowCount> {
  readonly storeId: Ids.StoreId
}
const MeterWindow = Request.of<MeterWindow>()
const decodeGroupWindows = Schema.decodeUnknownEffect(Schema.Array(GroupWindowRow))

const MonthRow = Schema.Struct({
  period: Schema.String,
  endpoint_group: Schema.NullOr(Schema.String),
  total: Schema.NullOr(Count),
  billable: Schema.NullOr(Count)
})

const HourRow = Schema.Struct({
  period_hour: Schema.Date,
  endpoint_group: Schema.String,
  count: Count,
  billable_count: Count
})

const OverrideRow = Schema.Struct({
  store_id: Ids.StoreId,
  requests_per_month: Schema.NullOr(Schema.Number),
  signups_per_month: Schema.NullOr(Schema.Number),
  webhooks_per_month: Schema.NullOr(Schema.Number),
  requests_per_minute: Schema.NullOr(Schema.Number),
  notes: Schema.NullOr(Schema.String),
  set_by_user_id: Schema.NullOr(Schema.Number),
  updated_at: Schema.Date
})

/** A row of `usage_hourly` to add. */
type UsageRow = {
  store_id: number
  period_hour: Date
  endpoint_group: string
  count: number
  billable_count: number
}

const toOverride = (row: typeof OverrideRow.Type): QuotaOverride => ({
  storeId: row.store_id,
  requestsPerMonth: row.requests_per_month,
  signupsPerMonth: row.signups_per_month,
  webhooksPerMonth: row.webhooks_per_month,
  requestsPerMinute: row.requests_per_minute,
  notes: row.notes,
  setByUserId: row.set_by_user_id,
  updatedAt: DateTime.fromDateUnsafe(row.updated_at)
})

const decodeRows = <S extends Schema.Top>(schema: S) =>
  Schema.decodeUnknownEffect(Schema.Array(schema)) as (
    rows: unknown
  ) => Effect.Effect<ReadonlyArray<S["Type"]>, Schema.SchemaError, S["DecodingServices"]>

export const layer: Layer.Layer<UsageStore, never, SqlClient.SqlClient> = Layer.effect(
  UsageStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const overrideColumns = sql.literal(
      "store_id, requests_per_month, signups_per_month, webhooks_per_month, requests_per_minute, notes, " +
        "set_by_user_id, updated_at"
    )

    // Signed calls are counted by group commit, as their nonces are (decision 0026): the calls of a few
    // milliseconds are one upsert adding each store's calls to its window, and each call gets its own count of the
    // total the statement returned (the first of a store's n calls total - n + 1, the last the total), so the counts
    // stay exact and distinct. A failed statement fails every call of the group.
    const windows = RequestResolver.make<MeterWindow>((entries) => {
      const byStore = new Map<number, Array<Request.Entry<MeterWindow>>>()
      for (const entry of entries) {
        const calls = byStore.get(entry.request.storeId)
        if (calls === undefined) byStore.set(entry.request.storeId, [entry])
        else calls.push(entry)
      }
      const counts = JSON.stringify(Array.from(byStore, ([store_id, calls]) => ({ store_id, calls: calls.length })))
      return sql`
        INSERT INTO rate_windows AS w (store_id, window_start, count)
        SELECT store_id, date_trunc('minute', now()), calls
        FROM jsonb_to_recordset(${counts}::jsonb) AS i (store_id int, calls int)
        ORDER BY store_id
        ON CONFLICT (store_id, window_start) DO UPDATE SET count = w.count + excluded.count
        RETURNING w.store_id, w.count AS window_count,
          ceil(extract(epoch FROM w.window_start + interval '1 minute' - now()))::int AS reset_seconds`.pipe(
        Effect.flatMap(decodeGroupWindows),
        Effect.flatMap((rows) =>
          Effect.sync(() => {
            for (const row of rows) {
              const calls = byStore.get(row.store_id) ?? []
              const resetSeconds = Math.min(60, Math.max(1, row.reset_seconds))
              for (let index = 0; index < calls.length; index++) {
                const windowCount = row.window_count - calls.length + 1 + index
                calls[index]!.completeUnsafe(Exit.succeed({ windowCount, resetSeconds }))
              }
            }
          })
        ),
        Effect.orDie
      )
    }).pipe(RequestResolver.setDelay(Duration.millis(2)), RequestResolver.batchN(500))

    return UsageStore.of({
      meter: Effect.fnUntraced(function* (storeId, options) {
        // The month's earlier hours are settled: the snapshot's sum of them plus this hour's exact count is the
        // month's count. Without `month` the subquery is not run at all.
        const rows = yield* sql`
          WITH hour AS (
            INSERT INTO usage_hourly AS u (store_id, period_hour, endpoint_group, count, billable_count)
            VALUES (${storeId}, date_trunc('hour', now(), ${ZONE}), ${REQUEST_GROUP}, 1, 0)
            ON CONFLICT (store_id, period_hour, endpoint_group) DO UPDATE SET count = u.count + 1
            RETURNING u.count, u.period_hour
          ), minute AS (
            INSERT INTO rate_windows AS w (store_id, window_start, count)
            VALUES (${storeId}, date_trunc('minute', now()), 1)
            ON CONFLICT (store_id, window_start) DO UPDATE SET count = w.count + 1
            RETURNING w.count, w.window_start
          )
          SELECT minute.count AS window_count,
            ceil(extract(epoch FROM minute.window_start + interval '1 minute' - now()))::int AS reset_seconds,
            CASE WHEN ${options.month} THEN hour.count + (
              SELECT coalesce(sum(e.count), 0) FROM usage_hourly e
              WHERE e.store_id = ${storeId} AND e.endpoint_group = ${REQUEST_GROUP}
                AND e.period_hour >= date_trunc('month', now(), ${ZONE}) AND e.period_hour < hour.period_hour
            ) END::int8 AS month_count
          FROM hour, minute`.pipe(Effect.flatMap(decodeRows(MeterRow)), Effect.orDie)
        const row = rows[0]!
        return {
          windowCount: row.window_count,
          resetSeconds: Math.min(60, Math.max(1, row.reset_seconds)),
          monthCount: row.month_count
        }
      }),
      meterWindow: (storeId) => Effect.request(MeterWindow({ storeId }), windows),
      count: Effect.fnUntraced(function* (increments) {
        // One row per store, hour and group: an upsert may not touch one row twice.
        const rows = new Map<string, UsageRow>()
        for (const increment of increments) {
          const millis = DateTime.toEpochMillis(increment.at)
          const hour = millis - (((millis % 3_600_000) + 3_600_000) % 3_600_000)
          const id = `${increment.storeId} ${hour} ${increment.group}`
          const row = rows.get(id) ?? {
            store_id: increment.storeId,
            period_hour: new Date(hour),
            endpoint_group: increment.group,
            count: 0,
            billable_count: 0
          }
          row.count += increment.total
          row.billable_count += increment.billable
          rows.set(id, row)
        }
        const values = [...rows.values()]
        if (!Arr.isArrayNonEmpty(values)) return
        yield* sql`
          INSERT INTO usage_hourly AS u ${sql.insert(values)}
          ON CONFLICT (store_id, period_hour, endpoint_group) DO UPDATE SET
            count = u.count + excluded.count, billable_count = u.billable_count + excluded.billable_count`.pipe(
          Effect.orDie
        )
      }),
      monthUsage: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`
          SELECT p.period, g.endpoint_group, g.total, g.billable
          FROM (SELECT to_char(now() AT TIME ZONE ${ZONE}, 'YYYY-MM') AS period,
                  date_trunc('month', now(), ${ZONE}) AS start) p
          LEFT JOIN LATERAL (
            SELECT endpoint_group, sum(count)::int8 AS total, sum(billable_count)::int8 AS billable
            FROM usage_hourly WHERE store_id = ${storeId} AND period_hour >= p.start
            GROUP BY endpoint_group
          ) g ON true
          ORDER BY g.endpoint_group`.pipe(Effect.flatMap(decodeRows(MonthRow)), Effect.orDie)
        return {
          period: rows[0]!.period,
          groups: rows.flatMap((row) =>
            row.endpoint_group === null
              ? []
              : [{ group: row.endpoint_group, total: row.total ?? 0, billable: row.billable ?? 0 }]
          )
        }
      }),
      history: Effect.fnUntraced(function* (storeId, from, to) {
        const rows = yield* sql`
          SELECT period_hour, endpoint_group, count, billable_count FROM usage_hourly
          WHERE store_id = ${storeId} AND period_hour >= ${DateTime.toDateUtc(from)}
            AND period_hour < ${DateTime.toDateUtc(to)}
          ORDER BY period_hour, endpoint_group`.pipe(Effect.flatMap(decodeRows(HourRow)), Effect.orDie)
        return rows.map((row) => ({
          periodHour: DateTime.fromDateUnsafe(row.period_hour),
          group: row.endpoint_group,
          count: row.count,
          billable: row.billable_count
        }))
      }),
      findOverride: Effect.fnUntraced(function* (storeId) {
        const rows = yield* sql`SELECT ${overrideColumns} FROM quota_overrides WHERE store_id = ${storeId}`.pipe(
          Effect.flatMap(decodeRows(OverrideRow)),
          Effect.orDie
        )
        return Option.map(Option.fromNullishOr(rows[0]), toOverride)
      }),
      setOverride: Effect.fnUntraced(function* (storeId, patch) {
        const perMinute = patch.requestsPerMinute !== undefined
        const perMonth = patch.requestsPerMonth !== undefined
        const rows = yield* sql`
          INSERT INTO quota_overrides AS q (store_id, requests_per_minute, requests_per_month)
          VALUES (${storeId}, ${patch.requestsPerMinute ?? null}::int, ${patch.requestsPerMonth ?? null}::int)
          ON CONFLICT (store_id) DO UPDATE SET
            requests_per_minute = CASE WHEN ${perMinute} THEN excluded.requests_per_minute
              ELSE q.requests_per_minute END,
            requests_per_month = CASE WHEN ${perMonth} THEN excluded.requests_per_month
              ELSE q.requests_per_month END,
            updated_at = now()
          RETURNING ${overrideColumns}`.pipe(Effect.flatMap(decodeRows(OverrideRow)), Effect.orDie)
        return toOverride(rows[0]!)
      }),
      purgeWindows: sql<{ readonly purged: number }>`
        WITH purged AS (DELETE FROM rate_windows WHERE window_start < now() - interval '1 hour' RETURNING 1)
        SELECT count(*)::int AS purged FROM purged`.pipe(
        Effect.map(([row]) => row?.purged ?? 0),
        Effect.orDie,
        Effect.withSpan("UsageStoreSql.purgeWindows")
      )
    })
  })
)
