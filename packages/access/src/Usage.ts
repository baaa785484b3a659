/**
 * Usage and quotas on the wire (spec "Usage and quota": `GET /v1/usage`, `/v1/usage/history`, `/v1/quotas`) and the
 * history's range rules: `from` (default 7 days ago, inclusive) and `to` (default now, exclusive), both floored to
 * the hour for the query, at most 90 days apart. A date or date-time without an offset is read in Algiers time.
 */
import { AlgiersTime, Ids } from "@tawsil/domain"
import { DateTime, Duration, Effect, Schema } from "effect"
import { InvalidHistoryRange } from "./AccessError.ts"
import { Limits, type QuotaOverride, TIER } from "./Limits.ts"
import type { HourUsage, MonthUsage } from "./UsageStore.ts"

const GroupTotals = Schema.Struct({ total: Schema.Number, billable: Schema.Number })

/** `GET /v1/usage` data; `usage` is `[]` when the month has none (the spec's serialisation of an empty object). */
export const Usage = Schema.Struct({
  period: Schema.String,
  tier: Schema.Literal(TIER),
  usage: Schema.Union([Schema.Record(Schema.String, GroupTotals), Schema.Tuple([])]),
  limits: Limits
})
export type Usage = typeof Usage.Type

export const HistoryRow = Schema.Struct({
  /** `YYYY-MM-DD HH:00:00`, Algiers time. */
  period_hour: Schema.String,
  endpoint_group: Schema.String,
  count: Schema.Number,
  billable_count: Schema.Number
})

/** `GET /v1/usage/history` data: the inputs as parsed (ISO with offset, not floored) and the hours with usage. */
export const UsageHistory = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  rows: Schema.Array(HistoryRow)
})
export type UsageHistory = typeof UsageHistory.Type

export const QuotaOverrides = Schema.Struct({
  store_id: Ids.StoreId,
  requests_per_month: Schema.NullOr(Schema.Int),
  signups_per_month: Schema.NullOr(Schema.Int),
  webhooks_per_month: Schema.NullOr(Schema.Int),
  requests_per_minute: Schema.NullOr(Schema.Int),
  notes: Schema.NullOr(Schema.String),
  set_by_user_id: Schema.NullOr(Schema.Int),
  updated_at: Schema.String
})

/** `GET /v1/quotas` data. */
export const Quotas = Schema.Struct({
  tier: Schema.Literal(TIER),
  tier_limits: Limits,
  overrides: Schema.NullOr(QuotaOverrides),
  effective: Limits
})
export type Quotas = typeof Quotas.Type

export const toUsage = (month: MonthUsage, limits: Limits): Usage => ({
  period: month.period,
  tier: TIER,
  usage:
    month.groups.length === 0
      ? []
      : Object.fromEntries(
          month.groups.map((group) => [group.group, { total: group.total, billable: group.billable }])
        ),
  limits
})

export const toQuotas = (tierLimits: Limits, override: QuotaOverride | undefined, effective: Limits): Quotas => ({
  tier: TIER,
  tier_limits: tierLimits,
  overrides:
    override === undefined
      ? null
      : {
          store_id: override.storeId,
          requests_per_month: override.requestsPerMonth,
          signups_per_month: override.signupsPerMonth,
          webhooks_per_month: override.webhooksPerMonth,
          requests_per_minute: override.requestsPerMinute,
          notes: override.notes,
          set_by_user_id: override.setByUserId,
          updated_at: AlgiersTime.formatSql(override.updatedAt)
        },
  effective
})

export const toHistory = (
  range: { readonly from: DateTime.Utc; readonly to: DateTime.Utc },
  rows: ReadonlyArray<HourUsage>
): UsageHistory => ({
  from: AlgiersTime.formatIso(range.from),
  to: AlgiersTime.formatIso(range.to),
  rows: rows.map((row) => ({
    period_hour: AlgiersTime.formatSql(row.periodHour),
    endpoint_group: row.group,
    count: row.count,
    billable_count: row.billable
  }))
})

export const DEFAULT_HISTORY = Duration.days(7)
export const MAX_HISTORY = Duration.days(90)
export const INVALID_RANGE = "from/to must be valid date strings, to >= from"
export const RANGE_TOO_LARGE = "range too large (max 90 days)"

const dateOnly = /^\d{4}-\d{2}-\d{2}$/
const localDateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/
const offsetDateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i

/** A date or date-time; without an offset, Algiers time (UTC+01:00, no daylight saving time). */
export const parseInstant = (text: string): DateTime.Utc | undefined => {
  const trimmed = text.trim()
  const iso = dateOnly.test(trimmed)
    ? `${trimmed}T00:00:00+01:00`
    : localDateTime.test(trimmed)
      ? `${trimmed.replace(" ", "T")}+01:00`
      : offsetDateTime.test(trimmed)
        ? trimmed.replace(" ", "T")
        : undefined
  if (iso === undefined) return undefined
  const millis = Date.parse(iso)
  return Number.isFinite(millis) ? DateTime.makeUnsafe(millis) : undefined
}

const floorToHour = (instant: DateTime.Utc) => {
  const millis = DateTime.toEpochMillis(instant)
  return DateTime.makeUnsafe(millis - (((millis % 3_600_000) + 3_600_000) % 3_600_000))
}

/** The range a history query asks for, `now` being the current time. */
export const historyRange = (
  query: { readonly from?: string | undefined; readonly to?: string | undefined },
  now: DateTime.Utc
): Effect.Effect<
  {
    readonly from: DateTime.Utc
    readonly to: DateTime.Utc
    readonly queryFrom: DateTime.Utc
    readonly queryTo: DateTime.Utc
  },
  InvalidHistoryRange
> => {
  const to = query.to === undefined || query.to === "" ? now : parseInstant(query.to)
  const from =
    query.from === undefined || query.from === ""
      ? DateTime.subtractDuration(now, DEFAULT_HISTORY)
      : parseInstant(query.from)
  if (from === undefined || to === undefined || DateTime.toEpochMillis(to) < DateTime.toEpochMillis(from)) {
    return Effect.fail(new InvalidHistoryRange({ message: INVALID_RANGE }))
  }
  if (DateTime.toEpochMillis(to) - DateTime.toEpochMillis(from) > Duration.toMillis(MAX_HISTORY)) {
    return Effect.fail(new InvalidHistoryRange({ message: RANGE_TOO_LARGE }))
  }
  return Effect.succeed({ from, to, queryFrom: floorToHour(from), queryTo: floorToHour(to) })
}
