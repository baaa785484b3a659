/**
 * The outbox: the listener of `@tawsil/orders`' `OrderEvents` that turns order changes into webhook events
 * (`WebhookEvent.fromOrderEvent`) and records each, with its deliveries, in the change's own unit of work
 * (`WebhookStore.recordEvent`). What the order's transaction commits, the dispatcher delivers; what it rolls back
 * was never recorded. Once committed, this process's dispatcher is woken (`DeliverySignal`).
 */

import { AlgiersTime } from "@tawsil/domain"
import { OrderEvents } from "@tawsil/orders"
import { Effect, Layer } from "effect"
import { DeliverySignal } from "./DeliverySignal.ts"
import * as WebhookEvent from "./WebhookEvent.ts"
import { WebhookStore } from "./WebhookStore.ts"

export const layer: Layer.Layer<never, never, WebhookStore | DeliverySignal> = Layer.effect(
  OrderEvents.OrderEvents,
  Effect.gen(function* () {
    const store = yield* WebhookStore
    const signal = yield* DeliverySignal
    return {
      record: Effect.fnUntraced(function* (event: OrderEvents.OrderEvent) {
        const name = WebhookEvent.fromOrderEvent(event)
        if (name === undefined) return
        const id = WebhookEvent.newId()
        const queued = yield* store.recordEvent({
          id,
          storeId: event.storeId,
          event: name,
          payload: WebhookEvent.payload({
            id,
            event: name,
            at: yield* AlgiersTime.now,
            storeId: event.storeId,
            data: WebhookEvent.dataOf(event)
          })
        })
        if (queued > 0) yield* store.afterCommit(signal.notify)
      })
    }
  })
)
