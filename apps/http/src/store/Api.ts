/**
 * The merchant store API's definition (spec: store-api-core.md): every endpoint's method, path, parameters, body,
 * answer and failures, and the pipeline each runs through — for the server (`HttpApiBuilder`), the OpenAPI document
 * and the docs page. Definitions only: the middlewares' implementations are `Pipeline.ts`, the handlers
 * `Handlers.ts`.
 *
 * Every keyed endpoint runs `Gate` (authenticate, meter, plan/pilot/scope gates, read cache: annotated per endpoint
 * with `RequiredScope`, `KeyManagement`, `ReadCached`); every write adds `Idempotent` (its `Idempotency-Key`, its
 * body, one transaction with the key's record). Write bodies are documented here and checked by the domain packages,
 * which own the spec's messages (decision 0010): their handlers read the body `Idempotent` parsed.
 */
import { Keys, type Principal, Usage } from "@tawsil/access"
import { LandingPage, Product, Store } from "@tawsil/catalogue"
import { OrderCreate, OrderStatus, OrderViews } from "@tawsil/orders"
import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"
import * as Errors from "./Errors.ts"

/** `{ data, meta }`. */
const Data = <S extends Schema.Top>(data: S) => Schema.Struct({ data, meta: Errors.Meta })

/** The list envelope's `data`: `{ items, next_cursor, has_more }`. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String), has_more: Schema.Boolean })

const ListOf = <S extends Schema.Top>(item: S) => Data(Page(item))

// --- the pipeline ----------------------------------------------------------------------------------------------

/** The scope an endpoint requires beyond a valid key; reads of store, products, orders, customers and pages need none. */
export class RequiredScope extends Context.Service<RequiredScope, string>()("@tawsil/http/store/RequiredScope") {}

/** Key management (`/v1/keys`): platform keys only; a public key is refused with 403. */
export class KeyManagement extends Context.Service<KeyManagement, true>()("@tawsil/http/store/KeyManagement") {}

/** Installed-app tokens are refused with 403 (the change history: spec store-api-config "Authentication"). */
export class NoAppTokens extends Context.Service<NoAppTokens, true>()("@tawsil/http/store/NoAppTokens") {}

/** Served through the 30-second read cache (spec: `GET /v1/store`, the product and landing page collections). */
export class ReadCached extends Context.Service<ReadCached, true>()("@tawsil/http/store/ReadCached") {}

/**
 * What the idempotency record keeps of an answer's `data`, when it must differ from what is sent: a minted key's
 * secret is shown once and never stored, so its replay carries none.
 */
export class StoredAs extends Context.Service<StoredAs, (data: unknown) => unknown>()("@tawsil/http/store/StoredAs") {}

const withoutSecrets = (data: unknown) => ({
  ...(data as object),
  bearer_token: null,
  signing_secret: null,
  note: "Replayed answer: the key's secret was shown only in the first answer and is not kept."
})

/** Who is calling, as `Gate` authenticated them. */
export class Caller extends Context.Service<Caller, Principal.Principal>()("@tawsil/http/store/Caller") {}

/** A write's parsed JSON body (`undefined` for writes that take none), as `Idempotent` read and fingerprinted it. */
export class RequestBody extends Context.Service<RequestBody, unknown>()("@tawsil/http/store/RequestBody") {}

/**
 * Every keyed call, in the spec's order: authenticate (401), then — a read-cache hit answered here, unmetered, once
 * every gate passed — meter (429, 402), then plan, pilot, scope and key management (403). Renders every failure of
 * the call in the envelope with the call's headers (`X-Api-Version`, `RateLimit-*`, `Retry-After`, `X-Cache`).
 */
export class Gate extends HttpApiMiddleware.Service<Gate, { provides: Caller }>()("@tawsil/http/store/Gate", {
  error: Errors.keyed
}) {}

/**
 * Every write: its `Idempotency-Key` (400), its JSON body (400), then one transaction with the key's record; the
 * same key and request within 24 h answers the first answer again, byte for byte, with `Idempotency-Replay: 1`.
 */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, { provides: RequestBody; requires: Caller }>()(
  "@tawsil/http/store/Idempotent",
  { error: [Errors.BadRequest, Errors.IdempotencyInFlight, Errors.IdempotencyKeyReuse] }
) {}

const writeHeaders = {
  /**
   * Required on every write (400 without it): 1 to 64 of `A-Z a-z 0-9 _ - : .`; the first answer is replayed for
   * 24 h. The origin listener (`STORE_ORIGIN_PORT`) has no replay and ignores it.
   */
  "idempotency-key": Schema.optionalKey(Schema.String)
}

const Id = { id: Schema.String }
const listQuery = { limit: Schema.optionalKey(Schema.String), cursor: Schema.optionalKey(Schema.String) }

const { keyed, reads, writes } = Errors

// --- orders and customers -------------------------------------------------------------------------------------

const OrderStatusBody = Schema.Struct({ status: OrderStatus.OrderStatus }).annotate({ identifier: "OrderStatusChange" })

export class OrdersGroup extends HttpApiGroup.make("orders")
  .add(
    HttpApiEndpoint.post("createOrder", "/v1/orders", {
      headers: writeHeaders,
      payload: OrderCreate.OrderCreateBody,
      success: Data(OrderViews.OrderDetail),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "orders:write"),
    HttpApiEndpoint.get("listOrders", "/v1/orders", {
      query: {
        ...listQuery,
        status: Schema.optionalKey(Schema.String),
        since: Schema.optionalKey(Schema.String),
        customer_phone: Schema.optionalKey(Schema.String)
      },
      success: ListOf(OrderViews.OrderSummary),
      error: reads
    }),
    HttpApiEndpoint.get("getOrder", "/v1/orders/:id", {
      params: Id,
      success: Data(OrderViews.OrderDetail),
      error: reads
    }),
    HttpApiEndpoint.patch("updateOrderStatus", "/v1/orders/:id", {
      params: Id,
      headers: writeHeaders,
      payload: OrderStatusBody,
      success: Data(OrderViews.OrderDetail),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "orders:write"),
    HttpApiEndpoint.post("cancelOrder", "/v1/orders/:id/cancel", {
      params: Id,
      headers: writeHeaders,
      success: Data(OrderViews.OrderDetail),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "orders:write")
  )
  .middleware(Gate)
  .annotateMerge(OpenApi.annotations({ title: "orders", description: "Create, list, read and move orders." })) {}

export class CustomersGroup extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("listCustomers", "/v1/customers", {
      query: { ...listQuery, phone: Schema.optionalKey(Schema.String), email: Schema.optionalKey(Schema.String) },
      success: ListOf(OrderViews.CustomerSummary),
      error: reads
    }),
    HttpApiEndpoint.get("getCustomer", "/v1/customers/:id", {
      params: Id,
      success: Data(OrderViews.CustomerDetail),
      error: reads
    }),
    HttpApiEndpoint.get("customerOrders", "/v1/customers/:id/orders", {
      params: Id,
      query: listQuery,
      success: ListOf(OrderViews.CustomerOrder),
      error: reads
    })
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({ title: "customers", description: "The store's customers, matched by phone." })
  ) {}

// --- catalogue, pages, store -------------------------------------------------------------------------------

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("listProducts", "/v1/products", {
      query: { ...listQuery, status: Schema.optionalKey(Schema.String) },
      success: ListOf(Product.ProductSummary),
      error: reads
    }).annotate(ReadCached, true),
    HttpApiEndpoint.get("getProduct", "/v1/products/:id", { params: Id, success: Data(Product.Product), error: reads }),
    HttpApiEndpoint.post("createProduct", "/v1/products", {
      headers: writeHeaders,
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "products:write"),
    HttpApiEndpoint.patch("updateProduct", "/v1/products/:id", {
      params: Id,
      headers: writeHeaders,
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "products:write"),
    HttpApiEndpoint.delete("deleteProduct", "/v1/products/:id", {
      params: Id,
      headers: writeHeaders,
      success: Data(Product.ProductDeleted),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "products:write")
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({ title: "products", description: "The catalogue orders are priced from (list cached 30 s)." })
  ) {}

export class LandingPagesGroup extends HttpApiGroup.make("landingPages")
  .add(
    HttpApiEndpoint.get("listLandingPages", "/v1/landing-pages", {
      query: { ...listQuery, status: Schema.optionalKey(Schema.String) },
      success: ListOf(LandingPage.LandingPageSummary),
      error: reads
    }).annotate(ReadCached, true),
    HttpApiEndpoint.get("getLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      success: Data(LandingPage.LandingPage),
      error: reads
    }),
    HttpApiEndpoint.post("createLandingPage", "/v1/landing-pages", {
      headers: writeHeaders,
      payload: LandingPage.LandingPageCreateBody,
      success: Data(LandingPage.LandingPage),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "landing_pages:write"),
    HttpApiEndpoint.patch("updateLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      headers: writeHeaders,
      payload: LandingPage.LandingPageUpdateBody,
      success: Data(LandingPage.LandingPage),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "landing_pages:write"),
    HttpApiEndpoint.post("publishLandingPage", "/v1/landing-pages/:id/publish", {
      params: Id,
      headers: writeHeaders,
      success: Data(LandingPage.LandingPage),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "landing_pages:write"),
    HttpApiEndpoint.delete("deleteLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      headers: writeHeaders,
      success: Data(LandingPage.LandingPageDeleted),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "landing_pages:write")
  )
  .middleware(Gate)
  .annotateMerge(OpenApi.annotations({ title: "landing pages", description: "Landing pages (list cached 30 s)." })) {}

export class StoreGroup extends HttpApiGroup.make("store")
  .add(
    HttpApiEndpoint.get("getStore", "/v1/store", { success: Data(Store.Store), error: reads }).annotate(
      ReadCached,
      true
    ),
    /** Reserved: 405 (400 first without `Idempotency-Key`). */
    HttpApiEndpoint.patch("updateStore", "/v1/store", {
      headers: writeHeaders,
      success: Data(Store.Store),
      error: [...writes, Errors.MethodNotAllowed]
    }).middleware(Idempotent)
  )
  .middleware(Gate)
  .annotateMerge(OpenApi.annotations({ title: "store", description: "The store's profile (cached 30 s)." })) {}

// --- access: ping, whoami, keys, usage, quotas ---------------------------------------------------------------

export class PingGroup extends HttpApiGroup.make("ping")
  .add(
    /** No key, not metered. */
    HttpApiEndpoint.get("ping", "/v1/ping", {
      success: Data(Schema.Struct({ pong: Schema.Literal(true), time: Schema.String, edge: Schema.Literal(true) }))
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "ping", description: "Is the API up? No key needed." })) {}

export const Whoami = Schema.Struct({
  auth: Schema.Literals(["platform_key", "app_token"]),
  key: Schema.NullOr(
    Schema.Struct({
      key_id: Schema.String,
      type: Schema.String,
      name: Schema.String,
      rate_limit_tier: Schema.String
    })
  ),
  store: Schema.Struct({ id: Schema.Int, name: Schema.String, slug: Schema.String }),
  plan: Schema.String,
  pilot: Schema.Boolean,
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "Whoami" })

export class AccessGroup extends HttpApiGroup.make("access")
  .add(
    HttpApiEndpoint.get("whoami", "/v1/whoami", { success: Data(Whoami), error: keyed }),
    HttpApiEndpoint.get("listKeys", "/v1/keys", { success: Data(Keys.KeyList), error: keyed }).annotate(
      KeyManagement,
      true
    ),
    HttpApiEndpoint.post("createKey", "/v1/keys", {
      headers: writeHeaders,
      payload: Schema.Struct({
        type: Schema.optionalKey(Schema.Literals(["platform", "public"])),
        name: Schema.optionalKey(Schema.String)
      }),
      success: Data(Keys.CreatedKey),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(KeyManagement, true)
      .annotate(StoredAs, withoutSecrets),
    HttpApiEndpoint.delete("revokeKey", "/v1/keys/:key_id", {
      params: { key_id: Schema.String },
      headers: writeHeaders,
      success: Data(Keys.RevokedKey),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(KeyManagement, true),
    HttpApiEndpoint.get("usage", "/v1/usage", { success: Data(Usage.Usage), error: keyed }).annotate(
      RequiredScope,
      "usage:read"
    ),
    HttpApiEndpoint.get("usageHistory", "/v1/usage/history", {
      query: {
        /** Date or date-time; default 7 days before now (Algiers time); inclusive; floored to the hour. */
        from: Schema.optionalKey(Schema.String),
        /** Date or date-time; default now; exclusive; floored to the hour. At most 90 days after `from`. */
        to: Schema.optionalKey(Schema.String)
      },
      success: Data(Usage.UsageHistory),
      error: reads
    }).annotate(RequiredScope, "usage:read"),
    HttpApiEndpoint.get("quotas", "/v1/quotas", { success: Data(Usage.Quotas), error: keyed }).annotate(
      RequiredScope,
      "usage:read"
    )
  )
  .middleware(Gate)
  .annotateMerge(OpenApi.annotations({ title: "access", description: "Who am I, keys, usage and quotas." })) {}

export class StoreApi extends HttpApi.make("store")
  .add(PingGroup)
  .add(AccessGroup)
  .add(OrdersGroup)
  .add(CustomersGroup)
  .add(ProductsGroup)
  .add(LandingPagesGroup)
  .add(StoreGroup)
  .add(HealthGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "Tawsil store API",
      version: "v1",
      description:
        "Orders, customers, products, store, landing pages, keys, usage and quotas for a merchant's store. " +
        "Authenticate with `Authorization: Bearer <key_id>.<secret>`; every write needs an `Idempotency-Key`."
    })
  ) {}
