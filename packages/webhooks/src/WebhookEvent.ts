/**
 * The events webhooks carry (spec "Events"): `order.created` when an order is created through the API,
 * `order.confirmed` and `order.shipped` when a status change through the API moves an order into that state —
 * nothing else, from no other source. Each event becomes one delivery body, the same bytes on every attempt:
 *
 * ```json
 * { "id": "evt_…", "event": "order.created", "created_at": "2026-11-21T12:30:00+01:00", "store_id": 1, "data": { … } }
 * ```
 *
 * `id` is the receiver's deduplication key (deliveries are at least once); `created_at` is when the change was made
 * (ISO 8601, Algiers time); `data` is the order as the API answered the change (the order detail).
 */
import { randomBytes } from "node:crypto"
import { AlgiersTime, type Ids } from "@tawsil/domain"
import type { OrderEvents } from "@tawsil/orders"
import type { DateTime } from "effect"

export const names = ["order.created", "order.confirmed", "order.shipped"] as const
export type Name = (typeof names)[number]

export const isName = (text: unknown): text is Name =>
  typeof text === "string" && (names as ReadonlyArray<string>).includes(text)

/** The webhook event an order event is, if any: a create, or a move into `confirmed` or `shipped`. */
export const fromOrderEvent = (event: OrderEvents.OrderEvent): Name | undefined => {
  if (event._tag === "OrderCreated") return "order.created"
  switch (event.order.status) {
    case "confirmed":
      return "order.confirmed"
    case "shipped":
      return "order.shipped"
    default:
      return undefined
  }
}

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
