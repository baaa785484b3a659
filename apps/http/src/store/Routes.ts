/**
 * The store API's routes: one entry per endpoint of `StoreApi`, naming its guard (scope, key management, read
 * cache, body) and its handler. Methods and paths come from the definitions in `Api.ts`; mounting fails at start
 * when an endpoint has no entry or an entry no endpoint, so the served API is the documented one.
 */
import { Access, Keys } from "@tawsil/access"
import { LandingPage, LandingPages, Product, Products, Store, StoreProfile } from "@tawsil/catalogue"
import { Ids, StoreErrors } from "@tawsil/domain"
import { Idempotency } from "@tawsil/idempotency"
import { Orders } from "@tawsil/orders"
import { Database } from "@tawsil/storage"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import { SqlClient } from "effect/sql"
import * as Health from "../Health.ts"
import { RunningInstance } from "../Health.ts"
import { Page, StoreApi } from "./Api.ts"
import { type Call, endpoint, Listener, ping } from "./Pipeline.ts"
import { ReadCache } from "./ReadCache.ts"

const MAX_ID = 2_147_483_647

/** A path id: all digits, else 400; beyond any id we issue, 404. */
const idOf = (call: Call, name = "id"): Effect.Effect<number, StoreErrors.BadRequest | StoreErrors.NotFound> =>
  Effect.suspend((): Effect.Effect<number, StoreErrors.BadRequest | StoreErrors.NotFound> => {
    const raw = call.params[name] ?? ""
    if (!/^[0-9]{1,20}$/.test(raw)) {
      return Effect.fail(new StoreErrors.BadRequest({ message: `Path parameter ${name} must be all digits` }))
    }
    const id = Number(raw)
    return id >= 1 && id <= MAX_ID
      ? Effect.succeed(id)
      : Effect.fail(new StoreErrors.NotFound({ message: `No resource with id ${raw}` }))
  })

/** Runs `f` with a service. */
const use = <I, S, A, E, R>(tag: Context.Key<I, S>, f: (service: S) => Effect.Effect<A, E, R>) => Effect.flatMap(tag, f)

/** Runs `f` with a service and the path id. */
const use2 = <I, S, A, E, R>(
  tag: Context.Key<I, S>,
  id: Effect.Effect<number, StoreErrors.BadRequest | StoreErrors.NotFound>,
  f: (service: S, id: number) => Effect.Effect<A, E, R>
) => Effect.flatMap(Effect.zip(tag, id), ([service, value]) => f(service, value))

const storeOf = (call: Call) => Ids.StoreId.make(call.principal.store.id)

const whoami = (call: Call) =>
  Effect.succeed({
    auth: call.principal.kind,
    key:
      call.principal.kind === "platform_key"
        ? {
            key_id: call.principal.keyId,
            type: call.principal.keyType,
            name: call.principal.name,
            rate_limit_tier: call.principal.rateLimitTier
          }
        : null,
    store: { id: call.principal.store.id, name: call.principal.store.name, slug: call.principal.store.slug },
    plan: call.principal.store.plan,
    pilot: call.principal.pilot,
    scopes: call.principal.scopes
  })

const handlers = {
  // access
  ping,
  whoami: endpoint({}, whoami),
  listKeys: endpoint({ keyManagement: true }, (call) => use(Access.Access, (access) => access.listKeys(storeOf(call)))),
  createKey: endpoint(
    {
      keyManagement: true,
      body: true,
      success: Keys.CreatedKey,
      stored: (created) => ({
        ...(created as object),
        bearer_token: null,
        signing_secret: null,
        note: "Replayed answer: the key's secret was shown only in the first answer and is not kept."
      })
    },
    (call) => use(Access.Access, (access) => access.createKey(call.principal, call.body))
  ),
  revokeKey: endpoint({ keyManagement: true }, (call) =>
    use(Access.Access, (access) => access.revokeKey(storeOf(call), call.params.key_id ?? ""))
  ),
  usage: endpoint({ scope: "usage:read" }, (call) => use(Access.Access, (access) => access.usage(storeOf(call)))),
  usageHistory: endpoint({ scope: "usage:read" }, (call) =>
    use(Access.Access, (access) => access.usageHistory(storeOf(call), call.query))
  ),
  quotas: endpoint({ scope: "usage:read" }, (call) => use(Access.Access, (access) => access.quotas(storeOf(call)))),
  // orders and customers
  createOrder: endpoint({ scope: "orders:write", body: true }, (call) =>
    use(Orders.Orders, (orders) => orders.create({ id: storeOf(call), plan: call.principal.store.plan }, call.body))
  ),
  listOrders: endpoint({}, (call) => use(Orders.Orders, (orders) => orders.list(storeOf(call), call.query))),
  getOrder: endpoint({}, (call) => use2(Orders.Orders, idOf(call), (orders, id) => orders.get(storeOf(call), id))),
  updateOrderStatus: endpoint({ scope: "orders:write", body: true }, (call) =>
    use2(Orders.Orders, idOf(call), (orders, id) => orders.setStatus(storeOf(call), id, call.body))
  ),
  cancelOrder: endpoint({ scope: "orders:write" }, (call) =>
    use2(Orders.Orders, idOf(call), (orders, id) => orders.cancel(storeOf(call), id))
  ),
  listCustomers: endpoint({}, (call) =>
    use(Orders.Orders, (orders) => orders.listCustomers(storeOf(call), call.query))
  ),
  getCustomer: endpoint({}, (call) =>
    use2(Orders.Orders, idOf(call), (orders, id) => orders.getCustomer(storeOf(call), id))
  ),
  customerOrders: endpoint({}, (call) =>
    use2(Orders.Orders, idOf(call), (orders, id) => orders.customerOrders(storeOf(call), id, call.query))
  ),
  // products
  listProducts: endpoint({ cached: true, success: Page(Product.ProductSummary) }, (call) =>
    use(Products.Products, (products) => products.list(storeOf(call), call.query))
  ),
  getProduct: endpoint({ success: Product.Product }, (call) =>
    use2(Products.Products, idOf(call), (products, id) => products.get(storeOf(call), Ids.ProductId.make(id)))
  ),
  createProduct: endpoint({ scope: "products:write", body: true, success: Product.Product }, (call) =>
    use(Products.Products, (products) => products.create(storeOf(call), call.body))
  ),
  updateProduct: endpoint({ scope: "products:write", body: true, success: Product.Product }, (call) =>
    use2(Products.Products, idOf(call), (products, id) =>
      products.update(storeOf(call), Ids.ProductId.make(id), call.body)
    )
  ),
  deleteProduct: endpoint({ scope: "products:write", success: Product.ProductDeleted }, (call) =>
    use2(Products.Products, idOf(call), (products, id) => products.remove(storeOf(call), Ids.ProductId.make(id)))
  ),
  // landing pages
  listLandingPages: endpoint({ cached: true, success: Page(LandingPage.LandingPageSummary) }, (call) =>
    use(LandingPages.LandingPages, (pages) => pages.list(storeOf(call), call.query))
  ),
  getLandingPage: endpoint({ success: LandingPage.LandingPage }, (call) =>
    use2(LandingPages.LandingPages, idOf(call), (pages, id) => pages.get(storeOf(call), Ids.LandingPageId.make(id)))
  ),
  createLandingPage: endpoint({ scope: "landing_pages:write", body: true, success: LandingPage.LandingPage }, (call) =>
    use(LandingPages.LandingPages, (pages) => pages.create(storeOf(call), call.body))
  ),
  updateLandingPage: endpoint({ scope: "landing_pages:write", body: true, success: LandingPage.LandingPage }, (call) =>
    use2(LandingPages.LandingPages, idOf(call), (pages, id) =>
      pages.update(storeOf(call), Ids.LandingPageId.make(id), call.body)
    )
  ),
  publishLandingPage: endpoint({ scope: "landing_pages:write", success: LandingPage.LandingPage }, (call) =>
    use2(LandingPages.LandingPages, idOf(call), (pages, id) => pages.publish(storeOf(call), Ids.LandingPageId.make(id)))
  ),
  deleteLandingPage: endpoint({ scope: "landing_pages:write", success: LandingPage.LandingPageDeleted }, (call) =>
    use2(LandingPages.LandingPages, idOf(call), (pages, id) => pages.remove(storeOf(call), Ids.LandingPageId.make(id)))
  ),
  // store
  getStore: endpoint({ cached: true, success: Store.Store }, (call) =>
    use(StoreProfile.StoreProfile, (profile) => profile.get(storeOf(call)))
  ),
  updateStore: endpoint({}, () =>
    Effect.fail(
      new StoreErrors.MethodNotAllowed({
        message: "PATCH /v1/store is reserved; store settings cannot be written through the API yet"
      })
    )
  ),
  health: Effect.map(Effect.result(Health.check("store")), (result) =>
    result._tag === "Success"
      ? HttpServerResponse.jsonUnsafe(result.success)
      : HttpServerResponse.jsonUnsafe(result.failure, { status: 503 })
  )
}

type AnyHandler = Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, unknown>

/**
 * What the routes need besides the request: the domain services, the database (health) and this process's
 * record. `RequestId` is provided by the edge middleware around every route.
 */
export type Requirements =
  | Access.Access
  | Orders.Orders
  | Products.Products
  | LandingPages.LandingPages
  | StoreProfile.StoreProfile
  | Idempotency.Idempotency
  | ReadCache
  | SqlClient.SqlClient
  | Database.Database
  | RunningInstance

/** Every endpoint of `StoreApi` on the router, at its documented method and path. */
export const layer = (listener: "edge" | "origin"): Layer.Layer<never, never, HttpRouter.HttpRouter | Requirements> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* HttpRouter.HttpRouter
      // Route handlers run in the server's request fiber: give them the services this layer was built with — only
      // those, never the rest of the build context (a test's clock, say).
      const services = Context.pick(
        Access.Access,
        Orders.Orders,
        Products.Products,
        LandingPages.LandingPages,
        StoreProfile.StoreProfile,
        Idempotency.Idempotency,
        ReadCache,
        SqlClient.SqlClient,
        Database.Database,
        RunningInstance
      )(yield* Effect.context<Requirements>()).pipe(Context.add(Listener, listener))
      const withServices = (handler: AnyHandler) =>
        Effect.updateContext(
          handler,
          (request: Context.Context<unknown>): Context.Context<unknown> => Context.merge(services, request)
        )
      const table: Record<string, AnyHandler> = handlers as Record<keyof typeof handlers, AnyHandler>
      const routes: Array<HttpRouter.Route<unknown, unknown>> = []
      const mounted = new Set<string>()
      const missing: Array<string> = []
      HttpApi.reflect(StoreApi, {
        onGroup: () => {},
        onEndpoint: ({ endpoint }) => {
          const handler = table[endpoint.identifier]
          if (handler === undefined) return missing.push(endpoint.identifier)
          mounted.add(endpoint.identifier)
          routes.push(HttpRouter.route(endpoint.method, endpoint.path as HttpRouter.PathInput, withServices(handler)))
        }
      })
      const extra = Object.keys(table).filter((name) => !mounted.has(name))
      if (missing.length > 0 || extra.length > 0) {
        return yield* Effect.die(
          new Error(`store routes out of step with StoreApi: missing ${missing.join(", ")}; extra ${extra.join(", ")}`)
        )
      }
      yield* router.addAll(routes as Array<HttpRouter.Route<never, never>>)
    })
  )
