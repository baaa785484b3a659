import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { courierFailure, reasons } from "@tawsil/api/store/shipping/Api"
import { ShippingRates, ShippingSettings } from "@tawsil/store-shipping"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import * as Errors from "../Errors.ts"
import { answer, ok, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "shipping",
  Effect.fnUntraced(function* (handlers) {
    const rates = yield* ShippingRates.ShippingRates
    const settings = yield* ShippingSettings.ShippingSettings
    return handlers
      .handle(
        "listShippingRates",
        Effect.fnUntraced(function* () {
          return yield* answer(rates.list(yield* store), reasons)
        })
      )
      .handleRaw(
        "writeShippingRates",
        Effect.fnUntraced(function* () {
          return yield* answer(rates.write(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "syncShippingRates",
        Effect.fnUntraced(function* () {
          const requestId = yield* RequestId
          const synced = yield* rates
            .sync(yield* writer, yield* RequestBody)
            .pipe(
              Effect.mapError((error) =>
                error.reason._tag === "CourierFailed"
                  ? courierFailure(error.reason.failure, requestId)
                  : reasons.answer(error.reason, requestId)
              )
            )
          return { data: synced, meta: Errors.metaOf(requestId) }
        })
      )
      .handle(
        "getShippingRatesSync",
        Effect.fnUntraced(function* () {
          return yield* ok(yield* rates.syncProgress(yield* store))
        })
      )
      .handle(
        "getShippingSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(settings.get(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateShippingSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(settings.update(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
