/**
 * What the COD ledger reads and keeps (docs/cod-ledger.md): the store's shipments as ledger lines — the cash each
 * carried and what its cash events said (collected, remitted, the courier's fee, the statement) — and the payout
 * statements the store imported, every line kept with its outcome. The port and its in-memory implementation, which
 * reads the shipments through the orders' own port (`OrderStore`); `CodLedgerStoreSql` is the SQL one, which reads
 * them set-based and streams them from a cursor.
 */
import type { Ids, StoreAmount } from "@tawsil/domain"
import { OrderStore } from "@tawsil/orders"
import { BigDecimal, Context, DateTime, Effect, Layer, Stream } from "effect"
import type * as CodReport from "./CodReport.ts"
import type * as CodStatement from "./CodStatement.ts"

/** The shipments of a period, by the day they were shipped (`[start, end)`, epoch milliseconds), of one courier or all. */
export interface Period {
  readonly start: number
  readonly end: number
  readonly courier: string | undefined
}

/** An imported statement as recorded. */
export interface NewStatement {
  readonly courier: string | undefined
  readonly lines: ReadonlyArray<CodStatement.Matched>
}

export class CodLedgerStore extends Context.Service<
  CodLedgerStore,
  {
    /** Runs `effect` as one unit (SQL: one transaction, joining the caller's when there is one). */
    readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** The store's shipments among these tracking numbers (the newest where a number is taken twice). */
    readonly payables: (
      storeId: Ids.StoreId,
      trackingNumbers: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyMap<string, CodStatement.Payable>>
    /** Records a statement and every line of it; answers its id. */
    readonly recordStatement: (storeId: Ids.StoreId, statement: NewStatement) => Effect.Effect<number>
    /** The ledger lines of the period's shipments, by courier then order id. */
    readonly ledger: (storeId: Ids.StoreId, period: Period) => Stream.Stream<CodReport.LedgerRow>
    /**
     * The lines of the store's statements that matched no shipment, paid within the period (by their date), of the
     * courier when given (the courier their statement was imported for).
     */
    readonly unmatched: (storeId: Ids.StoreId, period: Period) => Stream.Stream<CodReport.UnmatchedLine>
  }
>()("@tawsil/shipments/CodLedgerStore") {}

/** The cash an order's parcel carries: the order's total, rounded to the dinar, for a COD order; else 0. */
export const codOf = (order: { readonly payment_method: string; readonly total: StoreAmount.StoreAmount }): number =>
  order.payment_method === "cod" ? Math.round(BigDecimal.toNumberUnsafe(order.total)) : 0

/** The newest value a cash event of the given status (any, when undefined) gave for `key`. */
const newest = <K extends "amount" | "fee" | "statement">(
  timeline: ReadonlyArray<{ readonly kind: string; readonly status: string; readonly occurred_at: DateTime.Utc }>,
  key: K,
  status: string | undefined
) => {
  let found: { at: number; value: unknown } | undefined
  for (const event of timeline as ReadonlyArray<Record<string, unknown> & (typeof timeline)[number]>) {
    const value = event[key]
    if (event.kind !== "cod" || value === null || value === undefined) continue
    if (status !== undefined && event.status !== status) continue
    const at = DateTime.toEpochMillis(event.occurred_at)
    if (found === undefined || at >= found.at) found = { at, value }
  }
  return found === undefined ? null : (found.value as K extends "statement" ? string : number)
}

/**
 * In memory, over the orders' port: a store's shipments are its orders' (read page by page, as the API lists them),
 * statements a list. For tests and the in-process store harness; the SQL store is the one for volume.
 */
export const layerMemory: Layer.Layer<CodLedgerStore, never, OrderStore.OrderStore> = Layer.effect(
  CodLedgerStore,
  Effect.gen(function* () {
    const orders = yield* OrderStore.OrderStore
    const statements: Array<{ readonly id: number; readonly storeId: number } & NewStatement> = []
    const shipped = (storeId: Ids.StoreId) =>
      Effect.gen(function* () {
        const records: Array<OrderStore.OrderRecord> = []
        let afterId: number | undefined
        for (;;) {
          const page = yield* orders.listOrders(storeId, {}, { afterId, limit: 100 })
          for (const summary of page) {
            if (summary.shipment === null) continue
            const order = yield* orders.findOrder(storeId, summary.id)
            if (order?.shipment) records.push(order)
          }
          if (page.length < 100) break
          afterId = page[page.length - 1]!.id
        }
        return records
      })
    return CodLedgerStore.of({
      transaction: (effect) => effect,
      payables: (storeId, trackingNumbers) =>
        Effect.map(shipped(storeId), (records) => {
          const wanted = new Set(trackingNumbers)
          const map = new Map<string, CodStatement.Payable>()
          // Oldest first, so the newest shipment of a number taken twice wins.
          for (const order of [...records].sort((a, b) => a.id - b.id)) {
            const shipment = order.shipment!
            if (!wanted.has(shipment.tracking_number)) continue
            map.set(shipment.tracking_number, {
              orderId: order.id,
              courier: shipment.courier,
              expected: codOf(order),
              fee: newest(shipment.timeline, "fee", undefined)
            })
          }
          return map
        }),
      recordStatement: (storeId, statement) =>
        Effect.sync(() => {
          const id = statements.length + 1
          statements.push({ id, storeId, ...statement })
          return id
        }),
      ledger: (storeId, period) =>
        Stream.unwrap(
          Effect.map(shipped(storeId), (records) =>
            Stream.fromIterable(
              records
                .filter((order) => {
                  const shipment = order.shipment!
                  const at = DateTime.toEpochMillis(shipment.created_at)
                  return (
                    at >= period.start &&
                    at < period.end &&
                    (period.courier === undefined || shipment.courier === period.courier)
                  )
                })
                .sort((a, b) =>
                  a.shipment!.courier === b.shipment!.courier
                    ? a.id - b.id
                    : a.shipment!.courier < b.shipment!.courier
                      ? -1
                      : 1
                )
                .map((order): CodReport.LedgerRow => {
                  const shipment = order.shipment!
                  return {
                    orderId: order.id,
                    orderNumber: order.order_number,
                    courier: shipment.courier,
                    trackingNumber: shipment.tracking_number,
                    status: shipment.status,
                    statusAt: DateTime.toEpochMillis(shipment.status_at),
                    codStatus: shipment.cod_status,
                    expected: codOf(order),
                    collectedAmount: newest(shipment.timeline, "amount", "collected"),
                    remittedAmount: newest(shipment.timeline, "amount", "remitted"),
                    fee: newest(shipment.timeline, "fee", undefined),
                    statement: newest(shipment.timeline, "statement", undefined)
                  }
                })
            )
          )
        ),
      unmatched: (storeId, period) =>
        Stream.fromIterable(
          statements
            .filter((statement) => statement.storeId === storeId)
            .flatMap((statement) =>
              statement.lines
                .filter((line) => {
                  if (line.outcome !== "unmatched") return false
                  const day = Date.parse(`${line.paidOn}T00:00:00+01:00`)
                  return (
                    day >= period.start &&
                    day < period.end &&
                    (period.courier === undefined || line.courier === period.courier)
                  )
                })
                .map(
                  (line): CodReport.UnmatchedLine => ({
                    statementId: statement.id,
                    line: line.line,
                    courier: line.courier,
                    trackingNumber: line.trackingNumber,
                    amount: line.amount,
                    paidOn: line.paidOn
                  })
                )
            )
        )
    })
  })
)
