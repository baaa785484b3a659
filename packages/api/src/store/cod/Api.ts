/**
 * The COD ledger (docs/cod-ledger.md): a courier's payout statement imported and matched to the store's shipments,
 * and the reconciliation report — per courier and in total, what was expected, collected, remitted, kept as fees,
 * returned, and where it disagrees — as JSON or as a streamed CSV.
 */
import * as CodLedgerError from "@tawsil/shipments/CodLedgerError"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

/** Both refusals are a request that breaks a rule, answered with the message naming it. */
export const reasons = Reasons.of(CodLedgerError.CodLedgerErrorReason, {
  InvalidStatement: "bad_request",
  InvalidReportQuery: "bad_request"
})

const { Data } = Endpoint

const Outcome = Schema.Literals(["matched", "amount_differs", "unmatched", "repeated"])

export const StatementImported = Schema.Struct({
  id: Schema.Int,
  statement: Schema.String.annotate({ description: "Its name in the ledger: stmt_<id>" }),
  courier: Schema.NullOr(Schema.String),
  lines: Schema.Int,
  total: Schema.Int.annotate({ description: "The sum of its lines, whole dinars" }),
  matched: Schema.Int.annotate({ description: "Lines that paid their shipment its COD" }),
  remitted: Schema.Int.annotate({ description: "Lines that remitted their shipment, flagged or not" }),
  flagged: Schema.Array(
    Schema.Struct({
      line: Schema.Int,
      tracking_number: Schema.String,
      amount: Schema.Int,
      date: Schema.String,
      outcome: Outcome,
      order_id: Schema.NullOr(Schema.Int),
      expected: Schema.NullOr(Schema.Int)
    })
  ).annotate({
    description:
      "Every line that is not a plain match: amount_differs (paid another amount than the COD, or the COD less the " +
      "courier's fee), unmatched (no shipment of the store has that tracking number, or not at the statement's " +
      "courier), repeated (its parcel was paid by an earlier line). Kept with the statement."
  })
}).annotate({ identifier: "CodStatementImported" })

const Amounts = Schema.Struct({ count: Schema.Int, amount: Schema.Int }).annotate({ identifier: "CodAmounts" })

export const Figures = Schema.Struct({
  shipments: Schema.Int,
  expected: Amounts.annotate({ description: "The COD of the shipments not cancelled" }),
  collected_not_remitted: Amounts,
  remitted: Amounts,
  fees: Amounts,
  returned: Amounts,
  discrepancies: Schema.Struct({
    not_remitted: Amounts.annotate({ description: "Delivered more than stale_after_days days ago, not remitted" }),
    amount_differs: Amounts.annotate({ description: "Remitted another amount than the COD (less the fee)" }),
    unmatched_lines: Amounts.annotate({ description: "Statement lines naming no shipment of the store" })
  })
}).annotate({ identifier: "CodFigures" })

export const Report = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  courier: Schema.NullOr(Schema.String),
  stale_after_days: Schema.Int,
  as_of: Schema.String,
  couriers: Schema.Array(Schema.Struct({ courier: Schema.String, ...Figures.fields })),
  total: Figures,
  discrepancies: Schema.Array(
    Schema.Struct({
      kind: Schema.Literals(["not_remitted", "amount_differs", "unmatched_line"]),
      courier: Schema.NullOr(Schema.String),
      order_id: Schema.NullOr(Schema.Int),
      order_number: Schema.NullOr(Schema.String),
      tracking_number: Schema.String,
      expected: Schema.NullOr(Schema.Int),
      amount: Schema.NullOr(Schema.Int),
      date: Schema.String,
      statement: Schema.NullOr(Schema.String)
    })
  ),
  discrepancies_truncated: Schema.Boolean
}).annotate({ identifier: "CodReport" })

const Day = Schema.String.annotate({ description: "YYYY-MM-DD (an Algiers day)" })

export class CodGroup extends HttpApiGroup.make("cod")
  .add(
    /**
     * Imports a courier's payout statement: CSV (`Content-Type: text/csv`, at most 1 MB and 20 000 lines) with a
     * header naming `tracking_number`, `amount` (whole dinars) and `date` (`YYYY-MM-DD` or `DD/MM/YYYY`), commas or
     * semicolons between fields. Each line is matched to the store's shipment with that tracking number (of the
     * `courier` given, when given); a line that pays a shipment remits its COD (`payment.received` fires once per
     * shipment). Every line that is not a plain match is flagged in the answer and kept. One unreadable line refuses
     * the whole statement (400, the message naming each bad line).
     */
    Endpoint.post("importCodStatement", "/v1/cod/statements", {
      payload: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/csv" })),
      success: Data(StatementImported).pipe(HttpApiSchema.status(201)),
      error: [...Errors.writes, ...reasons.classes],
      scope: "cod:write"
    }).annotate(Endpoint.TextBody, true),
    /**
     * The reconciliation report of the shipments shipped in the period, per courier and in total, and its
     * discrepancies (the first 1 000 listed). With `Accept: text/csv`, the same as CSV, streamed: a line per shipment
     * and per unmatched statement line, then each courier's totals and the total.
     */
    HttpApiEndpoint.get("codReport", "/v1/reports/cod", {
      query: {
        /** The first day of the period, by the day shipments were shipped; default 29 days before `to`. */
        from: Schema.optionalKey(Day),
        /** The last day, included; default today. At most 366 days after `from`. */
        to: Schema.optionalKey(Day),
        /** One courier's shipments (a key of `GET /v1/couriers`). */
        courier: Schema.optionalKey(Schema.String),
        /** A delivery not remitted after this many days is a discrepancy: 1 to 365, default 14. */
        stale_after_days: Schema.optionalKey(Schema.String)
      },
      success: Data(Report),
      error: [...Errors.reads, ...reasons.classes]
    }).annotate(Endpoint.RequiredScope, "cod:read")
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "cod",
      description:
        "The COD ledger: payout statements matched to shipments, and the reconciliation report. docs/cod-ledger.md."
    })
  ) {}
