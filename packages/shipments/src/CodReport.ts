/**
 * The COD reconciliation report (docs/cod-ledger.md, `GET /v1/reports/cod`): a store's shipments of a period, each
 * with what its cash did — the ledger's lines — folded per courier and in total into the figures a merchant checks
 * against the couriers' payouts, and the discrepancies to chase. Pure: the rows come from the ledger store as a
 * stream, and `fold` keeps one small state per courier however many rows pass, so the report over a million
 * shipments takes the memory of a few couriers' totals (and, for the JSON answer, of its bounded list of
 * discrepancies).
 *
 * One shipment's figures:
 * - `expected`: the cash on delivery it carried, unless it was cancelled (nothing to collect then).
 * - `collected_not_remitted`: the courier says it holds the cash (COD status `collected`): what it said it collected,
 *   else the COD.
 * - `remitted`: the cash reached the merchant (COD status `remitted`, from the courier or a statement line): what the
 *   courier or the statement said was paid, else the COD.
 * - `fees`: the courier's fee, where it reported one.
 * - `returned`: the COD of a parcel that came back (no cash to come).
 * Discrepancies: `not_remitted` (delivered more than `stale_after_days` days before the report and not remitted),
 * `amount_differs` (remitted, and the amount paid is neither the COD nor the COD less the courier's fee),
 * `unmatched_line` (a line of an imported statement that names no shipment of the store).
 */
import { Schema } from "effect"

export const DEFAULT_STALE_AFTER_DAYS = 14
export const MAX_STALE_AFTER_DAYS = 365
/** The longest period one report covers. */
export const MAX_DAYS = 366
/** The default period: the 30 days up to today. */
export const DEFAULT_DAYS = 30
/** At most this many discrepancies listed in the JSON answer (the CSV lists all); the counts are always whole. */
export const MAX_LISTED = 1000

const DAY = 86_400_000
/** Algiers is UTC+01:00 all year (no daylight saving since 1981). */
const ALGIERS_OFFSET = 3_600_000

/** One shipment as the ledger has it. */
export interface LedgerRow {
  readonly orderId: number
  readonly orderNumber: string
  readonly courier: string
  readonly trackingNumber: string
  /** The canonical status. */
  readonly status: string
  /** When that status was reached, epoch milliseconds (a delivery's time for a delivered parcel). */
  readonly statusAt: number
  readonly codStatus: "not_collected" | "collected" | "remitted" | null
  /** The cash on delivery the parcel carried, whole dinars. */
  readonly expected: number
  /** The newest amount a `collected` event gave, if any. */
  readonly collectedAmount: number | null
  /** The newest amount a `remitted` event gave (a courier's, a statement line's), if any. */
  readonly remittedAmount: number | null
  readonly fee: number | null
  readonly statement: string | null
}

/** A line of an imported statement that matched no shipment. */
export interface UnmatchedLine {
  readonly statementId: number
  readonly line: number
  readonly courier: string | null
  readonly trackingNumber: string
  readonly amount: number
  /** `YYYY-MM-DD`. */
  readonly paidOn: string
}

export const DiscrepancyKind = Schema.Literals(["not_remitted", "amount_differs", "unmatched_line"])
export type DiscrepancyKind = typeof DiscrepancyKind.Type

/** The period and filters of one report, checked. */
export interface Query {
  /** `YYYY-MM-DD`, Algiers days, both included. */
  readonly from: string
  readonly to: string
  readonly courier: string | undefined
  readonly staleAfterDays: number
  /** The shipments' window: `[start, end)`, epoch milliseconds. */
  readonly start: number
  readonly end: number
  /** When the report is made, epoch milliseconds: a delivery older than `staleAfterDays` before it is overdue. */
  readonly asOf: number
}

const dayStart = (day: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (match === null) return undefined
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const at = Date.UTC(year, month - 1, date)
  const check = new Date(at)
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== date) {
    return undefined
  }
  return at - ALGIERS_OFFSET
}

/** An Algiers day, `YYYY-MM-DD`, of an instant. */
export const algiersDay = (millis: number): string => new Date(millis + ALGIERS_OFFSET).toISOString().slice(0, 10)

/** The report's query from what the request gave, or why it cannot be made (a message naming the parameter). */
export const query = (
  given: {
    readonly from?: string | undefined
    readonly to?: string | undefined
    readonly courier?: string | undefined
    /** A whole number of days, as the query string gives it. */
    readonly staleAfterDays?: string | number | undefined
  },
  now: number
): Query | string => {
  const to = given.to ?? algiersDay(now)
  const end = dayStart(to)
  if (end === undefined) return "to must be a date YYYY-MM-DD"
  const from = given.from ?? algiersDay(end + DAY - DEFAULT_DAYS * DAY)
  const start = dayStart(from)
  if (start === undefined) return "from must be a date YYYY-MM-DD"
  if (start > end) return "to must not be before from"
  if ((end - start) / DAY + 1 > MAX_DAYS) return `the period must be at most ${MAX_DAYS} days`
  const stale = given.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS
  const staleAfterDays = typeof stale === "number" ? stale : /^\d{1,4}$/.test(stale) ? Number(stale) : Number.NaN
  if (!Number.isSafeInteger(staleAfterDays) || staleAfterDays < 1 || staleAfterDays > MAX_STALE_AFTER_DAYS) {
    return `stale_after_days must be a whole number from 1 to ${MAX_STALE_AFTER_DAYS}`
  }
  return { from, to, courier: given.courier, staleAfterDays, start, end: end + DAY, asOf: now }
}

/** What one shipment adds to the figures, and the discrepancy it is, if any. */
export interface Entry {
  readonly expected: number
  readonly collectedNotRemitted: number
  readonly remitted: number
  readonly fee: number
  readonly returned: number
  readonly discrepancy: DiscrepancyKind | undefined
}

export const entry = (row: LedgerRow, query: Pick<Query, "asOf" | "staleAfterDays">): Entry => {
  const remitted = row.codStatus === "remitted"
  const paid = remitted ? (row.remittedAmount ?? row.expected) : 0
  const fee = row.fee ?? 0
  const overdue = row.status === "delivered" && !remitted && row.statusAt < query.asOf - query.staleAfterDays * DAY
  const differs = remitted && row.remittedAmount !== null && paid !== row.expected && paid !== row.expected - fee
  return {
    expected: row.status === "cancelled" ? 0 : row.expected,
    collectedNotRemitted: row.codStatus === "collected" ? (row.collectedAmount ?? row.expected) : 0,
    remitted: paid,
    fee,
    returned: row.status === "returned" ? row.expected : 0,
    discrepancy: overdue ? "not_remitted" : differs ? "amount_differs" : undefined
  }
}

/** A count of shipments (or lines) and their amount, whole dinars. */
export interface Amounts {
  readonly count: number
  readonly amount: number
}

export interface Figures {
  readonly shipments: number
  readonly expected: Amounts
  readonly collected_not_remitted: Amounts
  readonly remitted: Amounts
  readonly fees: Amounts
  readonly returned: Amounts
  readonly discrepancies: {
    readonly not_remitted: Amounts
    readonly amount_differs: Amounts
    readonly unmatched_lines: Amounts
  }
}

const zero: Amounts = { count: 0, amount: 0 }
export const empty: Figures = {
  shipments: 0,
  expected: zero,
  collected_not_remitted: zero,
  remitted: zero,
  fees: zero,
  returned: zero,
  discrepancies: { not_remitted: zero, amount_differs: zero, unmatched_lines: zero }
}

const plus = (amounts: Amounts, amount: number, counted: boolean): Amounts =>
  counted ? { count: amounts.count + 1, amount: amounts.amount + amount } : amounts

/** The figures with one shipment more. `amount_differs` adds the amount paid. */
export const addShipment = (figures: Figures, row: LedgerRow, entry: Entry): Figures => ({
  shipments: figures.shipments + 1,
  expected: plus(figures.expected, entry.expected, entry.expected > 0),
  collected_not_remitted: plus(
    figures.collected_not_remitted,
    entry.collectedNotRemitted,
    row.codStatus === "collected"
  ),
  remitted: plus(figures.remitted, entry.remitted, row.codStatus === "remitted"),
  fees: plus(figures.fees, entry.fee, row.fee !== null),
  returned: plus(figures.returned, entry.returned, row.status === "returned"),
  discrepancies: {
    ...figures.discrepancies,
    not_remitted: plus(figures.discrepancies.not_remitted, row.expected, entry.discrepancy === "not_remitted"),
    amount_differs: plus(figures.discrepancies.amount_differs, entry.remitted, entry.discrepancy === "amount_differs")
  }
})

/** The figures with one unmatched statement line more. */
export const addUnmatched = (figures: Figures, line: UnmatchedLine): Figures => ({
  ...figures,
  discrepancies: {
    ...figures.discrepancies,
    unmatched_lines: plus(figures.discrepancies.unmatched_lines, line.amount, true)
  }
})

/** One discrepancy, as the JSON answer lists it. */
export interface Discrepancy {
  readonly kind: DiscrepancyKind
  readonly courier: string | null
  readonly order_id: number | null
  readonly order_number: string | null
  readonly tracking_number: string
  /** The COD the parcel carried; null for a statement line with no shipment. */
  readonly expected: number | null
  /** What was paid (the remittance, or the statement line); null when nothing was. */
  readonly amount: number | null
  /** The day of the delivery (`not_remitted`), of the status (`amount_differs`) or of the payment (a line). */
  readonly date: string
  readonly statement: string | null
}

export const shipmentDiscrepancy = (row: LedgerRow, entry: Entry): Discrepancy | undefined =>
  entry.discrepancy === undefined
    ? undefined
    : {
        kind: entry.discrepancy,
        courier: row.courier,
        order_id: row.orderId,
        order_number: row.orderNumber,
        tracking_number: row.trackingNumber,
        expected: row.expected,
        amount: entry.discrepancy === "amount_differs" ? entry.remitted : null,
        date: algiersDay(row.statusAt),
        statement: row.statement
      }

export const lineDiscrepancy = (line: UnmatchedLine): Discrepancy => ({
  kind: "unmatched_line",
  courier: line.courier,
  order_id: null,
  order_number: null,
  tracking_number: line.trackingNumber,
  expected: null,
  amount: line.amount,
  date: line.paidOn,
  statement: statementName(line.statementId)
})

/** An imported statement's name in the ledger: `stmt_<id>`. */
export const statementName = (id: number): string => `stmt_${id}`

/** The report's state while rows pass: the figures per courier (a few), the total, the first discrepancies. */
export interface Totals {
  readonly couriers: Map<string, Figures>
  total: Figures
  readonly listed: Array<Discrepancy>
  discrepancies: number
}

export const start = (): Totals => ({ couriers: new Map(), total: empty, listed: [], discrepancies: 0 })

const note = (totals: Totals, discrepancy: Discrepancy | undefined) => {
  if (discrepancy === undefined) return
  totals.discrepancies++
  if (totals.listed.length < MAX_LISTED) totals.listed.push(discrepancy)
}

/** Folds one shipment in (the state is updated in place: it is the fold's own). */
export const foldShipment = (totals: Totals, row: LedgerRow, query: Query): Entry => {
  const one = entry(row, query)
  totals.couriers.set(row.courier, addShipment(totals.couriers.get(row.courier) ?? empty, row, one))
  totals.total = addShipment(totals.total, row, one)
  note(totals, shipmentDiscrepancy(row, one))
  return one
}

/** A statement line with no shipment is the courier's the statement was imported for; `unattributed` otherwise. */
export const UNATTRIBUTED = "unattributed"

export const foldUnmatched = (totals: Totals, line: UnmatchedLine): void => {
  const courier = line.courier ?? UNATTRIBUTED
  totals.couriers.set(courier, addUnmatched(totals.couriers.get(courier) ?? empty, line))
  totals.total = addUnmatched(totals.total, line)
  note(totals, lineDiscrepancy(line))
}

// --- the CSV form ---------------------------------------------------------------------------------------------

export const CSV_HEADER =
  "row,courier,order_id,order_number,tracking_number,status,cod_status,date,expected,collected_not_remitted," +
  "remitted,fee,returned,unmatched_amount,statement,discrepancy\r\n"

/**
 * A CSV field: quoted when it holds a quote, a separator or a line break; a leading `=`, `+`, `-`, `@` (a formula
 * to a spreadsheet) is prefixed with `'` — a courier's text reaches a merchant's spreadsheet here.
 */
export const field = (value: string | number | null): string => {
  if (value === null) return ""
  if (typeof value === "number") return String(value)
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

const csvLine = (values: ReadonlyArray<string | number | null>): string => `${values.map(field).join(",")}\r\n`

export const shipmentCsv = (row: LedgerRow, one: Entry): string =>
  csvLine([
    "shipment",
    row.courier,
    row.orderId,
    row.orderNumber,
    row.trackingNumber,
    row.status,
    row.codStatus,
    algiersDay(row.statusAt),
    one.expected,
    one.collectedNotRemitted,
    one.remitted,
    row.fee,
    one.returned,
    null,
    row.statement,
    one.discrepancy ?? null
  ])

export const unmatchedCsv = (line: UnmatchedLine): string =>
  csvLine([
    "statement_line",
    line.courier ?? UNATTRIBUTED,
    null,
    null,
    line.trackingNumber,
    null,
    null,
    line.paidOn,
    null,
    null,
    null,
    null,
    null,
    line.amount,
    statementName(line.statementId),
    "unmatched_line"
  ])

/**
 * A totals line (`courier_total` for each courier, `total` last): the sums of the columns above it, and in the
 * `discrepancy` column how many discrepancies.
 */
export const totalsCsv = (kind: "courier_total" | "total", courier: string, figures: Figures): string => {
  const { discrepancies } = figures
  return csvLine([
    kind,
    courier,
    null,
    null,
    null,
    null,
    null,
    null,
    figures.expected.amount,
    figures.collected_not_remitted.amount,
    figures.remitted.amount,
    figures.fees.amount,
    figures.returned.amount,
    discrepancies.unmatched_lines.amount,
    null,
    discrepancies.not_remitted.count + discrepancies.amount_differs.count + discrepancies.unmatched_lines.count
  ])
}
