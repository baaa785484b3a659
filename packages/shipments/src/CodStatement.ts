/**
 * A courier's payout statement as a store imports it (docs/cod-ledger.md, `POST /v1/cod/statements`): CSV text, one
 * line per parcel paid — its tracking number, the amount paid, the date — read (`parse`) and matched to the store's
 * shipments (`match`). Pure: the service reads the shipments and records what these functions decide.
 *
 * Reading is strict, and all or nothing: a statement is money, so one line we cannot read refuses the whole import
 * (the answer names every bad line, up to a bound) rather than importing part of it. Matching keeps every line and
 * flags what does not fit: a tracking number no shipment of the store has, an amount other than the parcel's cash on
 * delivery less the courier's fee, a parcel paid twice in one statement.
 */
import { StoreText } from "@tawsil/domain"
import { Schema } from "effect"

/** At most this many lines a statement (a month of a busy store's parcels at one courier, with room). */
export const MAX_LINES = 20_000

/** The largest amount a line may pay: whole dinars, below a trillion. */
export const MAX_AMOUNT = 999_999_999_999

/** The longest tracking number kept (as the courier SDK's `TrackingNumber`). */
export const TRACKING_MAX = 80

/** At most this many bad lines named in a refusal. */
export const PROBLEMS_SHOWN = 10

/** One line of a statement: the parcel, what was paid for it, the day it was paid (`YYYY-MM-DD`). */
export interface Line {
  /** Its line number in the CSV text, the header being line 1. */
  readonly line: number
  readonly trackingNumber: string
  readonly amount: number
  readonly paidOn: string
}

/** Why a statement cannot be read: each problem names its line. */
export interface Unreadable {
  readonly problems: ReadonlyArray<string>
}

const HEADERS: Readonly<Record<string, "trackingNumber" | "amount" | "paidOn">> = {
  tracking_number: "trackingNumber",
  tracking: "trackingNumber",
  amount: "amount",
  montant: "amount",
  date: "paidOn",
  paid_on: "paidOn"
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/**
 * The text's records, RFC 4180: fields split on `delimiter`, a field in double quotes may hold the delimiter, line
 * breaks and `""` for a quote. Each record with the line it starts on. Undefined for a quote left open.
 */
const records = (
  text: string,
  delimiter: string
): { readonly rows: ReadonlyArray<{ readonly line: number; readonly fields: ReadonlyArray<string> }> } | string => {
  const rows: Array<{ line: number; fields: Array<string> }> = []
  let fields: Array<string> = []
  let field = ""
  let quoted = false
  let line = 1
  let start = 1
  let i = 0
  const endRecord = () => {
    fields.push(field)
    rows.push({ line: start, fields })
    fields = []
    field = ""
  }
  while (i < text.length) {
    const char = text[i]!
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i += 2
          continue
        }
        quoted = false
      } else {
        if (char === "\n") line++
        field += char
      }
      i++
      continue
    }
    if (char === '"' && field === "") quoted = true
    else if (char === delimiter) {
      fields.push(field)
      field = ""
    } else if (char === "\r" || char === "\n") {
      if (char === "\r" && text[i + 1] === "\n") i++
      endRecord()
      line++
      start = line
    } else field += char
    i++
  }
  if (quoted) return `line ${start}: a quoted field is not closed`
  if (field !== "" || fields.length > 0) endRecord()
  return { rows }
}

/** `1500`, `1500.00`, `1500,00` (a decimal comma, with `;` between fields): whole dinars. */
const amountOf = (text: string): number | string => {
  const match = /^(\d{1,15})(?:[.,](\d{1,2}))?$/.exec(text)
  if (match === null) return "amount must be a number of dinars such as 1500 or 1500.00"
  if (match[2] !== undefined && /[1-9]/.test(match[2])) return "amount must be whole dinars"
  const amount = Number(match[1])
  if (amount > MAX_AMOUNT) return `amount must be at most ${MAX_AMOUNT}`
  return amount
}

/** `2026-11-30` or `30/11/2026` (the day first, as Algerian statements write it): a real calendar day. */
const dateOf = (text: string): string | { readonly problem: string } => {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  const dmy = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text)
  const [year, month, day] = iso
    ? [Number(iso[1]), Number(iso[2]), Number(iso[3])]
    : dmy
      ? [Number(dmy[3]), Number(dmy[2]), Number(dmy[1])]
      : [Number.NaN, Number.NaN, Number.NaN]
  if (Number.isNaN(year)) return { problem: "date must be YYYY-MM-DD or DD/MM/YYYY" }
  if (year < 2000 || year > 2100) return { problem: "date must be between 2000 and 2100" }
  const at = new Date(Date.UTC(year, month - 1, day))
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) {
    return { problem: "date is not a day of the calendar" }
  }
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
}

/**
 * A statement's lines, or every reason it cannot be read. The first line is the header: `tracking_number`,
 * `amount`, `date` in any order (also `tracking`, `montant`, `paid_on`; other columns ignored), separated by commas
 * or semicolons. Empty lines are skipped.
 */
export const parse = (text: string): { readonly lines: ReadonlyArray<Line> } | Unreadable => {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text
  if (body.includes("\u0000")) return { problems: ["the statement contains a NUL character"] }
  if (!StoreText.isStorable(body)) return { problems: ["the statement is not valid UTF-8 text"] }
  const firstBreak = body.search(/[\r\n]/)
  const header = firstBreak === -1 ? body : body.slice(0, firstBreak)
  const delimiter = header.includes(";") && !header.includes(",") ? ";" : ","
  const read = records(body, delimiter)
  if (typeof read === "string") return { problems: [read] }
  const [head, ...rest] = read.rows.filter((row) => row.fields.some((field) => field.trim() !== ""))
  if (head === undefined) return { problems: ["the statement is empty: expected a header tracking_number,amount,date"] }
  const columns = new Map<"trackingNumber" | "amount" | "paidOn", number>()
  head.fields.forEach((name, index) => {
    const key = name.trim().toLowerCase()
    const column = Object.hasOwn(HEADERS, key) ? HEADERS[key]! : undefined
    if (column !== undefined && !columns.has(column)) columns.set(column, index)
  })
  if (columns.size < 3) {
    return { problems: [`line ${head.line}: the header must name the columns tracking_number, amount and date`] }
  }
  if (rest.length > MAX_LINES) return { problems: [`the statement has more than ${MAX_LINES} lines`] }
  const problems: Array<string> = []
  const lines: Array<Line> = []
  for (const row of rest) {
    const cell = (column: "trackingNumber" | "amount" | "paidOn") => (row.fields[columns.get(column)!] ?? "").trim()
    const mistakes: Array<string> = []
    const trackingNumber = cell("trackingNumber")
    if (trackingNumber === "") mistakes.push("tracking_number is empty")
    else if (trackingNumber.length > TRACKING_MAX) mistakes.push(`tracking_number is over ${TRACKING_MAX} characters`)
    else if (CONTROL.test(trackingNumber)) mistakes.push("tracking_number holds a control character")
    const amount = amountOf(cell("amount"))
    if (typeof amount === "string") mistakes.push(amount)
    const paidOn = dateOf(cell("paidOn"))
    if (typeof paidOn !== "string") mistakes.push(paidOn.problem)
    if (mistakes.length > 0) problems.push(`line ${row.line}: ${mistakes.join("; ")}`)
    else lines.push({ line: row.line, trackingNumber, amount: amount as number, paidOn: paidOn as string })
  }
  if (problems.length > 0) return { problems }
  if (lines.length === 0) return { problems: ["the statement has no line after its header"] }
  return { lines }
}

/** The refusal's message: the problems, at most `PROBLEMS_SHOWN` of them named. */
export const describe = (unreadable: Unreadable): string => {
  const shown = unreadable.problems.slice(0, PROBLEMS_SHOWN)
  const more = unreadable.problems.length - shown.length
  return `The statement cannot be imported: ${shown.join(" | ")}${more > 0 ? ` | and ${more} more` : ""}`
}

/** A shipment a line may pay: the order it belongs to, its courier, the cash it carried. */
export interface Payable {
  readonly orderId: number
  readonly courier: string
  /** The cash on delivery the parcel carried, whole dinars. */
  readonly expected: number
  /** The courier's fee where it reported one (a line pays the COD less the fee). */
  readonly fee: number | null
}

/**
 * What a line was found to be: `matched` (its shipment, the amount it carried), `amount_differs` (its shipment, paid
 * another amount), `unmatched` (no shipment of the store has that tracking number, or not at the statement's
 * courier), `repeated` (the parcel was paid by an earlier line of the same statement: kept, not applied twice).
 */
export const Outcome = Schema.Literals(["matched", "amount_differs", "unmatched", "repeated"])
export type Outcome = typeof Outcome.Type

export interface Matched extends Line {
  readonly outcome: Outcome
  readonly orderId: number | null
  readonly courier: string | null
  readonly expected: number | null
}

/**
 * Each line with its outcome. A line pays what its shipment is owed when its amount is the parcel's COD less the
 * courier's fee where one was reported (a courier that keeps its fee pays the rest).
 */
export const match = (
  lines: ReadonlyArray<Line>,
  shipments: ReadonlyMap<string, Payable>,
  courier: string | undefined
): ReadonlyArray<Matched> => {
  const paid = new Set<string>()
  return lines.map((line): Matched => {
    const found = shipments.get(line.trackingNumber)
    if (found === undefined || (courier !== undefined && found.courier !== courier)) {
      return { ...line, outcome: "unmatched", orderId: null, courier: courier ?? null, expected: null }
    }
    const known = { orderId: found.orderId, courier: found.courier, expected: found.expected }
    if (paid.has(line.trackingNumber)) return { ...line, ...known, outcome: "repeated" }
    paid.add(line.trackingNumber)
    const owed = found.expected - (found.fee ?? 0)
    return {
      ...line,
      ...known,
      outcome: line.amount === found.expected || line.amount === owed ? "matched" : "amount_differs"
    }
  })
}

/** The lines that remit their shipment's cash: the first payment of each parcel found. */
export const remitting = (matched: ReadonlyArray<Matched>): ReadonlyArray<Matched & { readonly orderId: number }> =>
  matched.filter(
    (line): line is Matched & { readonly orderId: number } =>
      line.orderId !== null && (line.outcome === "matched" || line.outcome === "amount_differs")
  )
