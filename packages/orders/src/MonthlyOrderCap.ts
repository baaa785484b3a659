/**
 * The monthly order cap of the store plans (spec "Limits", "Free plan orders"): 30 orders per Algiers calendar month,
 * counting every source (API, storefront, landing pages, dashboard), for the Free plan and for any plan name we do
 * not know; Pro, Unlimited and Enterprise are uncapped.
 */
import { Plans } from "@tawsil/domain"

export const FREE_ORDERS_PER_MONTH = 30

export const message = "Monthly order limit reached for this store plan"

/**
 * The most orders a store on `plan` may have in one Algiers month; `undefined` when there is no cap. The plan name
 * is read in any letter case (`PRO` is uncapped too).
 */
export const of = (plan: string): number | undefined => {
  const name = plan.toLowerCase()
  return Plans.isPlan(name) && Plans.isPaid(name) ? undefined : FREE_ORDERS_PER_MONTH
}
