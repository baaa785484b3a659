/**
 * An order's shipment: the parcel a courier carries for it, as part of the order (docs/cod-loop.md). What it shows
 * (`View`, the `shipment` of an order's detail), the events that reach it (from the create, a poll or a push), and
 * the rules by which it and its order follow those events — pure functions over plain values:
 *
 * - `latest`: an event moves the shipment only if it is not older than what the shipment shows; an older one joins
 *   the timeline and moves nothing (a late push, a poll that read an older page). Cash events set the COD status
 *   only, and never where the parcel is.
 * - `orderMove`: each change of the shipment's canonical status moves the order through the state machine where the
 *   table allows it (delivered → `delivered`, returned → `returned`, cancelled → `cancelled`, any movement past the
 *   pickup of an undispatched parcel → `shipped`); a move the order's state does not allow is not forced.
 */
import { createHash } from "node:crypto"
import { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import { AlgiersTime, StoreText } from "@tawsil/domain"
import { DateTime, Schema } from "effect"
import type { OrderStatus } from "./OrderStatus.ts"

/** Where an event came from; `statement`: a line of a payout statement the store imported (docs/cod-ledger.md). */
export const EventSource = Schema.Literals(["create", "dispatch", "cancel", "poll", "push", "statement"])
export type EventSource = typeof EventSource.Type

/** An event reaching a shipment, as its sources report it (already mapped to the canonical vocabulary). */
export interface ShipmentEvent {
  /** The courier's own event id, when it gives one: the first deduplication key. */
  readonly eventId?: string | undefined
  /** Movement (where the parcel is) or cash (where the money is). */
  readonly kind: "movement" | "cod"
  /** For a movement, its canonical status; for cash, the COD status. */
  readonly status: CanonicalStatus | CodStatus
  readonly rawStatus: string
  readonly reason?: string | undefined
  /** When it happened at the courier. */
  readonly occurredAt: DateTime.Utc
  readonly source: EventSource
  /** For cash, what the source said of the money beyond the status (the COD ledger's facts), where it said it. */
  readonly payment?: Payment | undefined
}

/** What a cash event says of the money: whole dinars, and the payout (statement) it was paid in. */
export interface Payment {
  readonly amount?: number | undefined
  readonly fee?: number | undefined
  readonly statement?: string | undefined
}

/** An event as the timeline keeps it. */
export interface EventRecord {
  readonly kind: "movement" | "cod"
  readonly status: string
  readonly raw_status: string
  readonly reason: string | null
  readonly occurred_at: DateTime.Utc
  readonly source: EventSource
  /** A cash event's payment facts (null or absent where it said none). */
  readonly amount?: number | null | undefined
  readonly fee?: number | null | undefined
  readonly statement?: string | null | undefined
}

/** A shipment as stored, with its timeline oldest first. */
export interface ShipmentRecord {
  readonly account_id: number
  readonly courier: string
  readonly tracking_number: string
  readonly courier_reference: string | null
  readonly status: CanonicalStatus
  readonly raw_status: string
  readonly reason: string | null
  /** When the event that set `status` happened. */
  readonly status_at: DateTime.Utc
  readonly cod_status: CodStatus | null
  readonly cod_at: DateTime.Utc | null
  readonly dispatched: boolean
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
  readonly timeline: ReadonlyArray<EventRecord>
}

/** What a new shipment is made of: the parcel as the courier created it. */
export interface NewShipment {
  readonly accountId: number
  readonly courier: string
  readonly trackingNumber: string
  readonly courierReference?: string | undefined
  readonly status: CanonicalStatus
  readonly rawStatus: string
  /** False for a parcel created undispatched (the order goes to `processing`, not `shipped`). */
  readonly dispatched: boolean
  readonly at: DateTime.Utc
}

/** The longest raw status and event id a shipment keeps (a unique index holds each), and the longest reason. */
export const RAW_STATUS_MAX = 200
export const EVENT_ID_MAX = 200
export const REASON_MAX = 500

/**
 * An event as a shipment keeps it, whatever its source sent (a courier cannot be asked to send it again): its raw
 * status and reason storable and cut (`StoreText.toStorable`), an event id too long to index kept as its SHA-256.
 */
export const storable = (event: ShipmentEvent): ShipmentEvent => {
  const eventId = event.eventId === undefined ? undefined : StoreText.toStorable(event.eventId, Number.MAX_SAFE_INTEGER)
  return {
    ...event,
    rawStatus: StoreText.toStorable(event.rawStatus, RAW_STATUS_MAX),
    ...(event.reason === undefined ? {} : { reason: StoreText.toStorable(event.reason, REASON_MAX) }),
    ...(eventId === undefined
      ? {}
      : {
          eventId:
            eventId.length <= EVENT_ID_MAX ? eventId : `sha256:${createHash("sha256").update(eventId).digest("hex")}`
        })
  }
}

/**
 * The deduplication key of an event: the courier's event id, else its raw status and time (the tracking number is
 * the shipment's). An event is also a repeat when its shipment holds one of the same kind, raw status and time from
 * another source (`sameAs`): a pushed event a poll reads again is kept once.
 */
export const dedupeKey = (event: ShipmentEvent): string =>
  event.eventId !== undefined && event.eventId !== "" ? `id:${event.kind}:${event.eventId}` : sameAs(event)

/** What makes two events the same whatever their source: kind, raw status and time. */
export const sameAs = (event: ShipmentEvent): string =>
  `${event.kind}:${DateTime.toEpochMillis(event.occurredAt)}:${event.rawStatus}`

/** Where a shipment stands after a follow-up, for the poller and the push receiver. */
export interface Tracked {
  readonly courier: string
  readonly accountId: number
  readonly trackingNumber: string
  readonly status: CanonicalStatus
}

/** The part of a shipment events move. */
export interface State {
  readonly status: CanonicalStatus
  readonly raw_status: string
  readonly reason: string | null
  readonly status_at: DateTime.Utc
  readonly cod_status: CodStatus | null
  readonly cod_at: DateTime.Utc | null
}

/**
 * The state after `events` (new ones only: deduplicated before), applied oldest first: a movement or cash event
 * counts only if it is not older than what the state shows.
 */
export const latest = (state: State, events: ReadonlyArray<ShipmentEvent>): State => {
  const ordered = [...events].sort(
    (a, b) => DateTime.toEpochMillis(a.occurredAt) - DateTime.toEpochMillis(b.occurredAt)
  )
  let next = state
  for (const event of ordered) {
    if (event.kind === "movement") {
      if (DateTime.isLessThan(event.occurredAt, next.status_at)) continue
      next = {
        ...next,
        status: event.status as CanonicalStatus,
        raw_status: event.rawStatus,
        reason: event.reason ?? null,
        status_at: event.occurredAt
      }
    } else {
      if (next.cod_at !== null && DateTime.isLessThan(event.occurredAt, next.cod_at)) continue
      next = { ...next, cod_status: event.status as CodStatus, cod_at: event.occurredAt }
    }
  }
  return next
}

/** Statuses past the courier's pickup: an undispatched parcel that reaches one was handed over at the courier. */
const pickedUp: ReadonlySet<CanonicalStatus> = new Set([
  "picked_up",
  "in_transit",
  "out_for_delivery",
  "at_stopdesk",
  "failed_attempt",
  "on_hold",
  "returning"
])

/**
 * The order's move a shipment's new status asks for, from the order's current status; undefined when none. The
 * moves are those of the state machine, and one the courier alone may make: a shipped order whose parcel the
 * courier cancelled before it left (`OrderStatus.courierTransitions`).
 */
export const orderMove = (order: OrderStatus, shipment: CanonicalStatus): OrderStatus | undefined => {
  switch (shipment) {
    case "delivered":
      // An undispatched parcel delivered (or returned) was picked up first: the order is shipped, then follows.
      return order === "shipped" ? "delivered" : order === "processing" ? "shipped" : undefined
    case "returned":
      return order === "shipped" || order === "delivered" ? "returned" : order === "processing" ? "shipped" : undefined
    case "cancelled":
      return order === "shipped" || order === "processing" ? "cancelled" : undefined
    default:
      return order === "processing" && pickedUp.has(shipment) ? "shipped" : undefined
  }
}

const Timestamp = Schema.String.annotate({ description: "YYYY-MM-DD HH:MM:SS, Algiers time (UTC+01:00)" })

export const TimelineEvent = Schema.Struct({
  kind: Schema.Literals(["movement", "cod"]).annotate({
    description:
      "movement: where the parcel is (status is canonical); cod: where the cash is (status is the COD status)"
  }),
  status: Schema.String,
  raw_status: Schema.String.annotate({ description: "The courier's own words" }),
  reason: Schema.NullOr(Schema.String),
  at: Timestamp,
  source: EventSource,
  /** A cash event's facts where its source gave any (docs/cod-ledger.md): whole dinars, the payout it was paid in. */
  payment: Schema.optionalKey(
    Schema.Struct({
      amount: Schema.NullOr(Schema.Int),
      fee: Schema.NullOr(Schema.Int),
      statement: Schema.NullOr(Schema.String)
    })
  )
}).annotate({ identifier: "ShipmentEvent" })

/** An order's shipment, as the order's detail shows it. */
export const View = Schema.Struct({
  courier: Schema.String,
  account_id: Schema.Int,
  tracking_number: Schema.String,
  courier_reference: Schema.NullOr(Schema.String),
  status: CanonicalStatus,
  raw_status: Schema.String,
  reason: Schema.NullOr(Schema.String),
  status_at: Timestamp,
  cod_status: Schema.NullOr(CodStatus),
  dispatched: Schema.Boolean,
  /** The label PDF, through this API (the courier's own link may need the account's credentials). */
  label_url: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  timeline: Schema.Array(TimelineEvent)
}).annotate({ identifier: "OrderShipment" })
export type View = typeof View.Type

/** An order's shipment in a list: who carries it, its number and where it is. */
export const Summary = Schema.Struct({
  courier: Schema.String,
  tracking_number: Schema.String,
  status: CanonicalStatus
}).annotate({ identifier: "OrderShipmentSummary" })
export type Summary = typeof Summary.Type

// The order's own format for times (its `created_at`): one format in one answer.
const time = AlgiersTime.formatSql

export const view = (orderId: number, shipment: ShipmentRecord): View => ({
  courier: shipment.courier,
  account_id: shipment.account_id,
  tracking_number: shipment.tracking_number,
  courier_reference: shipment.courier_reference,
  status: shipment.status,
  raw_status: shipment.raw_status,
  reason: shipment.reason,
  status_at: time(shipment.status_at),
  cod_status: shipment.cod_status,
  dispatched: shipment.dispatched,
  label_url: `/v1/orders/${orderId}/shipment/label`,
  created_at: time(shipment.created_at),
  updated_at: time(shipment.updated_at),
  timeline: shipment.timeline.map((event) => ({
    kind: event.kind,
    status: event.status,
    raw_status: event.raw_status,
    reason: event.reason,
    at: time(event.occurred_at),
    source: event.source,
    ...(event.amount == null && event.fee == null && event.statement == null
      ? {}
      : { payment: { amount: event.amount ?? null, fee: event.fee ?? null, statement: event.statement ?? null } })
  }))
})
