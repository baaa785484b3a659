import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/risk/Api"
import { Risk } from "@tawsil/orders"
import { CourierAccounts } from "@tawsil/shipments"
import { ShippingRates } from "@tawsil/store-shipping"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

const risk = HttpApiBuilder.group(
  StoreApi,
  "risk",
  Effect.fnUntraced(function* (handlers) {
    const service = yield* Risk.Risk
    const accounts = yield* CourierAccounts.CourierAccounts
    const rates = yield* ShippingRates.ShippingRates
    return handlers
      .handleRaw(
        "banCustomer",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(service.banCustomer(yield* store, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "unbanCustomer",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(service.unbanCustomer(yield* store, params.id), reasons)
        })
      )
      .handle(
        "listBans",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(service.listBans(yield* store, query), reasons)
        })
      )
      .handleRaw(
        "banPhone",
        Effect.fnUntraced(function* () {
          return yield* answer(service.banPhone(yield* store, yield* RequestBody), reasons)
        })
      )
      .handle(
        "unbanPhone",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(service.unbanPhone(yield* store, params.phone), reasons)
        })
      )
      .handle(
        "getRiskSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(service.settings(yield* store), reasons)
        })
      )
      .handleRaw(
        "updateRiskSettings",
        Effect.fnUntraced(function* () {
          return yield* answer(service.updateSettings(yield* store, yield* RequestBody), reasons)
        })
      )
      .handle(
        "getOrderRisk",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(service.orderRisk(yield* store, params.id), reasons)
        })
      )
      .handle(
        "courierRecommendations",
        Effect.fnUntraced(function* ({ params }) {
          const storeId = yield* store
          // The store's couriers are its courier accounts'; its prices, its shipping rates.
          const couriers = (yield* accounts.list(storeId)).items.map((account) => account.courier)
          const table = yield* rates.list(storeId)
          return yield* answer(service.recommend(storeId, params.id, { couriers, rates: table.items }), reasons)
        })
      )
  })
)

const courierReports = HttpApiBuilder.group(
  StoreApi,
  "courierReports",
  Effect.fnUntraced(function* (handlers) {
    const service = yield* Risk.Risk
    return handlers.handle(
      "courierReport",
      Effect.fnUntraced(function* ({ query }) {
        return yield* answer(service.courierReport(yield* store, query), reasons)
      })
    )
  })
)

export const handlers = Layer.merge(risk, courierReports)
