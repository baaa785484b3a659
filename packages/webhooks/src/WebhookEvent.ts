/**
 * The events webhooks carry (spec "Events", docs/webhooks.md): `order.created` when an order is created through the
 * API; `order.confirmed`, `order.shipped`, `order.delivered`, `order.returned` and `order.cancelled` when an order
 * moves into that state — through the API, or following its parcel (docs/cod-loop.md); `shipment.updated` when an
 * order's parcel changes its canonical or cash status; `payment.received` when an order's cash on delivery is remitted
 * to the merchant (docs/cod-ledger.md). Nothing else, from no other source (orders made on a
 * storefront or changed in the dashboard fire nothing). Each event becomes one delivery body, the same bytes on every
 * attempt:
 *
 * ```json
 * { "id": "evt_…", "event": "order.created", "created_at": "2026-11-21T12:30:00+01:00", "store_id": 1, "data": { … } }
 * ```
 *
 * `id` is the receiver's deduplication key (deliveries are at least once); `created_at` is when the change was made
 * (ISO 8601, Algiers time); `data` is the order as the API answered the change (the order detail), or for
 * `shipment.updated` the parcel's new state with its order's id, number and status (`shipmentData`).
 */
import { randomBytes } from "node:crypto"
import { AlgiersTime, type Ids } from "@tawsil/domain"
import type { OrderEvents } from "@tawsil/orders"
import type { DateTime } from "effect"

export const names = [
  "order.created",
  "order.confirmed",
  "order.shipped",
  "order.delivered",
  "order.returned",
  "order.cancelled",
  "shipment.updated",
  "payment.received"
] as const
export type Name = (typeof names)[number]

export const isName = (text: unknown): text is Name =>
  typeof text === "string" && (names as ReadonlyArray<string>).includes(text)

/**
 * The webhook event an order event is, if any: a create, a move into any state but `pending` and `processing`, or a
 * shipment's change.
 */
export const fromOrderEvent = (event: OrderEvents.OrderEvent): Name | undefined => {
  switch (event._tag) {
    case "OrderCreated":
      return "order.created"
    case "ShipmentUpdated":
      return "shipment.updated"
    case "PaymentReceived":
      return "payment.received"
    case "OrderStatusChanged":
      switch (event.order.status) {
        case "confirmed":
          return "order.confirmed"
        case "shipped":
          return "order.shipped"
        case "delivered":
          return "order.delivered"
        case "returned":
          return "order.returned"
        case "cancelled":
          return "order.cancelled"
        default:
          return undefined
      }
  }
}

/**
 * The `data` of `shipment.updated`: the order it belongs to, and its parcel as it stands now (courier, numbers,
 * canonical and raw status, the courier's reason, the COD status, when it happened) with the status it had before.
 */
export const shipmentData = (event: OrderEvents.ShipmentUpdated) => {
  const { order } = event
  const shipment = order.shipment!
  return {
    order_id: order.id,
    order_number: order.order_number,
    order_status: order.status,
    courier: shipment.courier,
    tracking_number: shipment.tracking_number,
    courier_reference: shipment.courier_reference,
    status: shipment.status,
    previous_status: event.previous,
    raw_status: shipment.raw_status,
    reason: shipment.reason,
    cod_status: shipment.cod_status,
    at: shipment.status_at
  }
}

/**
 * The `data` of `payment.received`: the order, its parcel, the cash on delivery it carried (`cod_amount`), what was
 * remitted (`amount`: what the courier or the statement said, else the COD amount), the courier's fee and the
 * statement where they were said (docs/cod-ledger.md).
 */
export const paymentData = (event: OrderEvents.PaymentReceived) => {
  const { order, payment } = event
  const shipment = order.shipment!
  const codAmount = order.payment_method === "cod" ? Math.round(order.amounts.total) : 0
  return {
    order_id: order.id,
    order_number: order.order_number,
    order_status: order.status,
    courier: shipment.courier,
    tracking_number: shipment.tracking_number,
    cod_amount: codAmount,
    amount: payment?.amount ?? codAmount,
    fee: payment?.fee ?? null,
    statement: payment?.statement ?? null
  }
}

/** The `data` of an order event's webhook. */
export const dataOf = (event: OrderEvents.OrderEvent): unknown =>
  event._tag === "ShipmentUpdated"
    ? shipmentData(event)
    : event._tag === "PaymentReceived"
      ? paymentData(event)
      : event.order

/** A new event id: `evt_` and 24 random hex characters. */
export const newId = (): string => `evt_${randomBytes(12).toString("hex")}`

/** An event, as recorded in the outbox. */
export interface Recorded {
  readonly id: string
  readonly storeId: Ids.StoreId
  readonly event: Name
  /** The exact delivery body. */
  readonly payload: string
}

/** The event's delivery body, its keys in the documented order. */
export const payload = (input: {
  readonly id: string
  readonly event: Name
  readonly at: DateTime.DateTime
  readonly storeId: Ids.StoreId
  readonly data: unknown
}): string =>
  JSON.stringify({
    id: input.id,
    event: input.event,
    created_at: AlgiersTime.formatIso(input.at),
    store_id: input.storeId,
    data: input.data
  })
