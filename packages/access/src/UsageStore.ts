/**
 * Where calls are counted and limits overridden: the port, and its in-memory implementation (tests, one-process
 * runs).
 *
 * `meter` counts one call of a store twice in one step: in the store's window (a wall-clock minute) and in its
 * usage of the hour (Algiers time; Algiers keeps UTC+01:00 all year, so its hours are UTC's hours), and says what
 * the counts are now. The limits themselves are `Access`'s to apply.
 */
import { AlgiersTime, type Ids } from "@tawsil/domain"
import { Clock, Context, DateTime, Effect, Layer, Option } from "effect"
import type { OverridePatch, QuotaOverride } from "./Limits.ts"

/** The group every authenticated API call is counted in (always billable 0). */
export const REQUEST_GROUP = "request"

/** What `meterWindow` found after counting the call. */
export interface WindowCount {
  /** Calls of the store in the current window, this one included. */
  readonly windowCount: number
  /** Whole seconds until the window ends, 1 to 60. */
  readonly resetSeconds: number
}

/** What `meter` found after counting the call. */
export interface MeterCount extends WindowCount {
  /** Requests of the store this Algiers month, this one included; null unless asked for. */
  readonly monthCount: number | null
}

export interface GroupUsage {
  readonly group: string
  readonly total: number
  readonly billable: number
}

export interface MonthUsage {
  /** `YYYY-MM`, the current month in Algiers. */
  readonly period: string
  readonly groups: ReadonlyArray<GroupUsage>
}

export interface HourUsage {
  readonly periodHour: DateTime.Utc
  readonly group: string
  readonly count: number
  readonly billable: number
}

/** Calls of one group to add to a store's usage of an hour (signups and events are counted when written). */
export interface UsageIncrement {
  readonly storeId: Ids.StoreId
  readonly group: string
  /** Any instant of the hour (Algiers hours are UTC's hours). */
  readonly at: DateTime.Utc
  readonly total: number
  readonly billable: number
}

/** Windows older than this are no longer read and may be purged. */
export const WINDOW_RETENTION_MILLIS = 60 * 60 * 1000

export class UsageStore extends Context.Service<
  UsageStore,
  {
    /**
     * Counts one call of the store in its current window and in the hour's `request` usage, atomically and on the
     * store's clock (the database's for SQL, so every instance agrees), and returns the counts. `month: true` also
     * returns the month's request count.
     */
    readonly meter: (storeId: Ids.StoreId, options: { readonly month: boolean }) => Effect.Effect<MeterCount>
    /**
     * Counts one call of the store in its current window only, as `meter` does: a signed call, which spends the
     * store's per-minute budget like any call of its keys but is no `request` (its own group is counted when it is
     * written).
     */
    readonly meterWindow: (storeId: Ids.StoreId) => Effect.Effect<WindowCount>
    /** Adds the increments to the stores' hourly usage (several for one store, hour and group add up). */
    readonly count: (increments: ReadonlyArray<UsageIncrement>) => Effect.Effect<void>
    /** The store's usage this Algiers month, per group. */
    readonly monthUsage: (storeId: Ids.StoreId) => Effect.Effect<MonthUsage>
    /** The store's hourly usage in `[from, to)`, ascending by hour then group. */
    readonly history: (
      storeId: Ids.StoreId,
      from: DateTime.Utc,
      to: DateTime.Utc
    ) => Effect.Effect<ReadonlyArray<HourUsage>>
    readonly findOverride: (storeId: Ids.StoreId) => Effect.Effect<Option.Option<QuotaOverride>>
    /** Changes the fields `patch` names (creating the store's override row when it has none) and returns it. */
    readonly setOverride: (storeId: Ids.StoreId, patch: OverridePatch) => Effect.Effect<QuotaOverride>
    /** Deletes the windows older than an hour and says how many. Correctness never depends on it. */
    readonly purgeWindows: Effect.Effect<number>
  }
>()("@tawsil/access/UsageStore") {}

const MINUTE = 60_000
const HOUR = 3_600_000

/** Counters in `Map`s, on `Clock` time (so `TestClock` drives windows and months). */
export const layerMemory: Layer.Layer<UsageStore> = Layer.sync(UsageStore, () => {
  const windows = new Map<string, { readonly storeId: number; readonly start: number; count: number }>()
  const hours = new Map<
    string,
    { readonly storeId: number; readonly hour: number; readonly group: string; count: number; billable: number }
  >()
  const overrides = new Map<number, QuotaOverride>()
  const monthOf = (millis: number) => AlgiersTime.month(DateTime.makeUnsafe(millis))

  const monthCount = (storeId: number, now: number) => {
    const month = monthOf(now)
    let count = 0
    for (const row of hours.values()) {
      if (row.storeId === storeId && row.group === REQUEST_GROUP && monthOf(row.hour) === month) count += row.count
    }
    return count
  }

  const countWindow = (storeId: number, now: number): WindowCount => {
    const start = now - (now % MINUTE)
    const window = windows.get(`${storeId} ${start}`) ?? { storeId, start, count: 0 }
    window.count++
    windows.set(`${storeId} ${start}`, window)
    return { windowCount: window.count, resetSeconds: Math.ceil((start + MINUTE - now) / 1000) }
  }

  return UsageStore.of({
    meter: (storeId, options) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const window = countWindow(storeId, now)
        const hour = now - (now % HOUR)
        const usage = hours.get(`${storeId} ${hour} ${REQUEST_GROUP}`) ?? {
          storeId,
          hour,
          group: REQUEST_GROUP,
          count: 0,
          billable: 0
        }
        usage.count++
        hours.set(`${storeId} ${hour} ${REQUEST_GROUP}`, usage)
        return { ...window, monthCount: options.month ? monthCount(storeId, now) : null }
      }),
    meterWindow: (storeId) => Effect.map(Clock.currentTimeMillis, (now) => countWindow(storeId, now)),
    count: (increments) =>
      Effect.sync(() => {
        for (const increment of increments) {
          const millis = DateTime.toEpochMillis(increment.at)
          const hour = millis - (millis % HOUR)
          const id = `${increment.storeId} ${hour} ${increment.group}`
          const usage = hours.get(id) ?? {
            storeId: increment.storeId,
            hour,
            group: increment.group,
            count: 0,
            billable: 0
          }
          usage.count += increment.total
          usage.billable += increment.billable
          hours.set(id, usage)
        }
      }),
    monthUsage: (storeId) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const month = monthOf(now)
        const groups = new Map<string, GroupUsage>()
        for (const row of hours.values()) {
          if (row.storeId !== storeId || monthOf(row.hour) !== month) continue
          const sum = groups.get(row.group) ?? { group: row.group, total: 0, billable: 0 }
          groups.set(row.group, {
            group: row.group,
            total: sum.total + row.count,
            billable: sum.billable + row.billable
          })
        }
        return { period: month, groups: [...groups.values()].sort((a, b) => a.group.localeCompare(b.group)) }
      }),
    history: (storeId, from, to) =>
      Effect.sync(() =>
        [...hours.values()]
          .filter(
            (row) =>
              row.storeId === storeId &&
              row.hour >= DateTime.toEpochMillis(from) &&
              row.hour < DateTime.toEpochMillis(to)
          )
          .sort((a, b) => a.hour - b.hour || a.group.localeCompare(b.group))
          .map((row) => ({
            periodHour: DateTime.makeUnsafe(row.hour),
            group: row.group,
            count: row.count,
            billable: row.billable
          }))
      ),
    findOverride: (storeId) => Effect.sync(() => Option.fromNullishOr(overrides.get(storeId))),
    setOverride: (storeId, patch) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const current = overrides.get(storeId)
        const updated: QuotaOverride = {
          storeId,
          requestsPerMonth:
            patch.requestsPerMonth !== undefined ? patch.requestsPerMonth : (current?.requestsPerMonth ?? null),
          signupsPerMonth: current?.signupsPerMonth ?? null,
          webhooksPerMonth: current?.webhooksPerMonth ?? null,
          requestsPerMinute:
            patch.requestsPerMinute !== undefined ? patch.requestsPerMinute : (current?.requestsPerMinute ?? null),
          notes: current?.notes ?? null,
          setByUserId: current?.setByUserId ?? null,
          updatedAt: DateTime.makeUnsafe(now)
        }
        overrides.set(storeId, updated)
        return updated
      }),
    purgeWindows: Effect.map(Clock.currentTimeMillis, (now) => {
      let purged = 0
      for (const [id, window] of windows) {
        if (window.start < now - WINDOW_RETENTION_MILLIS) {
          windows.delete(id)
          purged++
        }
      }
      return purged
    })
  })
})
