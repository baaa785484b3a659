/**
 * Why a COD ledger call was refused: `CodLedgerError`, whose `reason` names the rule. Transport-agnostic: the store
 * API answers both with 400 `bad_request` and the message. No host is imported here: the API contract names this
 * module.
 */
import { Schema } from "effect"

/** The statement cannot be read (the message names each bad line, up to ten): nothing was imported. */
export class InvalidStatement extends Schema.TaggedError<InvalidStatement>()("InvalidStatement", {
  message: Schema.String
}) {}

/** The report's period or threshold breaks a rule (the message names the parameter). */
export class InvalidReportQuery extends Schema.TaggedError<InvalidReportQuery>()("InvalidReportQuery", {
  message: Schema.String
}) {}

export const CodLedgerErrorReason = Schema.Union([InvalidStatement, InvalidReportQuery])
export type CodLedgerErrorReason = typeof CodLedgerErrorReason.Type

export class CodLedgerError extends Schema.TaggedError<CodLedgerError>()("CodLedgerError", {
  reason: CodLedgerErrorReason
}) {
  override get message() {
    return this.reason.message
  }
}
