/**
 * The `since` filter of the order list: an ISO 8601 date or date-time. A value without an offset is Algiers wall
 * time (the time the store shows), a date alone its midnight. A `+` turned into a space by form decoding of a query
 * string (`…T10:00:00 01:00`) still reads as `+`. Anything else, or an impossible date, is not an instant.
 */
import { AlgiersTime } from "@tawsil/domain"
import { DateTime } from "effect"

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+\- ]\d{2}(?::?\d{2})?)?)?$/i

/** The offset of a written zone, in minutes east of UTC. */
const offsetMinutes = (zone: string): number => {
  if (zone.toUpperCase() === "Z") return 0
  const digits = zone.slice(1).replace(":", "")
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0")
  return zone[0] === "-" ? -minutes : minutes
}

export const parseInstant = (text: string): DateTime.Utc | undefined => {
  const match = ISO.exec(text.trim())
  if (match === null) return undefined
  const [, year, month, day, hour = "0", minute = "0", second = "0", fraction = "", zone] = match
  const parts = [Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)] as const
  const wall = new Date(Date.UTC(...parts, Number(fraction.padEnd(3, "0").slice(0, 3))))
  // Date.UTC rolls impossible fields over (Feb 30 → Mar 2); such a date is refused, not moved.
  const actual = [
    wall.getUTCFullYear(),
    wall.getUTCMonth(),
    wall.getUTCDate(),
    wall.getUTCHours(),
    wall.getUTCMinutes(),
    wall.getUTCSeconds()
  ]
  if (actual.some((value, index) => value !== parts[index])) return undefined
  if (zone === undefined) {
    const local = DateTime.makeZonedUnsafe(wall, { timeZone: AlgiersTime.zone, adjustForTimeZone: true })
    return DateTime.toUtc(local)
  }
  const offset = offsetMinutes(zone)
  if (Math.abs(offset) > 18 * 60) return undefined
  return DateTime.makeUnsafe(wall.getTime() - offset * 60_000)
}
