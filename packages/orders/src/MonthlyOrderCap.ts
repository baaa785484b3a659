/**
 * The monthly order cap of the store plans (spec "Limits", "Free plan orders"): 30 orders per Algiers calendar month,
 * counting every source (API, storefront, landing pages, dashboard), for the Free plan and for any plan name we do
 * not know; Pro, Unlimited and Enterprise are uncapped.
 */

export const FREE_ORDERS_PER_MONTH = 30

export const message = "Monthly order limit reached for this store plan"

const uncapped: ReadonlySet<string> = new Set(["pro", "unlimited", "enterprise"])

/** The most orders a store on `plan` may have in one Algiers month; `undefined` when there is no cap. */
export const of = (plan: string): number | undefined =>
  uncapped.has(plan.toLowerCase()) ? undefined : FREE_ORDERS_PER_MONTH
