/**
 * The plan the API serves, tiers and the limits that follow from them (spec "Usage and quota", "Limits"): the tier's
 * limits, a store's overrides, and the effective limits where an override wins and a null falls back to the tier.
 * `-1` means unlimited. The plan names are `Plans` of `@tawsil/domain`.
 */
import type { Ids, Plans } from "@tawsil/domain"
import { type DateTime, Schema } from "effect"

/** The API serves Enterprise stores (and installed-app tokens on any plan). */
export const API_PLAN: Plans.Plan = "enterprise"

/** The legacy tiers are retired: every key is on `enterprise`. */
export const TIER = "enterprise"

/** The four limits of a tier, an override or their effective combination; `-1` is unlimited. */
export const Limits = Schema.Struct({
  requests_per_month: Schema.Int,
  signups_per_month: Schema.Int,
  webhooks_per_month: Schema.Int,
  requests_per_minute: Schema.Int
})
export type Limits = typeof Limits.Type

const TIERS: Readonly<Record<string, Limits>> = {
  enterprise: { requests_per_month: -1, signups_per_month: -1, webhooks_per_month: -1, requests_per_minute: 600 }
}

/** A tier's limits; an unknown tier name is read as `enterprise`, the only one left. */
export const tierLimits = (tier: string): Limits => TIERS[tier] ?? TIERS[TIER]!

/** A limit value: a count, or -1 for unlimited. */
export const LimitValue = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(-1, { message: "Expected a whole number >= 0, or -1 for unlimited" })
)

/** A store's overrides (`quota_overrides`); a null field means the tier's value. */
export interface QuotaOverride {
  readonly storeId: Ids.StoreId
  readonly requestsPerMonth: number | null
  readonly signupsPerMonth: number | null
  readonly webhooksPerMonth: number | null
  readonly requestsPerMinute: number | null
  readonly notes: string | null
  readonly setByUserId: number | null
  readonly updatedAt: DateTime.Utc
}

/** Which override fields to change: absent keeps the field, null clears it (back to the tier's value). */
export interface OverridePatch {
  readonly requestsPerMinute?: number | null | undefined
  readonly requestsPerMonth?: number | null | undefined
}

/** Overrides win; nulls fall back to the tier. */
export const effective = (tier: Limits, override: QuotaOverride | undefined): Limits =>
  override === undefined
    ? tier
    : {
        requests_per_month: override.requestsPerMonth ?? tier.requests_per_month,
        signups_per_month: override.signupsPerMonth ?? tier.signups_per_month,
        webhooks_per_month: override.webhooksPerMonth ?? tier.webhooks_per_month,
        requests_per_minute: override.requestsPerMinute ?? tier.requests_per_minute
      }

export const isUnlimited = (limit: number): boolean => limit < 0
