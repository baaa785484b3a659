/**
 * How the store's couriers do, per courier and destination wilaya (`GET /v1/reports/couriers`, docs/risk.md), and
 * which courier to choose for an order (`GET /v1/orders/{id}/courier-recommendations`). Pure: the shipments come from
 * `RiskStore`, the store's prices from its shipping rates; the arithmetic and the ranking rule are here.
 *
 * - A shipment is settled once delivered, or returned or on its way back (`returning`): the rates are over settled
 *   shipments only, so parcels still moving change nothing yet. `delivery_rate = delivered / settled`,
 *   `return_rate = returned / settled` (they add up to 1), null with nothing settled; rounded to 4 decimals.
 * - Days to deliver: from the parcel's first event at the courier (its creation) to the delivered event, in days
 *   (86 400 s); the median over the delivered shipments, rounded to 2 decimals.
 * - The expected delivery rate of a courier in a wilaya is its rate there pulled toward its rate everywhere, which is
 *   pulled toward the store's rate (`PRIOR_WEIGHT` settled shipments' worth each; 0.5 when the store has none):
 *   a courier with two lucky parcels in a wilaya does not outrank one with two hundred.
 * - Ranking: expected delivery rate, highest first; then the lower price; then the fewer median days; then the
 *   courier's key.
 */
import type { CanonicalStatus } from "@tawsil/courier/CanonicalStatus"
import { DateTime, Schema } from "effect"

/** One shipment as the report reads it. */
export interface ShipmentOutcome {
  readonly courier: string
  /** The order's destination wilaya. */
  readonly wilaya_id: number
  readonly status: CanonicalStatus
  /** The parcel's first event at the courier. */
  readonly first_at: DateTime.Utc
  /** When the event that set `status` happened (for a delivered parcel: its delivery). */
  readonly status_at: DateTime.Utc
}

const Rate = Schema.NullOr(Schema.Number).annotate({
  description: "A fraction from 0 to 1, 4 decimals; null: none settled"
})

const statsFields = {
  courier: Schema.String,
  /** Every shipment of the period. */
  shipments: Schema.Int,
  delivered: Schema.Int,
  /** Returned, or on its way back. */
  returned: Schema.Int,
  /** Cancelled at the courier before it left. */
  cancelled: Schema.Int,
  /** Still moving (neither settled nor cancelled). */
  in_progress: Schema.Int,
  delivery_rate: Rate,
  return_rate: Rate,
  median_days_to_deliver: Schema.NullOr(Schema.Number)
}

export const CourierStats = Schema.Struct(statsFields).annotate({ identifier: "CourierOutcome" })
export type CourierStats = typeof CourierStats.Type

export const WilayaStats = Schema.Struct({ ...statsFields, wilaya_id: Schema.Int }).annotate({
  identifier: "CourierWilayaOutcome"
})
export type WilayaStats = typeof WilayaStats.Type

export const Report = Schema.Struct({
  /** Per courier and destination wilaya, by courier then wilaya. */
  items: Schema.Array(WilayaStats),
  /** Per courier, every wilaya together. */
  couriers: Schema.Array(CourierStats)
}).annotate({ identifier: "CourierOutcomesReport" })
export type Report = typeof Report.Type

const DAY_MS = 86_400_000

export const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals
  return Math.round(value * factor) / factor
}

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export const median = (values: ReadonlyArray<number>): number | undefined => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const returnedStatuses: ReadonlySet<CanonicalStatus> = new Set(["returned", "returning"])

interface Tally {
  shipments: number
  delivered: number
  returned: number
  cancelled: number
  days: Array<number>
}

const tallyOf = (): Tally => ({ shipments: 0, delivered: 0, returned: 0, cancelled: 0, days: [] })

const add = (tally: Tally, shipment: ShipmentOutcome) => {
  tally.shipments++
  if (shipment.status === "delivered") {
    tally.delivered++
    tally.days.push((DateTime.toEpochMillis(shipment.status_at) - DateTime.toEpochMillis(shipment.first_at)) / DAY_MS)
  } else if (returnedStatuses.has(shipment.status)) tally.returned++
  else if (shipment.status === "cancelled") tally.cancelled++
}

const statsOf = (courier: string, tally: Tally): CourierStats => {
  const settled = tally.delivered + tally.returned
  const days = median(tally.days)
  return {
    courier,
    shipments: tally.shipments,
    delivered: tally.delivered,
    returned: tally.returned,
    cancelled: tally.cancelled,
    in_progress: tally.shipments - settled - tally.cancelled,
    delivery_rate: settled === 0 ? null : round(tally.delivered / settled, 4),
    return_rate: settled === 0 ? null : round(tally.returned / settled, 4),
    median_days_to_deliver: days === undefined ? null : round(days, 2)
  }
}

/** The report over the given shipments. */
export const summarize = (shipments: Iterable<ShipmentOutcome>): Report => {
  const byPair = new Map<string, { courier: string; wilaya_id: number; tally: Tally }>()
  const byCourier = new Map<string, Tally>()
  for (const shipment of shipments) {
    const key = `${shipment.courier}\u0000${shipment.wilaya_id}`
    let pair = byPair.get(key)
    if (pair === undefined) {
      pair = { courier: shipment.courier, wilaya_id: shipment.wilaya_id, tally: tallyOf() }
      byPair.set(key, pair)
    }
    add(pair.tally, shipment)
    let courier = byCourier.get(shipment.courier)
    if (courier === undefined) {
      courier = tallyOf()
      byCourier.set(shipment.courier, courier)
    }
    add(courier, shipment)
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return {
    items: [...byPair.values()]
      .sort((a, b) => byName(a.courier, b.courier) || a.wilaya_id - b.wilaya_id)
      .map(({ courier, wilaya_id, tally }) => ({ ...statsOf(courier, tally), wilaya_id })),
    couriers: [...byCourier.entries()]
      .sort(([a], [b]) => byName(a, b))
      .map(([courier, tally]) => statsOf(courier, tally))
  }
}

// --- recommendations ------------------------------------------------------------------------------------------

/** How many settled shipments' worth the wider rate counts for in a narrower one. */
export const PRIOR_WEIGHT = 5
/** The store's rate when it has settled nothing yet: no knowledge. */
export const NO_HISTORY_RATE = 0.5

export const Recommendation = Schema.Struct({
  /** 1 for the first choice. */
  rank: Schema.Int,
  courier: Schema.String,
  /** The store's price for this delivery (its shipping rates for the wilaya and delivery type); null when it has none. */
  price: Schema.NullOr(Schema.Number),
  /** The expected delivery rate (the ranking's first key), 4 decimals. */
  expected_delivery_rate: Schema.Number,
  /** What the store's own shipments show of this courier in the wilaya. */
  wilaya: Schema.Struct({
    settled: Schema.Int,
    delivery_rate: Rate,
    median_days_to_deliver: Schema.NullOr(Schema.Number)
  }),
  /** … and in every wilaya. */
  overall: Schema.Struct({ settled: Schema.Int, delivery_rate: Rate })
}).annotate({ identifier: "CourierRecommendation" })
export type Recommendation = typeof Recommendation.Type

export interface Candidate {
  readonly courier: string
  /** The price of this delivery with this courier; undefined when unknown (ranked after every known price). */
  readonly price: number | undefined
}

const settledOf = (stats: { readonly delivered: number; readonly returned: number } | undefined) =>
  stats === undefined ? 0 : stats.delivered + stats.returned

/** `delivered + weight × prior` over `settled + weight`. */
const pulled = (delivered: number, settled: number, prior: number) =>
  (delivered + PRIOR_WEIGHT * prior) / (settled + PRIOR_WEIGHT)

/** The candidates ranked for a delivery to `wilaya`, by the rule of the module's comment. */
export const recommend = (
  report: Report,
  wilaya: number,
  candidates: ReadonlyArray<Candidate>
): ReadonlyArray<Recommendation> => {
  const store = report.couriers.reduce(
    (sum, stats) => ({ delivered: sum.delivered + stats.delivered, settled: sum.settled + settledOf(stats) }),
    { delivered: 0, settled: 0 }
  )
  const storeRate = store.settled === 0 ? NO_HISTORY_RATE : store.delivered / store.settled
  const seen = new Set<string>()
  const rows = candidates
    .filter((candidate) => !seen.has(candidate.courier) && seen.add(candidate.courier))
    .map((candidate) => {
      const overall = report.couriers.find((stats) => stats.courier === candidate.courier)
      const there = report.items.find((stats) => stats.courier === candidate.courier && stats.wilaya_id === wilaya)
      const courierRate = pulled(overall?.delivered ?? 0, settledOf(overall), storeRate)
      const expected = pulled(there?.delivered ?? 0, settledOf(there), courierRate)
      return {
        courier: candidate.courier,
        price: candidate.price,
        expected,
        days: there?.median_days_to_deliver ?? null,
        wilaya: {
          settled: settledOf(there),
          delivery_rate: there?.delivery_rate ?? null,
          median_days_to_deliver: there?.median_days_to_deliver ?? null
        },
        overall: { settled: settledOf(overall), delivery_rate: overall?.delivery_rate ?? null }
      }
    })
  const byPrice = (a: number | undefined, b: number | undefined) =>
    a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a - b
  const byDays = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b)
  return rows
    .sort(
      (a, b) =>
        b.expected - a.expected ||
        byPrice(a.price, b.price) ||
        byDays(a.days, b.days) ||
        (a.courier < b.courier ? -1 : a.courier > b.courier ? 1 : 0)
    )
    .map((row, index) => ({
      rank: index + 1,
      courier: row.courier,
      price: row.price ?? null,
      expected_delivery_rate: round(row.expected, 4),
      wilaya: row.wilaya,
      overall: row.overall
    }))
}
