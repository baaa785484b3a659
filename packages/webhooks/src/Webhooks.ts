/**
 * The webhooks of the store API, as the HTTP layer calls them: list, create, change (rotate the secret) and delete
 * a store's subscriptions; read a subscription's delivery log; retry one delivery by hand. Every operation is scoped
 * by the calling store; failures are `WebhookError`s.
 *
 * A URL is accepted only if it passes every rule of `WebhookUrl` now, DNS included (a delivery checks it again).
 */

import { Ids, Pagination } from "@tawsil/domain"
import type * as Egress from "@tawsil/egress/Egress"
import { Context, Effect, Layer } from "effect"
import { DeliverySignal } from "./DeliverySignal.ts"
import * as Subscription from "./Subscription.ts"
import * as WebhookError from "./WebhookError.ts"
import { WebhookStore } from "./WebhookStore.ts"
import * as WebhookUrl from "./WebhookUrl.ts"

export class Webhooks extends Context.Service<
  Webhooks,
  {
    /** `GET /v1/webhooks`. */
    readonly list: (storeId: Ids.StoreId) => Effect.Effect<Subscription.WebhookList>
    /** `POST /v1/webhooks`: the answer carries the secret, this once. */
    readonly create: (
      storeId: Ids.StoreId,
      body: unknown
    ) => Effect.Effect<Subscription.WebhookWithSecret, WebhookError.WebhookError>
    /** `PATCH /v1/webhooks/{id}`: `secret` is set when `rotate_secret` made a new one. */
    readonly update: (
      storeId: Ids.StoreId,
      id: number,
      body: unknown
    ) => Effect.Effect<Subscription.WebhookWithSecret, WebhookError.WebhookError>
    /** `DELETE /v1/webhooks/{id}`: pending deliveries are dropped with it. */
    readonly remove: (
      storeId: Ids.StoreId,
      id: number
    ) => Effect.Effect<Subscription.WebhookDeleted, WebhookError.WebhookError>
    /** `GET /v1/webhooks/{id}/deliveries`: newest first, cursor-paginated like the other lists. */
    readonly deliveries: (
      storeId: Ids.StoreId,
      id: number,
      query: { readonly limit?: string | number | undefined; readonly cursor?: string | undefined }
    ) => Effect.Effect<Pagination.Page<Subscription.Delivery>, WebhookError.WebhookError>
    /** `POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry`: due now, with one more attempt if it had none left. */
    readonly retry: (
      storeId: Ids.StoreId,
      id: number,
      deliveryId: number
    ) => Effect.Effect<Subscription.Delivery, WebhookError.WebhookError>
  }
>()("@tawsil/webhooks/Webhooks") {}

export interface Options {
  /** `WEBHOOK_ALLOW_HOSTS`. */
  readonly allowHosts: WebhookUrl.AllowList
}

const notFound = (id: number) =>
  WebhookError.fail(new WebhookError.WebhookNotFound({ message: `Webhook ${id} not found` }))

const deliveryNotFound = (id: number, deliveryId: number) =>
  WebhookError.fail(new WebhookError.DeliveryNotFound({ message: `Delivery ${deliveryId} of webhook ${id} not found` }))

export const layer = (
  options: Options
): Layer.Layer<Webhooks, never, WebhookStore | DeliverySignal | Egress.Resolver> =>
  Layer.effect(
    Webhooks,
    Effect.gen(function* () {
      const store = yield* WebhookStore
      const signal = yield* DeliverySignal
      const context = yield* Effect.context<Egress.Resolver>()

      const acceptUrl = (url: string) =>
        WebhookUrl.resolve(url, options.allowHosts).pipe(
          Effect.mapError((reason) => WebhookError.fail(new WebhookError.UrlRefused({ message: reason }))),
          Effect.provide(context),
          Effect.as(url)
        )

      const invalid = (error: WebhookError.InvalidWebhook) => WebhookError.fail(error)

      /** The store's subscription, or not found: an id no row can have is not looked up. */
      const exists = (storeId: Ids.StoreId, id: number) =>
        Ids.isStorableId(id)
          ? Effect.map(store.findSubscription(storeId, id), (found) => found !== undefined)
          : Effect.succeed(false)

      return Webhooks.of({
        list: Effect.fn("Webhooks.list")(function* (storeId) {
          return { items: (yield* store.listSubscriptions(storeId)).map(Subscription.toWebhook) }
        }),

        create: Effect.fn("Webhooks.create")(function* (storeId, body) {
          const input = yield* Subscription.decodeCreate(body).pipe(Effect.mapError(invalid))
          yield* acceptUrl(input.url)
          const secret = Subscription.newSecret()
          const record = yield* store
            .insertSubscription(storeId, { ...input, secret }, Subscription.MAX_PER_STORE)
            .pipe(
              Effect.catchTag("SubscriptionLimitReached", () =>
                Effect.fail(WebhookError.fail(new WebhookError.TooManyWebhooks({ message: Subscription.TOO_MANY })))
              )
            )
          return { ...Subscription.toWebhook(record), secret }
        }),

        update: Effect.fn("Webhooks.update")(function* (storeId, id, body) {
          const input = yield* Subscription.decodePatch(body).pipe(Effect.mapError(invalid))
          if (!(yield* exists(storeId, id))) return yield* notFound(id)
          if (input.url !== undefined) yield* acceptUrl(input.url)
          const secret = input.rotateSecret ? Subscription.newSecret() : null
          const record = yield* store.updateSubscription(storeId, id, {
            url: input.url,
            events: input.events,
            active: input.active,
            description: input.description,
            rotate: secret === null ? undefined : { secret, grace: Subscription.ROTATION_GRACE }
          })
          if (record === undefined) return yield* notFound(id)
          return { ...Subscription.toWebhook(record), secret }
        }),

        remove: Effect.fn("Webhooks.remove")(function* (storeId, id) {
          if (!Ids.isStorableId(id) || !(yield* store.deleteSubscription(storeId, id))) return yield* notFound(id)
          return { deleted: true as const, id }
        }),

        deliveries: Effect.fn("Webhooks.deliveries")(function* (storeId, id, query) {
          if (!(yield* exists(storeId, id))) return yield* notFound(id)
          const limit = Pagination.limitOf(query.limit)
          const rows = yield* store.listDeliveries(storeId, id, {
            afterId: Pagination.afterIdOf(query.cursor),
            limit: limit + 1
          })
          return Pagination.page(rows, limit, (row) => row.id, Subscription.toDelivery)
        }),

        retry: Effect.fn("Webhooks.retry")(function* (storeId, id, deliveryId) {
          if (!(yield* exists(storeId, id))) return yield* notFound(id)
          if (!Ids.isStorableId(deliveryId)) return yield* deliveryNotFound(id, deliveryId)
          const record = yield* store.retryDelivery(storeId, id, deliveryId)
          if (record === undefined) return yield* deliveryNotFound(id, deliveryId)
          yield* store.afterCommit(signal.notify)
          return Subscription.toDelivery(record)
        })
      })
    })
  )
