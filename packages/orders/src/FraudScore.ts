/**
 * A customer's return risk (`fraud_score`, docs/risk.md): a whole number from 0 to 100 computed from what the store's
 * own orders and shipments show of the customer, with the factors that made it. Pure: the counts come from
 * `RiskStore`, the rule is here, and each factor only ever moves the score one way.
 *
 * score = min(100, round(returns + fake + cancelled + address + velocity)), where
 * - returns  = 50 × returned / (returned + delivered + 1): refused or returned parcels against delivered ones;
 * - fake     = 15 per fake confirmation, at most 45;
 * - cancelled = 5 per order the customer cancelled at confirmation, at most 20;
 * - address  = 10 per other phone of the store at the customer's address, at most 30;
 * - velocity = 10 per order beyond the first in the last 24 hours, at most 30.
 */
import { Schema } from "effect"

/** What the store knows of a customer, as counts. */
export interface Inputs {
  /** The customer's parcels delivered. */
  readonly delivered: number
  /** The customer's parcels returned or on their way back (refusals included). */
  readonly returned: number
  /** Confirmation attempts that found the order fake. */
  readonly fakeConfirmations: number
  /** Orders the customer cancelled when asked to confirm. */
  readonly cancelledConfirmations: number
  /** Other phones (customers) of the store at the same address. */
  readonly otherPhonesAtAddress: number
  /** The customer's orders created in the last 24 hours, the one being judged included. */
  readonly ordersLast24h: number
}

export const FactorName = Schema.Literals([
  "returns",
  "fake_confirmations",
  "cancelled_confirmations",
  "shared_address",
  "velocity"
])
export type FactorName = typeof FactorName.Type

export const Level = Schema.Literals(["safe", "low", "medium", "high", "critical"])
export type Level = typeof Level.Type

export const Factor = Schema.Struct({
  factor: FactorName,
  /** The count the factor reads (returned parcels, fake confirmations, other phones, orders in 24 h…). */
  value: Schema.Int,
  /** What it adds to the score, before the sum is rounded and capped at 100. */
  points: Schema.Number,
  /** The most it can add. */
  max_points: Schema.Int
}).annotate({ identifier: "FraudFactor" })
export type Factor = typeof Factor.Type

export interface Score {
  readonly score: number
  readonly level: Level
  readonly factors: ReadonlyArray<Factor>
}

/** The weights of the formula (docs/risk.md lists them). */
export const weights = {
  returns: 50,
  perFake: 15,
  maxFake: 45,
  perCancelled: 5,
  maxCancelled: 20,
  perOtherPhone: 10,
  maxOtherPhones: 30,
  perExtraOrder: 10,
  maxVelocity: 30
} as const

/** Where each level starts. */
export const levels: ReadonlyArray<readonly [number, Level]> = [
  [80, "critical"],
  [60, "high"],
  [40, "medium"],
  [20, "low"],
  [0, "safe"]
]

const count = (n: number) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0)
const capped = (per: number, n: number, max: number) => Math.min(max, per * n)
const rounded = (points: number) => Math.round(points * 100) / 100

export const levelOf = (score: number): Level => levels.find(([from]) => score >= from)![1]

/** The score of a customer and its factors, every factor listed (0 points where it does not apply). */
export const score = (inputs: Inputs): Score => {
  const delivered = count(inputs.delivered)
  const returned = count(inputs.returned)
  const fake = count(inputs.fakeConfirmations)
  const cancelled = count(inputs.cancelledConfirmations)
  const phones = count(inputs.otherPhonesAtAddress)
  const extra = Math.max(0, count(inputs.ordersLast24h) - 1)
  const factors: ReadonlyArray<Factor> = [
    {
      factor: "returns",
      value: returned,
      points: (weights.returns * returned) / (returned + delivered + 1),
      max_points: weights.returns
    },
    {
      factor: "fake_confirmations",
      value: fake,
      points: capped(weights.perFake, fake, weights.maxFake),
      max_points: weights.maxFake
    },
    {
      factor: "cancelled_confirmations",
      value: cancelled,
      points: capped(weights.perCancelled, cancelled, weights.maxCancelled),
      max_points: weights.maxCancelled
    },
    {
      factor: "shared_address",
      value: phones,
      points: capped(weights.perOtherPhone, phones, weights.maxOtherPhones),
      max_points: weights.maxOtherPhones
    },
    {
      factor: "velocity",
      value: count(inputs.ordersLast24h),
      points: capped(weights.perExtraOrder, extra, weights.maxVelocity),
      max_points: weights.maxVelocity
    }
  ]
  const total = Math.min(100, Math.round(factors.reduce((sum, factor) => sum + factor.points, 0)))
  return { score: total, level: levelOf(total), factors: factors.map((f) => ({ ...f, points: rounded(f.points) })) }
}

/** A customer nothing is known of. */
export const none: Score = score({
  delivered: 0,
  returned: 0,
  fakeConfirmations: 0,
  cancelledConfirmations: 0,
  otherPhonesAtAddress: 0,
  ordersLast24h: 0
})
