/**
 * Store plans as the storefront's features rank them (spec store-api-config "Theme list item"): `free` < `pro` <
 * `unlimited` < `enterprise`, a plan opening everything below it. A paid plan past its expiry counts as `free`, and
 * so does a plan name we do not know.
 */
import { DateTime } from "effect"

export const PLANS = ["free", "pro", "unlimited", "enterprise"] as const
export type Plan = (typeof PLANS)[number]

const isPlan = (name: string): name is Plan => (PLANS as ReadonlyArray<string>).includes(name)

/** The plan a store has the use of now: its plan, unless that is paid and expired (or unknown), then `free`. */
export const effective = (plan: string, expiresAt: DateTime.Utc | null, now: DateTime.Utc): Plan => {
  if (!isPlan(plan)) return "free"
  if (plan !== "free" && expiresAt !== null && !DateTime.isGreaterThan(expiresAt, now)) return "free"
  return plan
}

export const rank = (plan: Plan): number => PLANS.indexOf(plan)

/** Whether `plan` opens what `required` asks. */
export const reaches = (plan: Plan, required: Plan): boolean => rank(plan) >= rank(required)
