/**
 * Why a `Risk` operation failed: one error, `RiskError`, whose `reason` says what went wrong. Transport-agnostic: an
 * API decides which status each reason gets.
 */
import { Schema } from "effect"

/** A ban body breaks a rule (the phone's pattern, the reason's length). */
export class InvalidBan extends Schema.TaggedError<InvalidBan>()("InvalidBan", { message: Schema.String }) {}

/** The phone has no ban to lift. */
export class BanNotFound extends Schema.TaggedError<BanNotFound>()("BanNotFound", { message: Schema.String }) {}

/** No customer with that id in the store. */
export class RiskCustomerNotFound extends Schema.TaggedError<RiskCustomerNotFound>()("RiskCustomerNotFound", {
  message: Schema.String
}) {}

/** No order with that id in the store. */
export class RiskOrderNotFound extends Schema.TaggedError<RiskOrderNotFound>()("RiskOrderNotFound", {
  message: Schema.String
}) {}

/** The settings body, or a report's query, breaks a rule. */
export class InvalidRiskRequest extends Schema.TaggedError<InvalidRiskRequest>()("InvalidRiskRequest", {
  message: Schema.String
}) {}

export const RiskErrorReason = Schema.Union([
  InvalidBan,
  BanNotFound,
  RiskCustomerNotFound,
  RiskOrderNotFound,
  InvalidRiskRequest
])
export type RiskErrorReason = typeof RiskErrorReason.Type

export class RiskError extends Schema.TaggedError<RiskError>()("RiskError", { reason: RiskErrorReason }) {
  override get message() {
    return this.reason.message
  }
}

export const fail = (reason: RiskErrorReason) => new RiskError({ reason })
