/**
 * Shipping a store's orders through its courier accounts (docs/cod-loop.md): `POST /v1/orders/{id}/shipment`, its
 * label, cancel and dispatch. Every courier call goes through the shipping API's `Gateway` in process — the same
 * egress rules, breaker, limits and idempotency as the shipping API's own calls — with the account's credentials
 * opened for that call only.
 *
 * - `ship` reads the order (`Orders.toShip`), builds its parcel (`Parcel.fromOrder`), creates it at the courier under
 *   the idempotency key `order-<id>` (a retry after a crash between the courier's answer and our write gets the same
 *   parcel back, not a second one), then attaches it to the order and starts following it in one unit. An order
 *   that moved meanwhile is not shipped: its parcel is cancelled at the courier where it can be — unless a concurrent
 *   ship of the same order attached that very parcel first, which is then answered. Pushed events that overtook the
 *   attach are applied at once.
 * - `cancel` cancels the parcel where the courier still allows it, then the order follows (`cancelled`).
 * - `dispatch` hands an undispatched parcel to the courier; the order goes to `shipped`.
 */
import type { CourierAdapter } from "@tawsil/courier"
import type { Ids } from "@tawsil/domain"
import { OrderError, Orders, type OrderViews } from "@tawsil/orders"
import { Gateway } from "@tawsil/shipping"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Context, DateTime, Effect, Layer, Option, Result } from "effect"
import { CourierAccounts } from "./CourierAccounts.ts"
import * as Following from "./internal/follow.ts"
import * as Parcel from "./Parcel.ts"
import * as PushIntake from "./PushIntake.ts"
import * as ShipmentsError from "./ShipmentsError.ts"
import { StoreOrigin } from "./StoreOrigin.ts"
import * as TrackingSchedule from "./TrackingSchedule.ts"
import { TrackingStore } from "./TrackingStore.ts"

export type Failure = ShipmentsError.ShipmentsError | OrderError.OrderError

export class Shipments extends Context.Service<
  Shipments,
  {
    readonly ship: (
      storeId: Ids.StoreId,
      orderId: number,
      body: unknown
    ) => Effect.Effect<OrderViews.OrderDetail, Failure>
    readonly label: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<CourierAdapter.Label, Failure>
    readonly cancel: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<OrderViews.OrderDetail, Failure>
    readonly dispatch: (storeId: Ids.StoreId, orderId: number) => Effect.Effect<OrderViews.OrderDetail, Failure>
  }
>()("@tawsil/shipments/Shipments") {}

const refuse = (reason: ShipmentsError.ShipmentsErrorReason) => Effect.fail(ShipmentsError.fail(reason))

export const layer: Layer.Layer<
  Shipments,
  never,
  Orders.Orders | CourierAccounts | TrackingStore | Gateway.Gateway | PushIntake.PushIntake
> = Layer.effect(
  Shipments,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const orders = yield* Orders.Orders
    const accounts = yield* CourierAccounts
    const tracking = yield* TrackingStore
    const gateway = yield* Gateway.Gateway
    const intake = yield* PushIntake.PushIntake
    const origins = yield* StoreOrigin
    const { follow } = Following.follower(orders, tracking, gateway.catalogue)

    /** The order's shipment, its account opened for a courier call. */
    const shipmentOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, orderId: number) {
      const order = yield* orders.get(storeId, orderId)
      if (order.shipment === null) {
        return yield* OrderError.fail(new OrderError.NoShipment({ message: `Order ${orderId} has no shipment` }))
      }
      const opened = yield* accounts.open(storeId, order.shipment.account_id)
      return { order, shipment: order.shipment, opened }
    })

    return Shipments.of({
      ship: method("Shipments.ship")(function* (storeId, orderId, body) {
        const { order, productNames } = yield* orders.toShip(storeId, orderId)
        const request = Parcel.parseShip(body)
        if (Result.isFailure(request)) {
          return yield* refuse(new ShipmentsError.InvalidShipmentsBody({ message: request.failure }))
        }
        const opened = yield* accounts.open(storeId, request.success.account_id)
        const parcel = Parcel.fromOrder(order, productNames, request.success)
        if (Result.isFailure(parcel)) {
          return yield* refuse(new ShipmentsError.InvalidShipmentsBody({ message: parcel.failure }))
        }
        const adapter = gateway.catalogue.resolve(opened.account.courier)?.adapter
        // A courier that creates and dispatches in one step refuses `dispatch: false` as unsupported.
        const dispatch = request.success.dispatch ?? true
        // Where the parcel leaves from: the request's, else the store's own (its shipping settings).
        const from_wilaya = request.success.from_wilaya ?? (yield* origins.of(storeId))
        const created = yield* gateway
          .create(
            {
              ...opened.call,
              options: { ...opened.call.options, ...(from_wilaya === undefined ? {} : { fromWilaya: from_wilaya }) },
              order: parcel.success,
              ...(dispatch ? {} : { dispatch: false as const })
            },
            `order-${orderId}`
          )
          .pipe(Effect.mapError(ShipmentsError.fromGateway))
        const at = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
        const pushes = adapter?.push !== undefined
        const attached = yield* tracking
          .transaction(
            Effect.gen(function* () {
              const detail = yield* orders.attachShipment(storeId, orderId, {
                accountId: opened.account.id,
                courier: opened.account.courier,
                trackingNumber: created.trackingNumber,
                courierReference: created.courierReference,
                status: created.status,
                rawStatus: created.rawStatus ?? created.status,
                dispatched: dispatch,
                at
              })
              const next = TrackingSchedule.nextCheck(created.status, pushes)
              if (next !== undefined) {
                yield* tracking.schedule(
                  {
                    orderId,
                    storeId,
                    accountId: opened.account.id,
                    trackingNumber: created.trackingNumber,
                    status: created.status
                  },
                  next
                )
              }
              return detail
            })
          )
          .pipe(
            Effect.catch((failure) =>
              Effect.gen(function* () {
                // A concurrent ship of this order (a double click, a retry under another key) got the same parcel
                // back from the gateway (the key is the order's) and attached it first: it is the order's parcel.
                const attachedMeanwhile = Option.filter(
                  yield* Effect.option(orders.get(storeId, orderId)),
                  ({ shipment }) =>
                    shipment?.account_id === opened.account.id && shipment.tracking_number === created.trackingNumber
                )
                if (Option.isSome(attachedMeanwhile)) return attachedMeanwhile.value
                // The order moved while the courier created its parcel: the parcel is not left behind where the
                // courier lets us take it back.
                yield* gateway
                  .cancel({ ...opened.call, trackingNumber: created.trackingNumber }, `cancel-order-${orderId}`)
                  .pipe(Effect.ignore)
                return yield* Effect.fail(failure)
              })
            )
          )
        // Pushes that reached us before the attach committed wait in the inbox: applied now.
        const caughtUp = yield* intake.applyPending({
          accountId: opened.account.id,
          courier: opened.account.courier,
          storeId,
          orderId,
          trackingNumber: created.trackingNumber,
          courierReference: created.courierReference ?? null,
          reference: order.order_number
        })
        return caughtUp ? yield* orders.get(storeId, orderId) : attached
      }),

      label: method("Shipments.label")(function* (storeId, orderId) {
        const { shipment, opened } = yield* shipmentOf(storeId, orderId)
        return yield* gateway
          .label({ ...opened.call, trackingNumber: shipment.tracking_number })
          .pipe(Effect.mapError(ShipmentsError.fromGateway))
      }),

      cancel: method("Shipments.cancel")(function* (storeId, orderId) {
        const { order, shipment, opened } = yield* shipmentOf(storeId, orderId)
        // Cancelled already: the same answer again, without asking the courier; arrived or back: nothing to cancel.
        if (shipment.status === "cancelled") return order
        if (shipment.status === "delivered" || shipment.status === "returned") {
          return yield* refuse(
            new ShipmentsError.NotCancellable({
              message: `Order ${orderId}'s parcel was ${shipment.status}: it cannot be cancelled`
            })
          )
        }
        yield* gateway
          .cancel({ ...opened.call, trackingNumber: shipment.tracking_number }, `cancel-order-${orderId}`)
          .pipe(Effect.mapError(ShipmentsError.fromGateway))
        const at = DateTime.makeUnsafe(yield* Clock.currentTimeMillis)
        yield* follow(
          { storeId, orderId },
          [{ kind: "movement", status: "cancelled", rawStatus: "cancelled", occurredAt: at, source: "cancel" }],
          { pushes: false, checked: false }
        )
        return yield* orders.get(storeId, orderId)
      }),

      dispatch: method("Shipments.dispatch")(function* (storeId, orderId) {
        const { shipment, opened } = yield* shipmentOf(storeId, orderId)
        const adapter = gateway.catalogue.resolve(opened.account.courier)?.adapter
        if (shipment.dispatched) {
          return yield* OrderError.fail(
            new OrderError.AlreadyDispatched({ message: `Order ${orderId}'s parcel was dispatched already` })
          )
        }
        const dispatched = yield* gateway
          .dispatch({ ...opened.call, trackingNumber: shipment.tracking_number }, `dispatch-order-${orderId}`)
          .pipe(Effect.mapError(ShipmentsError.fromGateway))
        const detail = yield* orders.markDispatched(storeId, orderId, {
          at: DateTime.makeUnsafe(yield* Clock.currentTimeMillis),
          status: dispatched.status,
          rawStatus: dispatched.rawStatus
        })
        const next = TrackingSchedule.nextCheck(dispatched.status, adapter?.push !== undefined)
        if (next !== undefined) {
          yield* tracking.schedule(
            {
              orderId,
              storeId,
              accountId: opened.account.id,
              trackingNumber: shipment.tracking_number,
              status: dispatched.status
            },
            next
          )
        }
        return detail
      })
    })
  })
)
