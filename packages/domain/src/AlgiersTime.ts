/**
 * Wall-clock time in Algiers (Africa/Algiers, UTC+01:00 all year, no daylight saving time) and the text forms the
 * APIs print: ISO 8601 with offset, the store's SQL-style `created_at`, usage periods and order-number days.
 *
 * Every formatter takes any `DateTime` and renders it in Algiers, so 23:30 UTC is already the next day. Times are
 * printed to the second; milliseconds are dropped (truncated, never rounded, so an instant never moves into the
 * next second, day or month).
 */
import { DateTime, Effect } from "effect"

export const zone: DateTime.TimeZone = DateTime.zoneMakeNamedUnsafe("Africa/Algiers")

/** The current time, from `Clock`, in Algiers. */
export const now: Effect.Effect<DateTime.Zoned> = Effect.map(DateTime.now, (utc) => DateTime.setZone(utc, zone))

/** `YYYY-MM-DDTHH:MM:SS.sss+01:00`, the one string the other forms are cut from. */
const local = (dt: DateTime.DateTime): string => DateTime.formatIsoOffset(DateTime.setZone(dt, zone))

/** `2026-11-21T12:30:00+01:00` */
export const formatIso = (dt: DateTime.DateTime): string => {
  const text = local(dt)
  return `${text.slice(0, 19)}${text.slice(23)}`
}

/** `2026-11-21 12:30:00`, Algiers local time (the store's `created_at`). */
export const formatSql = (dt: DateTime.DateTime): string => {
  const text = local(dt)
  return `${text.slice(0, 10)} ${text.slice(11, 19)}`
}

/** `2026-11`, the usage period. */
export const month = (dt: DateTime.DateTime): string => local(dt).slice(0, 7)

/** `20261121`, the day in order numbers `ORD-{store}-{YYYYMMDD}-…`. */
export const day = (dt: DateTime.DateTime): string => {
  const text = local(dt)
  return `${text.slice(0, 4)}${text.slice(5, 7)}${text.slice(8, 10)}`
}
