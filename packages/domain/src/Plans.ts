/**
 * The store plans and their ranking (spec store-api-config "Plan ranking"): `free` < `pro` < `unlimited` <
 * `enterprise`, a plan opening everything below it, and an expired paid plan counting as `free`. The words once;
 * what a plan allows (orders a month, pixels, themes, the API) stays with the package that enforces it.
 */
import { DateTime, Schema } from "effect"

export const PLANS = ["free", "pro", "unlimited", "enterprise"] as const
export const Plan = Schema.Literals(PLANS)
export type Plan = typeof Plan.Type

/** Whether `name` is one of the four plans, exactly as written (`Pro` is not). */
export const isPlan = (name: string): name is Plan => (PLANS as ReadonlyArray<string>).includes(name)

/** Every plan but `free`. */
export const isPaid = (plan: Plan): boolean => plan !== "free"

/** 0 for `free` up to 3 for `enterprise`. */
export const rank = (plan: Plan): number => PLANS.indexOf(plan)

/** Whether `plan` opens what `required` asks. */
export const reaches = (plan: Plan, required: Plan): boolean => rank(plan) >= rank(required)

/** The plan a store has the use of now: its plan, unless that is paid and expired (or unknown), then `free`. */
export const effective = (plan: string, expiresAt: DateTime.Utc | null, now: DateTime.Utc): Plan => {
  if (!isPlan(plan)) return "free"
  if (isPaid(plan) && expiresAt !== null && !DateTime.isGreaterThan(expiresAt, now)) return "free"
  return plan
}
