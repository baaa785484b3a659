/**
 * The store API's handlers, one group at a time: each reads what the pipeline established (`Caller`, `RequestBody`),
 * calls one domain service, and answers `{ data, meta }` — or the wire failure its domain error maps to
 * (`Errors.fromDomain`). No rule lives here.
 */
import { Access } from "@tawsil/access"
import { LandingPages, Products, StoreProfile } from "@tawsil/catalogue"
import { Changes } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Orders } from "@tawsil/orders"
import { Promos } from "@tawsil/promos"
import { Pixels, Themes } from "@tawsil/storefront"
import { Tracker } from "@tawsil/tracker"
import { Webhooks } from "@tawsil/webhooks"
import { DateTime, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../Edge.ts"
import * as Health from "../Health.ts"
import { Caller, CallNonce, RequestBody, StoreApi } from "./Api.ts"
import * as Errors from "./Errors.ts"

/** The answer `{ data, meta }` of this request. */
const ok = <A>(data: A) => Effect.map(RequestId, (requestId) => ({ data, meta: Errors.metaOf(requestId) }))

/** A domain call answered: its value as `data`, its error as the wire failure its reason maps to. */
const answer = <A, E extends Errors.DomainError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(RequestId, (requestId) =>
    effect.pipe(
      Effect.mapError((error) => Errors.fromDomain(error, requestId)),
      Effect.map((data) => ({ data, meta: Errors.metaOf(requestId) }))
    )
  )

const MAX_ID = 2_147_483_647

/** A path id: all digits, else 400; beyond any id we issue, 404. */
const idOf = (raw: string, name = "id"): Effect.Effect<number, Errors.BadRequest | Errors.NotFound> =>
  Effect.flatMap(RequestId, (requestId): Effect.Effect<number, Errors.BadRequest | Errors.NotFound> => {
    if (!/^[0-9]{1,20}$/.test(raw)) {
      return Effect.fail(Errors.failure(Errors.BadRequest, `Path parameter ${name} must be all digits`, requestId))
    }
    const id = Number(raw)
    return id >= 1 && id <= MAX_ID
      ? Effect.succeed(id)
      : Effect.fail(Errors.failure(Errors.NotFound, `No resource with id ${raw}`, requestId))
  })

const storeOf = Effect.map(Caller, (caller) => Ids.StoreId.make(caller.store.id))

export const PingHandlers = HttpApiBuilder.group(StoreApi, "ping", (handlers) =>
  handlers.handle("ping", () =>
    Effect.gen(function* () {
      const time = DateTime.formatIso(yield* DateTime.now)
      const body = yield* ok({ pong: true as const, time, edge: true as const })
      return HttpServerResponse.jsonUnsafe(body, { headers: { "x-api-version": Errors.API_VERSION } })
    })
  )
)

export const AccessHandlers = HttpApiBuilder.group(StoreApi, "access", (handlers) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    return handlers
      .handle("whoami", () =>
        Effect.flatMap(Caller, (caller) =>
          caller.kind === "public_key"
            ? Effect.die(new Error("whoami runs behind Gate, which never lets a public key through"))
            : ok({
                auth: caller.kind,
                key:
                  caller.kind === "platform_key"
                    ? {
                        key_id: caller.keyId,
                        type: caller.keyType,
                        name: caller.name,
                        rate_limit_tier: caller.rateLimitTier
                      }
                    : null,
                store: { id: caller.store.id, name: caller.store.name, slug: caller.store.slug },
                plan: caller.store.plan,
                pilot: caller.pilot,
                scopes: caller.scopes
              })
        )
      )
      .handle("listKeys", () => Effect.flatMap(storeOf, (store) => answer(access.listKeys(store))))
      .handleRaw("createKey", () =>
        Effect.flatMap(Effect.zip(Caller, RequestBody), ([caller, body]) => answer(access.createKey(caller, body)))
      )
      .handle("revokeKey", ({ params }) =>
        Effect.flatMap(storeOf, (store) => answer(access.revokeKey(store, params.key_id)))
      )
      .handle("usage", () => Effect.flatMap(storeOf, (store) => answer(access.usage(store))))
      .handle("usageHistory", ({ query }) =>
        Effect.flatMap(storeOf, (store) => answer(access.usageHistory(store, query)))
      )
      .handle("quotas", () => Effect.flatMap(storeOf, (store) => answer(access.quotas(store))))
  })
)

export const OrdersHandlers = HttpApiBuilder.group(StoreApi, "orders", (handlers) =>
  Effect.gen(function* () {
    const orders = yield* Orders.Orders
    return handlers
      .handleRaw("createOrder", () =>
        Effect.flatMap(Effect.zip(Caller, RequestBody), ([caller, body]) =>
          answer(orders.create({ id: Ids.StoreId.make(caller.store.id), plan: caller.store.plan }, body))
        )
      )
      .handle("listOrders", ({ query }) => Effect.flatMap(storeOf, (store) => answer(orders.list(store, query))))
      .handle("getOrder", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) => answer(orders.get(store, id)))
      )
      .handleRaw("updateOrderStatus", ({ params }) =>
        Effect.flatMap(Effect.all([storeOf, idOf(params.id), RequestBody]), ([store, id, body]) =>
          answer(orders.setStatus(store, id, body))
        )
      )
      .handle("cancelOrder", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) => answer(orders.cancel(store, id)))
      )
  })
)

export const CustomersHandlers = HttpApiBuilder.group(StoreApi, "customers", (handlers) =>
  Effect.gen(function* () {
    const orders = yield* Orders.Orders
    return handlers
      .handle("listCustomers", ({ query }) =>
        Effect.flatMap(storeOf, (store) => answer(orders.listCustomers(store, query)))
      )
      .handle("getCustomer", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) => answer(orders.getCustomer(store, id)))
      )
      .handle("customerOrders", ({ params, query }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) =>
          answer(orders.customerOrders(store, id, query))
        )
      )
  })
)

export const ProductsHandlers = HttpApiBuilder.group(StoreApi, "products", (handlers) =>
  Effect.gen(function* () {
    const products = yield* Products.Products
    const productId = (raw: string) => Effect.map(idOf(raw), Ids.ProductId.make)
    return handlers
      .handle("listProducts", ({ query }) => Effect.flatMap(storeOf, (store) => answer(products.list(store, query))))
      .handle("getProduct", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, productId(params.id)), ([store, id]) => answer(products.get(store, id)))
      )
      .handleRaw("createProduct", () =>
        Effect.flatMap(Effect.zip(storeOf, RequestBody), ([store, body]) => answer(products.create(store, body)))
      )
      .handleRaw("updateProduct", ({ params }) =>
        Effect.flatMap(Effect.all([storeOf, productId(params.id), RequestBody]), ([store, id, body]) =>
          answer(products.update(store, id, body))
        )
      )
      .handle("deleteProduct", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, productId(params.id)), ([store, id]) => answer(products.remove(store, id)))
      )
  })
)

export const LandingPagesHandlers = HttpApiBuilder.group(StoreApi, "landingPages", (handlers) =>
  Effect.gen(function* () {
    const pages = yield* LandingPages.LandingPages
    const pageId = (raw: string) => Effect.map(idOf(raw), Ids.LandingPageId.make)
    return handlers
      .handle("listLandingPages", ({ query }) => Effect.flatMap(storeOf, (store) => answer(pages.list(store, query))))
      .handle("getLandingPage", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, pageId(params.id)), ([store, id]) => answer(pages.get(store, id)))
      )
      .handleRaw("createLandingPage", () =>
        Effect.flatMap(Effect.zip(storeOf, RequestBody), ([store, body]) => answer(pages.create(store, body)))
      )
      .handleRaw("updateLandingPage", ({ params }) =>
        Effect.flatMap(Effect.all([storeOf, pageId(params.id), RequestBody]), ([store, id, body]) =>
          answer(pages.update(store, id, body))
        )
      )
      .handle("publishLandingPage", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, pageId(params.id)), ([store, id]) => answer(pages.publish(store, id)))
      )
      .handle("deleteLandingPage", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, pageId(params.id)), ([store, id]) => answer(pages.remove(store, id)))
      )
  })
)

export const StoreHandlers = HttpApiBuilder.group(StoreApi, "store", (handlers) =>
  Effect.gen(function* () {
    const profile = yield* StoreProfile.StoreProfile
    return handlers
      .handle("getStore", () => Effect.flatMap(storeOf, (store) => answer(profile.get(store))))
      .handle("updateStore", () =>
        Effect.flatMap(RequestId, (requestId) =>
          Effect.fail(
            Errors.failure(
              Errors.MethodNotAllowed,
              "PATCH /v1/store is reserved; store settings cannot be written through the API yet",
              requestId
            )
          )
        )
      )
  })
)

export const WebhooksHandlers = HttpApiBuilder.group(StoreApi, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    return handlers
      .handle("listWebhooks", () => Effect.flatMap(storeOf, (store) => answer(webhooks.list(store))))
      .handleRaw("createWebhook", () =>
        Effect.flatMap(Effect.zip(storeOf, RequestBody), ([store, body]) => answer(webhooks.create(store, body)))
      )
      .handleRaw("updateWebhook", ({ params }) =>
        Effect.flatMap(Effect.all([storeOf, idOf(params.id), RequestBody]), ([store, id, body]) =>
          answer(webhooks.update(store, id, body))
        )
      )
      .handle("deleteWebhook", ({ params }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) => answer(webhooks.remove(store, id)))
      )
      .handle("listWebhookDeliveries", ({ params, query }) =>
        Effect.flatMap(Effect.zip(storeOf, idOf(params.id)), ([store, id]) =>
          answer(webhooks.deliveries(store, id, query))
        )
      )
      .handle("retryWebhookDelivery", ({ params }) =>
        Effect.flatMap(
          Effect.all([storeOf, idOf(params.id), idOf(params.delivery_id, "delivery_id")]),
          ([store, id, deliveryId]) => answer(webhooks.retry(store, id, deliveryId))
        )
      )
  })
)

export const TrackerHandlers = HttpApiBuilder.group(StoreApi, "tracker", (handlers) =>
  Effect.gen(function* () {
    const tracker = yield* Tracker.Tracker
    const callerOf = Effect.map(Effect.zip(Caller, CallNonce), ([caller, nonce]) => ({
      storeId: Ids.StoreId.make(caller.store.id),
      keyId: caller.keyId,
      nonce
    }))
    return handlers
      .handleRaw("trackSignup", () =>
        Effect.flatMap(Effect.zip(callerOf, RequestBody), ([caller, body]) => answer(tracker.signup(caller, body)))
      )
      .handleRaw("trackEvent", () =>
        Effect.flatMap(Effect.zip(callerOf, RequestBody), ([caller, body]) => answer(tracker.event(caller, body)))
      )
  })
)

/** Every group of `StoreApi`, implemented. */
/** Who writes, as the configuration services record it: the store, the key's id, whether it is a dashboard key. */
const writerOf = Effect.map(Caller, (caller) => ({
  storeId: Ids.StoreId.make(caller.store.id),
  keyId: caller.keyId,
  dashboardKey: caller.dashboardKey
}))

/** Who reads or undoes changes: the store, the key's id and its scopes. */
const actorOf = Effect.map(Caller, (caller) => ({
  storeId: Ids.StoreId.make(caller.store.id),
  keyId: caller.keyId,
  scopes: caller.scopes
}))

export const PromoCodesHandlers = HttpApiBuilder.group(StoreApi, "promoCodes", (handlers) =>
  Effect.gen(function* () {
    const promos = yield* Promos.Promos
    return handlers
      .handle("listPromoCodes", ({ query }) => Effect.flatMap(storeOf, (store) => answer(promos.list(store, query))))
      .handleRaw("createPromoCode", () =>
        Effect.flatMap(Effect.zip(writerOf, RequestBody), ([writer, body]) => answer(promos.create(writer, body)))
      )
      .handleRaw("updatePromoCode", ({ params }) =>
        Effect.flatMap(Effect.all([writerOf, idOf(params.id), RequestBody]), ([writer, id, body]) =>
          answer(promos.update(writer, id, body))
        )
      )
      .handle("deletePromoCode", ({ params }) =>
        Effect.flatMap(Effect.zip(writerOf, idOf(params.id)), ([writer, id]) => answer(promos.remove(writer, id)))
      )
  })
)

export const ThemesHandlers = HttpApiBuilder.group(StoreApi, "themes", (handlers) =>
  Effect.gen(function* () {
    const themes = yield* Themes.Themes
    return handlers
      .handle("listThemes", () => Effect.flatMap(storeOf, (store) => answer(themes.list(store))))
      .handleRaw("switchTheme", () =>
        Effect.flatMap(Effect.zip(writerOf, RequestBody), ([writer, body]) => answer(themes.switchTheme(writer, body)))
      )
      .handleRaw("switchFastCheckoutTheme", () =>
        Effect.flatMap(Effect.zip(writerOf, RequestBody), ([writer, body]) =>
          answer(themes.switchFastCheckoutTheme(writer, body))
        )
      )
      .handleRaw("switchVariantStyle", () =>
        Effect.flatMap(Effect.zip(writerOf, RequestBody), ([writer, body]) =>
          answer(themes.switchVariantStyle(writer, body))
        )
      )
  })
)

export const PixelsHandlers = HttpApiBuilder.group(StoreApi, "pixels", (handlers) =>
  Effect.gen(function* () {
    const pixels = yield* Pixels.Pixels
    return handlers
      .handle("listPixels", ({ query }) => Effect.flatMap(storeOf, (store) => answer(pixels.list(store, query))))
      .handleRaw("createPixel", () =>
        Effect.flatMap(Effect.zip(writerOf, RequestBody), ([writer, body]) => answer(pixels.create(writer, body)))
      )
      .handleRaw("updatePixel", ({ params }) =>
        Effect.flatMap(Effect.all([writerOf, idOf(params.id), RequestBody]), ([writer, id, body]) =>
          answer(pixels.update(writer, id, body))
        )
      )
      .handle("deletePixel", ({ params }) =>
        Effect.flatMap(Effect.zip(writerOf, idOf(params.id)), ([writer, id]) => answer(pixels.remove(writer, id)))
      )
  })
)

export const ChangesHandlers = HttpApiBuilder.group(StoreApi, "changes", (handlers) =>
  Effect.gen(function* () {
    const changes = yield* Changes.Changes
    return handlers
      .handle("listChanges", ({ query }) => Effect.flatMap(storeOf, (store) => answer(changes.list(store, query))))
      .handle("getChange", ({ params }) =>
        Effect.flatMap(Effect.zip(actorOf, idOf(params.id)), ([actor, id]) => answer(changes.get(actor, id)))
      )
      .handle("undoChange", ({ params }) =>
        Effect.flatMap(Effect.all([actorOf, idOf(params.id), RequestId]), ([actor, id, requestId]) =>
          changes.undo(actor, id).pipe(
            // The engine's refusals, or the entity's own (answered as its write would be).
            Effect.catch((error) => {
              const failure =
                error._tag === "ChangeError"
                  ? Errors.fromDomain(error as Errors.DomainError, requestId)
                  : Errors.fromEntity(error, requestId)
              return failure === undefined ? Effect.die(error) : Effect.fail(failure as Errors.UndoFailure)
            }),
            Effect.map((data) => ({ data, meta: Errors.metaOf(requestId) }))
          )
        )
      )
  })
)

export const HealthHandlers = HttpApiBuilder.group(StoreApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("store"))
)

/** Every group of `StoreApi`, implemented. */
export const layer = Layer.mergeAll(
  PingHandlers,
  AccessHandlers,
  OrdersHandlers,
  CustomersHandlers,
  ProductsHandlers,
  LandingPagesHandlers,
  StoreHandlers,
  WebhooksHandlers,
  TrackerHandlers,
  PromoCodesHandlers,
  ThemesHandlers,
  PixelsHandlers,
  ChangesHandlers,
  HealthHandlers
)
