/**
 * The COD ledger (docs/cod-ledger.md): what a store's cash on delivery did, parcel by parcel, across couriers, and
 * where the couriers' word and the money disagree.
 *
 * The ledger of a shipment is its cash events — a courier's payment statuses, polled or pushed, with the amount, fee
 * and payout id where the courier gives them — and the lines of the payout statements the store imports. An imported
 * line that names a shipment remits its cash: it reaches the shipment as one more cash event (source `statement`)
 * through `Orders.trackShipment`, the path every courier event takes, so the COD status, `shipment.updated` and
 * `payment.received` follow the same rules whoever said the cash was paid. The import and its events are one unit.
 *
 * The report folds the ledger's rows as the store streams them (`CodReport`): as JSON, the figures and the first
 * discrepancies; as CSV, every row as it passes, the totals after.
 */
import type { Ids } from "@tawsil/domain"
import { type OrderShipment, Orders } from "@tawsil/orders"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Context, DateTime, Effect, Layer, Stream } from "effect"
import { CodLedgerError, InvalidReportQuery, InvalidStatement } from "./CodLedgerError.ts"
import { CodLedgerStore } from "./CodLedgerStore.ts"
import * as CodReport from "./CodReport.ts"
import * as CodStatement from "./CodStatement.ts"

/** What an import answers: the statement, its lines counted, and every line flagged. */
export interface StatementImported {
  readonly id: number
  /** Its name in the ledger (a shipment's `statement`): `stmt_<id>`. */
  readonly statement: string
  readonly courier: string | null
  readonly lines: number
  /** The sum of its lines, whole dinars. */
  readonly total: number
  /** Lines that paid their shipment its COD. */
  readonly matched: number
  /** Lines that paid their shipment (its COD status is now `remitted`), flagged or not. */
  readonly remitted: number
  /** Every line that is not a plain match: `amount_differs`, `unmatched`, `repeated`. Kept with the statement. */
  readonly flagged: ReadonlyArray<{
    readonly line: number
    readonly tracking_number: string
    readonly amount: number
    readonly date: string
    readonly outcome: CodStatement.Outcome
    readonly order_id: number | null
    readonly expected: number | null
  }>
}

/** The report's query as the API gives it. */
export interface ReportRequest {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly courier?: string | undefined
  /** As the query string gives it. */
  readonly staleAfterDays?: string | undefined
}

/** The report as JSON. */
export interface Report {
  readonly from: string
  readonly to: string
  readonly courier: string | null
  readonly stale_after_days: number
  /** When it was made (ISO 8601, UTC). */
  readonly as_of: string
  readonly couriers: ReadonlyArray<{ readonly courier: string } & CodReport.Figures>
  readonly total: CodReport.Figures
  /** The first `MAX_LISTED` discrepancies: the shipments' by courier and order id, then the statement lines'. */
  readonly discrepancies: ReadonlyArray<CodReport.Discrepancy>
  /** Whether more discrepancies were found than listed (the figures count them all; the CSV lists them all). */
  readonly discrepancies_truncated: boolean
}

/** When a statement's line was paid: the end of its day in Algiers, so the payment follows that day's events. */
const paidAt = (day: string): DateTime.Utc => DateTime.makeUnsafe(`${day}T23:59:59+01:00`)

export class CodLedger extends Context.Service<
  CodLedger,
  {
    readonly importStatement: (
      storeId: Ids.StoreId,
      text: string,
      options: { readonly courier?: string | undefined }
    ) => Effect.Effect<StatementImported, CodLedgerError>
    readonly report: (storeId: Ids.StoreId, request: ReportRequest) => Effect.Effect<Report, CodLedgerError>
    /** The report as CSV text, streamed (the query is checked before the first byte). */
    readonly reportCsv: (
      storeId: Ids.StoreId,
      request: ReportRequest
    ) => Effect.Effect<Stream.Stream<string>, CodLedgerError>
  }
>()("@tawsil/shipments/CodLedger") {}

export const layer: Layer.Layer<CodLedger, never, CodLedgerStore | Orders.Orders> = Layer.effect(
  CodLedger,
  Effect.gen(function* () {
    const store = yield* CodLedgerStore
    const orders = yield* Orders.Orders
    const method = yield* ServiceSpans.method

    const checked = (request: ReportRequest) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const query = CodReport.query(request, now)
        return typeof query === "string"
          ? Effect.fail(new CodLedgerError({ reason: new InvalidReportQuery({ message: query }) }))
          : Effect.succeed(query)
      })

    const periodOf = (query: CodReport.Query) => ({ start: query.start, end: query.end, courier: query.courier })

    return CodLedger.of({
      importStatement: method("CodLedger.importStatement")(function* (storeId, text, options) {
        const read = CodStatement.parse(text)
        if ("problems" in read) {
          return yield* new CodLedgerError({ reason: new InvalidStatement({ message: CodStatement.describe(read) }) })
        }
        return yield* store.transaction(
          Effect.gen(function* () {
            const numbers = [...new Set(read.lines.map((line) => line.trackingNumber))]
            const payables = yield* store.payables(storeId, numbers)
            const found = CodStatement.match(read.lines, payables, options.courier)
            // A statement is one courier's payout: named by the caller, else the one courier its matched lines share.
            const couriers = new Set(found.flatMap((line) => (line.orderId === null ? [] : [line.courier!])))
            const courier = options.courier ?? (couriers.size === 1 ? [...couriers][0] : undefined)
            const matched = found.map((line) => (line.orderId === null ? { ...line, courier: courier ?? null } : line))
            const id = yield* store.recordStatement(storeId, { courier, lines: matched })
            const statement = CodReport.statementName(id)
            const remitting = CodStatement.remitting(matched)
            for (const line of remitting) {
              const event: OrderShipment.ShipmentEvent = {
                // The same line imported again (the same day and amount) is the same payment: recorded once.
                eventId: `statement:${line.paidOn}:${line.amount}`,
                kind: "cod",
                status: "remitted",
                rawStatus: "statement",
                occurredAt: paidAt(line.paidOn),
                source: "statement",
                payment: { amount: line.amount, statement }
              }
              // A shipment deleted with its order since the match has nothing left to remit.
              yield* orders.trackShipment(storeId, line.orderId, [event]).pipe(Effect.catch(() => Effect.void))
            }
            return {
              id,
              statement,
              courier: courier ?? null,
              lines: matched.length,
              total: matched.reduce((sum, line) => sum + line.amount, 0),
              matched: matched.filter((line) => line.outcome === "matched").length,
              remitted: remitting.length,
              flagged: matched
                .filter((line) => line.outcome !== "matched")
                .map((line) => ({
                  line: line.line,
                  tracking_number: line.trackingNumber,
                  amount: line.amount,
                  date: line.paidOn,
                  outcome: line.outcome,
                  order_id: line.orderId,
                  expected: line.expected
                }))
            }
          })
        )
      }),

      report: method("CodLedger.report")(function* (storeId, request) {
        const query = yield* checked(request)
        const totals = CodReport.start()
        const period = periodOf(query)
        yield* Stream.runForEach(store.ledger(storeId, period), (row) =>
          Effect.sync(() => CodReport.foldShipment(totals, row, query))
        )
        yield* Stream.runForEach(store.unmatched(storeId, period), (line) =>
          Effect.sync(() => CodReport.foldUnmatched(totals, line))
        )
        return {
          from: query.from,
          to: query.to,
          courier: query.courier ?? null,
          stale_after_days: query.staleAfterDays,
          as_of: new Date(query.asOf).toISOString(),
          couriers: [...totals.couriers]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([courier, figures]) => ({ courier, ...figures })),
          total: totals.total,
          discrepancies: totals.listed,
          discrepancies_truncated: totals.discrepancies > totals.listed.length
        }
      }),

      reportCsv: method("CodLedger.reportCsv")(function* (storeId, request) {
        const query = yield* checked(request)
        const period = periodOf(query)
        // Rows are written as they pass, a chunk of them per piece; the totals (a few couriers') after them all.
        return Stream.suspend(() => {
          const totals = CodReport.start()
          const shipments = store
            .ledger(storeId, period)
            .pipe(
              Stream.mapArray((rows) => [
                rows.map((row) => CodReport.shipmentCsv(row, CodReport.foldShipment(totals, row, query))).join("")
              ])
            )
          const lines = store.unmatched(storeId, period).pipe(
            Stream.mapArray((unmatched) => [
              unmatched
                .map((line) => {
                  CodReport.foldUnmatched(totals, line)
                  return CodReport.unmatchedCsv(line)
                })
                .join("")
            ])
          )
          const closing = Stream.suspend(() =>
            Stream.make(
              [...totals.couriers]
                .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
                .map(([courier, figures]) => CodReport.totalsCsv("courier_total", courier, figures))
                .join("") + CodReport.totalsCsv("total", query.courier ?? "all", totals.total)
            )
          )
          return Stream.make(CodReport.CSV_HEADER).pipe(
            Stream.concat(shipments),
            Stream.concat(lines),
            Stream.concat(closing)
          )
        })
      })
    })
  })
)
