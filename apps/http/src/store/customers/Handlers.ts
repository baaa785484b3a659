import { StoreApi } from "@tawsil/api/store/Api"
import { readReasons } from "@tawsil/api/store/orders/Api"
import { Orders } from "@tawsil/orders"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "customers",
  Effect.fnUntraced(function* (handlers) {
    const orders = yield* Orders.Orders
    return handlers
      .handle(
        "listCustomers",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(orders.listCustomers(yield* store, query), readReasons)
        })
      )
      .handle(
        "getCustomer",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(orders.getCustomer(yield* store, params.id), readReasons)
        })
      )
      .handle(
        "customerOrders",
        Effect.fnUntraced(function* ({ params, query }) {
          return yield* answer(orders.customerOrders(yield* store, params.id, query), readReasons)
        })
      )
  })
)
