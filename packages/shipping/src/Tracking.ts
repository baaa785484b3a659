/**
 * From the events a courier reports to the answer the API gives: each raw status mapped through the adapter's
 * table (`unknown` when unmapped — never a guess, and `rawStatus` is kept), events ordered oldest first with exact
 * repeats dropped, and the parcel's status taken from the newest movement; for couriers that report cash, the cash
 * on delivery read apart from movement. A raw status the adapter lists only as cash (`codStatuses`) moves nothing:
 * its event carries the parcel's status at that point, and a payment after a return leaves the parcel returned.
 * Pure; adapters never do this themselves.
 */
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import type { RawEvent } from "@tawsil/courier/CourierAdapter"
import { readPayment, TrackEvent, TrackResult } from "@tawsil/courier/Shipment"

/** A raw status through the adapter's table; `unknown` when the table does not list it. */
export const statusOf = (statuses: Readonly<Record<string, CanonicalStatus>>, rawStatus: string): CanonicalStatus =>
  Object.hasOwn(statuses, rawStatus) ? statuses[rawStatus]! : "unknown"

export const timeline = (
  trackingNumber: string,
  statuses: Readonly<Record<string, CanonicalStatus>>,
  raw: ReadonlyArray<RawEvent>,
  codStatuses?: Readonly<Record<string, CodStatus>>
): { readonly result: TrackResult; readonly unmapped: ReadonlyArray<string> } => {
  const seen = new Set<string>()
  const unmapped = new Set<string>()
  const events: Array<TrackEvent> = []
  const ordered = raw
    .map((event, index) => ({ event, index, at: Date.parse(event.timestamp) }))
    // Oldest first; events without a readable time keep their reported order, after the dated ones.
    .sort((a, b) => (Number.isNaN(a.at) ? 1 : Number.isNaN(b.at) ? -1 : a.at - b.at || a.index - b.index))
  // The parcel's status after each movement; a cash-only event takes it as it stands.
  let moved: CanonicalStatus = "unknown"
  for (const { event } of ordered) {
    const key = `${event.rawStatus}\u0000${event.timestamp}`
    if (seen.has(key)) continue
    seen.add(key)
    const movement = Object.hasOwn(statuses, event.rawStatus)
    const cashOnly = !movement && codStatuses !== undefined && Object.hasOwn(codStatuses, event.rawStatus)
    if (movement) moved = statuses[event.rawStatus]!
    else if (!cashOnly) {
      unmapped.add(event.rawStatus)
      moved = "unknown"
    }
    // What the courier says of the cash rides with its event (the COD ledger's facts), where it is usable.
    const payment = readPayment(event.payment)
    events.push(
      TrackEvent.make({
        status: moved,
        rawStatus: event.rawStatus,
        timestamp: event.timestamp,
        ...(payment === undefined ? {} : { payment })
      })
    )
  }
  const status = moved
  // Cash events are read apart: the newest one that reports cash says where the money is.
  const cash = codStatuses && events.findLast((event) => Object.hasOwn(codStatuses, event.rawStatus))
  const cod = codStatuses === undefined ? undefined : cash ? codStatuses[cash.rawStatus]! : "not_collected"
  return {
    result: TrackResult.make({ trackingNumber, status, ...(cod === undefined ? {} : { cod }), events }),
    unmapped: [...unmapped]
  }
}
