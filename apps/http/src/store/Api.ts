/**
 * The merchant store API's definition (spec: store-api-core.md): every endpoint's method, path, parameters, body
 * and answer, for the OpenAPI document and the docs page. The routes are mounted from these definitions
 * (`Routes.ts`), so a path cannot drift from its documentation; the pipeline that serves them is `Pipeline.ts`
 * (decision 0010). Definitions only.
 */
import { Keys, Usage } from "@tawsil/access"
import { LandingPage, Product, Store } from "@tawsil/catalogue"
import { OrderCreate, OrderStatus, OrderViews } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"

const Meta = Schema.Struct({ request_id: Schema.String, api_version: Schema.Literal("v1") })

/** `{ data, meta }`. */
const Data = <S extends Schema.Top>(data: S) => Schema.Struct({ data, meta: Meta })

/** The list envelope's `data`: `{ items, next_cursor, has_more }`. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String), has_more: Schema.Boolean })

const ListOf = <S extends Schema.Top>(item: S) => Data(Page(item))

/** `{ error: { code, message, retry_after? }, meta }` with the status it is sent with. */
const Failure = (status: number, codes: ReadonlyArray<string>, description: string) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literals(codes as [string, ...Array<string>]),
      message: Schema.String,
      retry_after: Schema.optionalKey(Schema.Int)
    }),
    meta: Meta
  }).pipe(HttpApiSchema.status(status), Schema.annotate({ description }))

const BadRequest = Failure(400, ["bad_request"], "Invalid JSON, missing or malformed Idempotency-Key, validation")
const Unauthorized = Failure(401, ["unauthorized"], "Missing, malformed, unknown or revoked key")
const QuotaExceeded = Failure(402, ["quota_exceeded"], "Monthly request quota used up")
const Forbidden = Failure(403, ["forbidden"], "Plan not Enterprise, key not pilot-enrolled, missing scope")
const NotFound = Failure(404, ["not_found"], "Unknown id, or another store's")
const InFlight = Failure(409, ["idempotency_in_flight"], "A write with this Idempotency-Key is still running")
const KeyReuse = Failure(422, ["idempotency_key_reuse"], "Idempotency-Key first used with another request")
const RateLimited = Failure(429, ["rate_limited"], "Per-minute budget spent; honour Retry-After")

const keyed = [Unauthorized, QuotaExceeded, Forbidden, RateLimited] as const
const reads = [...keyed, BadRequest, NotFound] as const
const writes = [...reads, InFlight, KeyReuse] as const

const writeHeaders = {
  /** Required on every write: 1 to 64 of `A-Z a-z 0-9 _ - : .`; the first answer is replayed for 24 h. */
  "idempotency-key": Schema.String
}

const Id = { id: Schema.String }
const listQuery = { limit: Schema.optionalKey(Schema.String), cursor: Schema.optionalKey(Schema.String) }

// --- orders and customers -------------------------------------------------------------------------------------

const OrderStatusBody = Schema.Struct({ status: OrderStatus.OrderStatus }).annotate({ identifier: "OrderStatusChange" })

export class OrdersGroup extends HttpApiGroup.make("orders")
  .add(
    HttpApiEndpoint.post("createOrder", "/v1/orders", {
      headers: writeHeaders,
      payload: OrderCreate.OrderCreateBody,
      success: Data(OrderViews.OrderDetail),
      error: writes
    }),
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
    }),
    HttpApiEndpoint.post("cancelOrder", "/v1/orders/:id/cancel", {
      params: Id,
      headers: writeHeaders,
      success: Data(OrderViews.OrderDetail),
      error: writes
    })
  )
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
  .annotateMerge(
    OpenApi.annotations({ title: "customers", description: "The store's customers, matched by phone." })
  ) {}

// --- catalogue, pages, store -------------------------------------------------------------------------------

const Deleted = <S extends Schema.Top>(schema: S) => Data(schema)

export class ProductsGroup extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("listProducts", "/v1/products", {
      query: { ...listQuery, status: Schema.optionalKey(Schema.String) },
      success: ListOf(Product.ProductSummary),
      error: reads
    }),
    HttpApiEndpoint.get("getProduct", "/v1/products/:id", { params: Id, success: Data(Product.Product), error: reads }),
    HttpApiEndpoint.post("createProduct", "/v1/products", {
      headers: writeHeaders,
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes
    }),
    HttpApiEndpoint.patch("updateProduct", "/v1/products/:id", {
      params: Id,
      headers: writeHeaders,
      payload: Product.ProductCreateBody,
      success: Data(Product.Product),
      error: writes
    }),
    HttpApiEndpoint.delete("deleteProduct", "/v1/products/:id", {
      params: Id,
      headers: writeHeaders,
      success: Deleted(Product.ProductDeleted),
      error: writes
    })
  )
  .annotateMerge(
    OpenApi.annotations({ title: "products", description: "The catalogue orders are priced from (list cached 30 s)." })
  ) {}

export class LandingPagesGroup extends HttpApiGroup.make("landingPages")
  .add(
    HttpApiEndpoint.get("listLandingPages", "/v1/landing-pages", {
      query: { ...listQuery, status: Schema.optionalKey(Schema.String) },
      success: ListOf(LandingPage.LandingPageSummary),
      error: reads
    }),
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
    }),
    HttpApiEndpoint.patch("updateLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      headers: writeHeaders,
      payload: LandingPage.LandingPageUpdateBody,
      success: Data(LandingPage.LandingPage),
      error: writes
    }),
    HttpApiEndpoint.post("publishLandingPage", "/v1/landing-pages/:id/publish", {
      params: Id,
      headers: writeHeaders,
      success: Data(LandingPage.LandingPage),
      error: writes
    }),
    HttpApiEndpoint.delete("deleteLandingPage", "/v1/landing-pages/:id", {
      params: Id,
      headers: writeHeaders,
      success: Deleted(LandingPage.LandingPageDeleted),
      error: writes
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "landing pages", description: "Landing pages (list cached 30 s)." })) {}

const MethodNotAllowed = Failure(405, ["method_not_allowed"], "Reserved until the store settings write lands")

export class StoreGroup extends HttpApiGroup.make("store")
  .add(
    HttpApiEndpoint.get("getStore", "/v1/store", { success: Data(Store.Store), error: reads }),
    /** Reserved: 405 (400 first without `Idempotency-Key`). */
    HttpApiEndpoint.patch("updateStore", "/v1/store", {
      headers: writeHeaders,
      success: Data(Store.Store),
      error: [...writes, MethodNotAllowed]
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "store", description: "The store's profile (cached 30 s)." })) {}

// --- access: ping, whoami, keys, usage, quotas ---------------------------------------------------------------

export class AccessGroup extends HttpApiGroup.make("access")
  .add(
    HttpApiEndpoint.get("ping", "/v1/ping", {
      success: Data(Schema.Struct({ pong: Schema.Literal(true), time: Schema.String, edge: Schema.Literal(true) }))
    }),
    HttpApiEndpoint.get("whoami", "/v1/whoami", {
      success: Data(
        Schema.Struct({
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
        })
      ),
      error: keyed
    }),
    HttpApiEndpoint.get("listKeys", "/v1/keys", {
      success: Data(Keys.KeyList),
      error: keyed
    }),
    HttpApiEndpoint.post("createKey", "/v1/keys", {
      headers: writeHeaders,
      payload: Schema.Struct({
        type: Schema.optionalKey(Schema.Literals(["platform", "public"])),
        name: Schema.optionalKey(Schema.String)
      }),
      success: Data(Keys.CreatedKey),
      error: writes
    }),
    HttpApiEndpoint.delete("revokeKey", "/v1/keys/:key_id", {
      params: { key_id: Schema.String },
      headers: writeHeaders,
      success: Data(Keys.RevokedKey),
      error: writes
    }),
    HttpApiEndpoint.get("usage", "/v1/usage", { success: Data(Usage.Usage), error: keyed }),
    HttpApiEndpoint.get("usageHistory", "/v1/usage/history", {
      query: {
        /** Date or date-time; default 7 days ago; inclusive; floored to the hour. */
        from: Schema.optionalKey(Schema.String),
        /** Date or date-time; default now; exclusive; floored to the hour. At most 90 days after `from`. */
        to: Schema.optionalKey(Schema.String)
      },
      success: Data(Usage.UsageHistory),
      error: [...keyed, BadRequest]
    }),
    HttpApiEndpoint.get("quotas", "/v1/quotas", { success: Data(Usage.Quotas), error: keyed })
  )
  .annotateMerge(OpenApi.annotations({ title: "access", description: "Ping, who am I, keys, usage and quotas." })) {}

export class StoreApi extends HttpApi.make("store")
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
