/**
 * Wall-clock time in Algiers (Africa/Algiers, UTC+01:00 all year, no daylight saving time) and the text forms the
 * APIs print: ISO 8601 with offset, the store's SQL-style `created_at`, usage periods and order-number days.
 *
 * Every formatter takes any `DateTime` and renders it in Algiers, so 23:30 UTC is already the next day. Times are
 * printed to the second; milliseconds are dropped (truncated, never rounded, so an instant never moves into the
 * next second, day or month).
 */
import { DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

export const zone: DateTime.TimeZone = DateTime.zoneMakeNamedUnsafe("Africa/Algiers")

/** The current time, from `Clock`, in Algiers. */
export const now: Effect.Effect<DateTime.Zoned> = Effect.map(DateTime.now, (utc) => DateTime.setZone(utc, zone))

const HOUR = 3_600_000

/** The zone's offset at `millis`, through the time-zone database (an `Intl` call: microseconds each). */
const zoneOffset = (millis: number): number =>
  DateTime.zonedOffset(DateTime.makeZonedUnsafe(millis, { timeZone: zone }))

/** Offsets by UTC hour. Every instant of one store API answer asks again, so the database is read once an hour. */
const offsets = new Map<number, number>()
const MAX_CACHED_HOURS = 4096

/**
 * The offset at `millis`: the cached one for its UTC hour when the zone keeps one offset through the whole hour,
 * else read exactly (an hour holding a change of offset is never cached).
 */
const offsetAt = (millis: number): number => {
  const hour = Math.floor(millis / HOUR)
  const cached = offsets.get(hour)
  if (cached !== undefined) return cached
  const start = zoneOffset(hour * HOUR)
  if (start !== zoneOffset(hour * HOUR + HOUR - 1)) return zoneOffset(millis)
  if (offsets.size >= MAX_CACHED_HOURS) offsets.clear()
  offsets.set(hour, start)
  return start
}

const offsetText = (offset: number): string => {
  const minutes = Math.round(Math.abs(offset) / 60_000)
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0")
  const mm = String(minutes % 60).padStart(2, "0")
  return `${offset < 0 ? "-" : "+"}${hh}:${mm}`
}

/**
 * `YYYY-MM-DDTHH:MM:SS.sss+01:00`, the one string the other forms are cut from: the same text as
 * `DateTime.formatIsoOffset` in the Algiers zone (a test compares them across the zone's history).
 */
const local = (dt: DateTime.DateTime): string => {
  const millis = dt.epochMilliseconds
  const offset = offsetAt(millis)
  return `${new Date(millis + offset).toISOString().slice(0, -1)}${offsetText(offset)}`
}

/** `2026-11-21T12:30:00+01:00` */
export const formatIso = (dt: DateTime.DateTime): string => {
  const text = local(dt)
  return `${text.slice(0, 19)}${text.slice(23)}`
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const validDay = (year: number, month: number, day: number) =>
  month >= 1 &&
  month <= 12 &&
  day >= 1 &&
  day <= (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS[month - 1]!)

const zonedTime =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)$/
const localTime = /^(\d{4})-(\d{2})-(\d{2})[T ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?$/

/**
 * A time as an Algerian courier's API prints it, as ISO 8601 in Algiers (`2026-04-18T19:45:06+01:00`): ISO 8601
 * with an offset (`+01:00`, `+0100`) or `Z` is converted; `YYYY-MM-DD HH:MM[:SS]` (or with `T`) without one is
 * Algiers wall-clock time. `undefined` when the text is no such time (an impossible date included).
 */
export const fromCourierText = (text: string): string | undefined => {
  const trimmed = text.trim()
  const zoned = zonedTime.exec(trimmed)
  const local = zoned === null ? localTime.exec(trimmed) : null
  const parts = zoned ?? local
  if (parts === null || !validDay(Number(parts[1]), Number(parts[2]), Number(parts[3]))) return undefined
  const instant =
    zoned !== null
      ? trimmed.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")
      : `${parts[1]}-${parts[2]}-${parts[3]}T${parts[4]}:${parts[5]}:${parts[6] ?? "00"}+01:00`
  return Option.getOrUndefined(Option.map(DateTime.make(instant), formatIso))
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

/**
 * `2026-11-21 12:30:00` read as Algiers time, to a `DateTime.Utc`, and written back with `formatSql`: the form of the
 * store API's record times on the wire and in recorded values.
 */
export const SqlTimestamp = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, { expected: "YYYY-MM-DD HH:MM:SS" })
).pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      // Read in Algiers' own zone, the exact inverse of `formatSql`: Algiers has not always been on UTC+01:00.
      decode: (text) =>
        Option.match(DateTime.makeZoned(`${text.replace(" ", "T")}Z`, { timeZone: zone, adjustForTimeZone: true }), {
          onNone: () =>
            Effect.fail(new SchemaIssue.InvalidValue({ expected: "an Algiers time YYYY-MM-DD HH:MM:SS" }, text)),
          onSome: (zoned) => Effect.succeed(DateTime.toUtc(zoned))
        }),
      encode: (dt) => Effect.succeed(formatSql(dt))
    })
  )
)

/**
 * `2026-11-21T12:30:00+01:00`: any ISO 8601 time with an offset read to a `DateTime.Utc`, written back with
 * `formatIso` (the store profile's `created_at`).
 */
export const IsoTimestamp = Schema.String.pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (text) =>
        Option.match(DateTime.make(text), {
          onNone: () => Effect.fail(new SchemaIssue.InvalidValue({ expected: "an ISO 8601 time" }, text)),
          onSome: (dt) => Effect.succeed(DateTime.toUtc(dt))
        }),
      encode: (dt) => Effect.succeed(formatIso(dt))
    })
  )
)
