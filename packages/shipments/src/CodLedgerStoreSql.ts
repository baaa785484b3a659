/**
 * The COD ledger on PostgreSQL (storage migration 0020), needing only `SqlClient`. The ledger is read set-based:
 * one statement over the store's shipments of the period (`order_shipments_store_created`) with, per shipment, the
 * newest amount, fee and statement its cash events gave (the timeline's primary key leads with the order id), and
 * streamed from the server as it reads it — the driver pauses the socket while the consumer is behind — so a report
 * over a million shipments holds a chunk of rows at a time, never the result.
 */
import type { Ids } from "@tawsil/domain"
import { DateTime, Effect, Layer, Option, Schema, Stream } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { CodLedgerStore } from "./CodLedgerStore.ts"
import type * as CodReport from "./CodReport.ts"

const PayableRow = Schema.Struct({
  tracking_number: Schema.String,
  order_id: Schema.Int,
  courier: Schema.String,
  expected: Schema.Unknown,
  fee: Schema.Unknown
})
const decodePayables = Schema.decodeUnknownEffect(Schema.Array(PayableRow))
const decodeId = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.Int })))

/** A numeric column as a number: int8 arrives as a `bigint`, numeric as text. */
const numberOf = (value: unknown): number | null =>
  value === null || value === undefined ? null : typeof value === "number" ? value : Number(value)

const timeOf = (value: unknown): number =>
  value instanceof Date ? value.getTime() : DateTime.toEpochMillis(DateTime.makeUnsafe(value as string))

const rowOf = (row: Record<string, unknown>): CodReport.LedgerRow => ({
  orderId: Number(row.order_id),
  orderNumber: String(row.order_number),
  courier: String(row.courier),
  trackingNumber: String(row.tracking_number),
  status: String(row.status),
  statusAt: timeOf(row.status_at),
  codStatus: (row.cod_status ?? null) as CodReport.LedgerRow["codStatus"],
  expected: numberOf(row.expected) ?? 0,
  collectedAmount: numberOf(row.collected_amount),
  remittedAmount: numberOf(row.remitted_amount),
  fee: numberOf(row.fee),
  statement: (row.statement ?? null) as string | null
})

const dayOf = (value: unknown): string =>
  value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10)

const unmatchedOf = (row: Record<string, unknown>): CodReport.UnmatchedLine => ({
  statementId: Number(row.statement_id),
  line: Number(row.line),
  courier: (row.courier ?? null) as string | null,
  trackingNumber: String(row.tracking_number),
  amount: numberOf(row.amount) ?? 0,
  paidOn: dayOf(row.paid_on)
})

const iso = (millis: number) => new Date(millis).toISOString()

export const layer: Layer.Layer<CodLedgerStore, never, SqlClient.SqlClient> = Layer.effect(
  CodLedgerStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return CodLedgerStore.of({
      transaction: (effect) =>
        Effect.flatMap(Effect.serviceOption(sql.transactionService), (open) =>
          Option.isSome(open)
            ? effect
            : sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, (error) => Effect.die(error)))
        ) as typeof effect,
      payables: (storeId: Ids.StoreId, trackingNumbers) =>
        trackingNumbers.length === 0
          ? Effect.succeed(new Map())
          : sql`
              SELECT DISTINCT ON (s.tracking_number) s.tracking_number, s.order_id, s.courier,
                CASE WHEN o.payment_method = 'cod' THEN round(o.total)::bigint ELSE 0 END AS expected,
                (SELECT e.fee FROM order_shipment_events e
                 WHERE e.order_id = s.order_id AND e.kind = 'cod' AND e.fee IS NOT NULL
                 ORDER BY e.occurred_at DESC LIMIT 1) AS fee
              FROM order_shipments s JOIN orders o ON o.id = s.order_id
              WHERE s.store_id = ${storeId}
                AND s.tracking_number IN (SELECT jsonb_array_elements_text(${JSON.stringify(trackingNumbers)}::jsonb))
              ORDER BY s.tracking_number, s.order_id DESC`.pipe(
              Effect.orDie,
              Effect.flatMap((rows) => Effect.orDie(decodePayables(rows))),
              Effect.map(
                (rows) =>
                  new Map(
                    rows.map((row) => [
                      row.tracking_number,
                      {
                        orderId: row.order_id,
                        courier: row.courier,
                        expected: numberOf(row.expected) ?? 0,
                        fee: numberOf(row.fee)
                      }
                    ])
                  )
              )
            ),
      recordStatement: (storeId, statement) =>
        Effect.gen(function* () {
          const total = statement.lines.reduce((sum, line) => sum + line.amount, 0)
          const [created] = yield* sql`
            INSERT INTO cod_statements (store_id, courier, lines, total)
            VALUES (${storeId}, ${statement.courier ?? null}::text, ${statement.lines.length}, ${total})
            RETURNING id`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) => Effect.orDie(decodeId(rows)))
          )
          const id = created!.id
          const lines = JSON.stringify(
            statement.lines.map((line) => ({
              line: line.line,
              tracking_number: line.trackingNumber,
              amount: line.amount,
              paid_on: line.paidOn,
              order_id: line.orderId,
              courier: line.courier,
              expected: line.expected,
              outcome: line.outcome
            }))
          )
          yield* sql`
            INSERT INTO cod_statement_lines (statement_id, line, store_id, tracking_number, amount, paid_on, order_id,
              courier, expected, outcome)
            SELECT ${id}, l.line, ${storeId}, l.tracking_number, l.amount, l.paid_on, l.order_id, l.courier,
              l.expected, l.outcome
            FROM jsonb_to_recordset(${lines}::jsonb) AS l(line integer, tracking_number text, amount bigint,
              paid_on date, order_id integer, courier text, expected bigint, outcome text)`.pipe(Effect.orDie)
          return id
        }),
      ledger: (storeId, period) =>
        sql<Record<string, unknown>>`
          SELECT s.order_id, o.order_number, s.courier, s.tracking_number, s.status, s.status_at, s.cod_status,
            CASE WHEN o.payment_method = 'cod' THEN round(o.total)::bigint ELSE 0 END AS expected,
            c.collected_amount, c.remitted_amount, c.fee, c.statement
          FROM order_shipments s
          JOIN orders o ON o.id = s.order_id
          LEFT JOIN LATERAL (
            SELECT
              (array_agg(e.amount ORDER BY e.occurred_at DESC)
                FILTER (WHERE e.status = 'collected' AND e.amount IS NOT NULL))[1] AS collected_amount,
              (array_agg(e.amount ORDER BY e.occurred_at DESC)
                FILTER (WHERE e.status = 'remitted' AND e.amount IS NOT NULL))[1] AS remitted_amount,
              (array_agg(e.fee ORDER BY e.occurred_at DESC) FILTER (WHERE e.fee IS NOT NULL))[1] AS fee,
              (array_agg(e.statement ORDER BY e.occurred_at DESC) FILTER (WHERE e.statement IS NOT NULL))[1]
                AS statement
            FROM order_shipment_events e
            WHERE e.order_id = s.order_id AND e.kind = 'cod'
          ) c ON true
          WHERE s.store_id = ${storeId}
            AND s.created_at >= ${iso(period.start)}::timestamptz AND s.created_at < ${iso(period.end)}::timestamptz
            AND (${period.courier ?? null}::text IS NULL OR s.courier = ${period.courier ?? null}::text)
          ORDER BY s.courier, s.order_id`.stream.pipe(Stream.orDie, Stream.map(rowOf)),
      unmatched: (storeId, period) =>
        sql<Record<string, unknown>>`
          SELECT l.statement_id, l.line, st.courier, l.tracking_number, l.amount, l.paid_on::text AS paid_on
          FROM cod_statement_lines l JOIN cod_statements st ON st.id = l.statement_id
          WHERE l.store_id = ${storeId} AND l.outcome = 'unmatched'
            AND l.paid_on >= (${iso(period.start)}::timestamptz AT TIME ZONE 'Africa/Algiers')::date
            AND l.paid_on < (${iso(period.end)}::timestamptz AT TIME ZONE 'Africa/Algiers')::date
            AND (${period.courier ?? null}::text IS NULL OR st.courier = ${period.courier ?? null}::text)
          ORDER BY l.statement_id, l.line`.stream.pipe(Stream.orDie, Stream.map(unmatchedOf))
    })
  })
)
