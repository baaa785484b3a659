import { StoreApi } from "@tawsil/api/store/Api"
import * as ConfirmationApi from "@tawsil/api/store/confirmation/Api"
import { Caller, RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/orders/Api"
import { Confirmation, Orders } from "@tawsil/orders"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "orders",
  Effect.fnUntraced(function* (handlers) {
    const orders = yield* Orders.Orders
    const confirmation = yield* Confirmation.Confirmation
    return handlers
      .handleRaw(
        "createOrder",
        Effect.fnUntraced(function* () {
          const caller = yield* Caller
          const body = yield* RequestBody
          return yield* answer(orders.create({ id: yield* store, plan: caller.store.plan }, body), reasons)
        })
      )
      .handle(
        "listOrders",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(orders.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getOrder",
        Effect.fnUntraced(function* ({ params }) {
          // The order with its confirmation (docs/confirmation.md).
          return yield* answer(confirmation.detail(yield* store, params.id), ConfirmationApi.reasons)
        })
      )
      .handleRaw(
        "updateOrderStatus",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(orders.setStatus(yield* store, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "cancelOrder",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(orders.cancel(yield* store, params.id), reasons)
        })
      )
  })
)
