/**
 * What every source of tracking does once it has events for a shipment: the order follows them
 * (`Orders.followShipment`) and the poller's check is rescheduled from the status they leave — or dropped at a terminal
 * status — in the same unit. And how a courier's events (a track's timeline, a push) become the order's events.
 */
import type { CourierAdapter } from "@tawsil/courier"
import type { CanonicalStatus, CodStatus } from "@tawsil/courier/CanonicalStatus"
import type { TrackEvent } from "@tawsil/courier/Shipment"
import type { Ids } from "@tawsil/domain"
import type { OrderShipment, Orders } from "@tawsil/orders"
import type { Catalogue } from "@tawsil/shipping"
import { DateTime, Effect, Option } from "effect"
import * as TrackingSchedule from "../TrackingSchedule.ts"
import type { TrackingStore } from "../TrackingStore.ts"

/** The latest time a courier may report: the end of year 9999 (PostgreSQL keeps no year before 4713 BC). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/**
 * A courier's time; one it does not give readably (or before 1970, after 9999) sorts first and so never moves a
 * shipment.
 */
export const timeOf = (timestamp: string): DateTime.Utc =>
  Option.match(DateTime.make(timestamp), {
    onNone: () => DateTime.makeUnsafe(0),
    onSome: (time) => {
      const millis = DateTime.toEpochMillis(time)
      return millis >= 0 && millis <= LATEST ? DateTime.toUtc(time) : DateTime.makeUnsafe(0)
    }
  })

/**
 * A raw status through the adapter's tables, as the shipping API's tracking reads it: a movement (its canonical
 * status; `unknown` when neither table lists it), cash (its COD status) when the cash table lists it, or both.
 */
export const classify = (
  adapter: CourierAdapter.Any,
  rawStatus: string
): ReadonlyArray<
  { readonly kind: "movement"; readonly status: CanonicalStatus } | { readonly kind: "cod"; readonly status: CodStatus }
> => {
  const movement = Object.hasOwn(adapter.statuses, rawStatus) ? adapter.statuses[rawStatus]! : undefined
  const cash =
    adapter.codStatuses !== undefined && Object.hasOwn(adapter.codStatuses, rawStatus)
      ? adapter.codStatuses[rawStatus]!
      : undefined
  if (cash === undefined) return [{ kind: "movement", status: movement ?? "unknown" }]
  return movement === undefined
    ? [{ kind: "cod", status: cash }]
    : [
        { kind: "movement", status: movement },
        { kind: "cod", status: cash }
      ]
}

/** A track's timeline as the order's events. */
export const fromTrack = (
  adapter: CourierAdapter.Any,
  events: ReadonlyArray<TrackEvent>
): ReadonlyArray<OrderShipment.ShipmentEvent> =>
  events.flatMap((event) =>
    classify(adapter, event.rawStatus).map((read) => ({
      ...read,
      ...(read.kind === "cod" && event.payment !== undefined ? { payment: event.payment } : {}),
      rawStatus: event.rawStatus,
      occurredAt: timeOf(event.timestamp),
      source: "poll" as const
    }))
  )

export interface Follower {
  /** Applies `events` to the order's shipment and reschedules its check; answers the shipment's status after. */
  readonly follow: (
    target: { readonly storeId: Ids.StoreId; readonly orderId: number },
    events: ReadonlyArray<OrderShipment.ShipmentEvent>,
    options: { readonly pushes: boolean; readonly checked: boolean }
  ) => Effect.Effect<CanonicalStatus | undefined, never>
}

export const follower = (
  orders: Orders.Orders["Service"],
  tracking: TrackingStore["Service"],
  catalogue: Catalogue.Catalogue
): Follower => ({
  follow: (target, events, options) =>
    tracking.transaction(
      Effect.gen(function* () {
        const shipment = yield* orders.trackShipment(target.storeId, target.orderId, events).pipe(
          // The shipment is gone (its order deleted with its store): nothing to follow any more.
          Effect.catch(() => Effect.succeed(undefined))
        )
        if (shipment === undefined) {
          yield* tracking.finish(target.orderId)
          return undefined
        }
        const pushes = options.pushes || catalogue.resolve(shipment.courier)?.adapter.push !== undefined
        const next = TrackingSchedule.nextCheck(shipment.status, pushes)
        if (next === undefined) yield* tracking.finish(target.orderId)
        else if (options.checked) yield* tracking.checked(target.orderId, shipment.status, next)
        else
          yield* tracking.schedule(
            {
              orderId: target.orderId,
              storeId: target.storeId,
              accountId: shipment.accountId,
              trackingNumber: shipment.trackingNumber,
              status: shipment.status
            },
            next
          )
        return shipment.status
      })
    )
})
