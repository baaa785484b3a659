/**
 * Applying recorded pushed events to the shipments they name, for the applier's claims and for the events that waited
 * for a shipment just attached: each order's events in one unit that first marks them applied — only those no other
 * unit marked, locked until the unit ends, so that an event is applied once whoever else holds it — then lets the
 * order follow them (dedup, never backwards, the state machine, webhooks through the outbox). Events whose parcel is
 * not attached are answered, to wait.
 */
import type { CourierAdapter } from "@tawsil/courier"
import type { Ids } from "@tawsil/domain"
import type { OrderShipment, Orders } from "@tawsil/orders"
import type { Catalogue } from "@tawsil/shipping"
import { Effect } from "effect"
import type { PushedRow, TrackingStore } from "../TrackingStore.ts"
import * as Following from "./follow.ts"

/** A recorded event as the order's events (a raw status that is a movement and cash is both). */
const eventsOf = (adapter: CourierAdapter.Any, row: PushedRow): ReadonlyArray<OrderShipment.ShipmentEvent> =>
  Following.classify(adapter, row.rawStatus).map((read) => ({
    ...read,
    eventId: row.key,
    rawStatus: row.rawStatus,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(read.kind === "cod" && row.payment !== null ? { payment: row.payment } : {}),
    occurredAt: row.occurredAt,
    source: "push" as const
  }))

export interface Applied {
  /** Events applied now (not by another unit before). */
  readonly applied: number
  /** Events whose parcel is not attached (yet). */
  readonly waiting: ReadonlyArray<PushedRow>
}

export const applier = (
  orders: Orders.Orders["Service"],
  tracking: TrackingStore["Service"],
  catalogue: Catalogue.Catalogue
) => {
  const { follow } = Following.follower(orders, tracking, catalogue)

  const applyToOrder = (
    accountId: number,
    adapter: CourierAdapter.Any,
    target: { readonly storeId: Ids.StoreId; readonly orderId: number },
    rows: ReadonlyArray<PushedRow>
  ) =>
    tracking.transaction(
      Effect.gen(function* () {
        const marked = new Set(
          yield* tracking.markApplied(
            accountId,
            rows.map((row) => row.key),
            target.orderId
          )
        )
        const fresh = rows.filter((row) => marked.has(row.key))
        if (fresh.length > 0) {
          yield* follow(
            target,
            fresh.flatMap((row) => eventsOf(adapter, row)),
            { pushes: true, checked: false }
          )
        }
        return marked.size
      })
    )

  /**
   * Applies an account's recorded events, `concurrency` orders at once. An order whose unit fails is logged and left
   * unapplied (its events are tried again when their claim runs out).
   */
  const apply = Effect.fnUntraced(function* (
    accountId: number,
    adapter: CourierAdapter.Any,
    rows: ReadonlyArray<PushedRow>,
    concurrency = 1
  ) {
    const found = yield* Effect.forEach(
      rows,
      (row) =>
        Effect.map(
          orders.findByParcel(accountId, {
            trackingNumber: row.trackingNumber ?? undefined,
            courierReference: row.courierReference ?? undefined,
            reference: row.reference ?? undefined
          }),
          (target) => ({ row, target })
        ),
      { concurrency }
    )
    const byOrder = new Map<number, { readonly storeId: Ids.StoreId; readonly rows: Array<PushedRow> }>()
    const waiting: Array<PushedRow> = []
    for (const { row, target } of found) {
      if (target === undefined) {
        waiting.push(row)
        continue
      }
      const group = byOrder.get(target.orderId) ?? { storeId: target.storeId, rows: [] }
      group.rows.push(row)
      byOrder.set(target.orderId, group)
    }
    const counts = yield* Effect.forEach(
      byOrder,
      ([orderId, group]) =>
        applyToOrder(accountId, adapter, { storeId: group.storeId, orderId }, group.rows).pipe(
          Effect.catchDefect((defect) =>
            Effect.as(
              Effect.logError("courier push: an order's events not applied; tried again later").pipe(
                Effect.annotateLogs({ account: accountId, order: orderId, defect: String(defect) })
              ),
              0
            )
          )
        ),
      { concurrency }
    )
    return { applied: counts.reduce((sum, count) => sum + count, 0), waiting } satisfies Applied
  })

  return { apply }
}
