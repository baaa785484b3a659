import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { orderReasons, reasons } from "@tawsil/api/store/shipments/Api"
import { courierFailure } from "@tawsil/api/store/shipping/Api"
import { OrderError } from "@tawsil/orders"
import { CourierAccounts, Shipments, type ShipmentsError } from "@tawsil/shipments"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import * as Errors from "../Errors.ts"
import { ok, store } from "../Handler.ts"

/** A failure of a shipment or account call as this API answers it: a courier's with the shipping API's code. */
const failureOf = (error: ShipmentsError.ShipmentsError | OrderError.OrderError, requestId: string) => {
  if (error instanceof OrderError.OrderError) return orderReasons.answer(error.reason, requestId)
  return error.reason._tag === "CourierFailed"
    ? courierFailure(error.reason.failure, requestId)
    : reasons.answer(error.reason, requestId)
}

/** `{ data, meta }` of a shipment or account call, or its failure. */
const answered = <A, R>(effect: Effect.Effect<A, ShipmentsError.ShipmentsError | OrderError.OrderError, R>) =>
  Effect.flatMap(RequestId, (requestId) =>
    effect.pipe(
      Effect.mapError((error) => failureOf(error, requestId)),
      Effect.map((data) => ({ data, meta: Errors.metaOf(requestId) }))
    )
  )

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "shipments",
  Effect.fnUntraced(function* (handlers) {
    const accounts = yield* CourierAccounts.CourierAccounts
    const shipments = yield* Shipments.Shipments
    return handlers
      .handle(
        "listCourierAccounts",
        Effect.fnUntraced(function* () {
          return yield* ok(yield* accounts.list(yield* store))
        })
      )
      .handleRaw(
        "createCourierAccount",
        Effect.fnUntraced(function* () {
          return yield* answered(accounts.create(yield* store, yield* RequestBody))
        })
      )
      .handleRaw(
        "deleteCourierAccount",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answered(accounts.remove(yield* store, params.id))
        })
      )
      .handleRaw(
        "shipOrder",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answered(shipments.ship(yield* store, params.id, yield* RequestBody))
        })
      )
      .handle(
        "getShipmentLabel",
        Effect.fnUntraced(function* ({ params }) {
          const requestId = yield* RequestId
          const label = yield* shipments
            .label(yield* store, params.id)
            .pipe(Effect.mapError((error) => failureOf(error, requestId)))
          return label.bytes
        })
      )
      .handleRaw(
        "cancelShipment",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answered(shipments.cancel(yield* store, params.id))
        })
      )
      .handleRaw(
        "dispatchShipment",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answered(shipments.dispatch(yield* store, params.id))
        })
      )
  })
)
