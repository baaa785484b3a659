import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/webhooks/Api"
import { Webhooks } from "@tawsil/webhooks"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "webhooks",
  Effect.fnUntraced(function* (handlers) {
    const webhooks = yield* Webhooks.Webhooks
    return handlers
      .handle(
        "listWebhooks",
        Effect.fnUntraced(function* () {
          return yield* answer(webhooks.list(yield* store), reasons)
        })
      )
      .handleRaw(
        "createWebhook",
        Effect.fnUntraced(function* () {
          return yield* answer(webhooks.create(yield* store, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateWebhook",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(webhooks.update(yield* store, params.id, yield* RequestBody), reasons)
        })
      )
      .handle(
        "deleteWebhook",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(webhooks.remove(yield* store, params.id), reasons)
        })
      )
      .handle(
        "listWebhookDeliveries",
        Effect.fnUntraced(function* ({ params, query }) {
          return yield* answer(webhooks.deliveries(yield* store, params.id, query), reasons)
        })
      )
      .handle(
        "retryWebhookDelivery",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(webhooks.retry(yield* store, params.id, params.delivery_id), reasons)
        })
      )
  })
)
