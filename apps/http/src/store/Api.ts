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
import { Change } from "@tawsil/changes"
import { OrderCreate, OrderStatus, OrderViews } from "@tawsil/orders"
import { PromoCode } from "@tawsil/promos"
import { Pixel, Themes } from "@tawsil/storefront"
import { TrackerBodies } from "@tawsil/tracker"
import { Subscription } from "@tawsil/webhooks"
import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
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

/** What the idempotency record keeps of a webhook's answer: never its secret (shown once, in the first answer). */
const withoutWebhookSecret = (data: unknown) => ({ ...(data as object), secret: null })

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

/** The nonce of a signed call, as `Signed` verified it: the deduplication key of an event. */
export class CallNonce extends Context.Service<CallNonce, string>()("@tawsil/http/store/CallNonce") {}

/**
 * Every signed call (`POST /v1/signups`, `POST /v1/events`): `Authorization: TW-Public <key_id>` and the
 * `X-TW-Timestamp`, `X-TW-Nonce`, `X-TW-Signature` headers over the raw body (docs/signing.md, 401), then the plan,
 * pilot and scope gates (403), then the JSON body (400). Not metered in `request` and under no per-minute limit:
 * the calls count in their own usage groups when written. Absent (404) on the origin listener.
 */
export class Signed extends HttpApiMiddleware.Service<Signed, { provides: Caller | RequestBody | CallNonce }>()(
  "@tawsil/http/store/Signed",
  { error: [Errors.Unauthorized, Errors.Forbidden, Errors.BadRequest, Errors.NotFound] }
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

// --- webhooks -----------------------------------------------------------------------------------------------

export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("listWebhooks", "/v1/webhooks", {
      success: Data(Subscription.WebhookList),
      error: keyed
    }).annotate(RequiredScope, "webhooks:read"),
    /** The answer's `secret` (`whsec_…`) is shown this once; a replay answers `secret: null`. */
    HttpApiEndpoint.post("createWebhook", "/v1/webhooks", {
      headers: writeHeaders,
      payload: Subscription.CreateBody,
      success: Data(Subscription.WebhookWithSecret),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "webhooks:write")
      .annotate(StoredAs, withoutWebhookSecret),
    /** `rotate_secret: true` answers the new `secret` once; the previous one keeps signing for 24 h. */
    HttpApiEndpoint.patch("updateWebhook", "/v1/webhooks/:id", {
      params: Id,
      headers: writeHeaders,
      payload: Subscription.PatchBody,
      success: Data(Subscription.WebhookWithSecret),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "webhooks:write")
      .annotate(StoredAs, withoutWebhookSecret),
    HttpApiEndpoint.delete("deleteWebhook", "/v1/webhooks/:id", {
      params: Id,
      headers: writeHeaders,
      success: Data(Subscription.WebhookDeleted),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "webhooks:write"),
    /** The delivery log, newest first: each delivery's attempts (status, latency, error). */
    HttpApiEndpoint.get("listWebhookDeliveries", "/v1/webhooks/:id/deliveries", {
      params: Id,
      query: listQuery,
      success: ListOf(Subscription.Delivery),
      error: reads
    }).annotate(RequiredScope, "webhooks:read"),
    /** Due now, with one more attempt when none was left; the same event id and body. */
    HttpApiEndpoint.post("retryWebhookDelivery", "/v1/webhooks/:id/deliveries/:delivery_id/retry", {
      params: { id: Schema.String, delivery_id: Schema.String },
      headers: writeHeaders,
      success: Data(Subscription.Delivery),
      error: writes
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "webhooks:write")
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "webhooks",
      description:
        "Subscriptions to order.created, order.confirmed and order.shipped, signed deliveries (docs/webhooks.md), " +
        "the delivery log and manual redelivery."
    })
  ) {}

// --- signed calls: signups and events -----------------------------------------------------------------------------

const signedHeaders = {
  /** Unix seconds, within ±300 s of the server's clock. */
  "x-tw-timestamp": Schema.optionalKey(Schema.String),
  /** 32 hexadecimal characters, used once per key per hour. */
  "x-tw-nonce": Schema.optionalKey(Schema.String),
  /** hex HMAC-SHA256 of key_id, nonce, timestamp and the body's SHA-256, joined by \n (docs/signing.md). */
  "x-tw-signature": Schema.optionalKey(Schema.String)
}

const accepted = Data(TrackerBodies.Accepted).pipe(HttpApiSchema.status(202))
const signedErrors = [Errors.Unauthorized, Errors.Forbidden, Errors.BadRequest, Errors.NotFound] as const

export class TrackerGroup extends HttpApiGroup.make("tracker")
  .add(
    /** A user of the platform signed up; a repeat of one `user.id` counts in `total`, not `billable`. */
    HttpApiEndpoint.post("trackSignup", "/v1/signups", {
      headers: signedHeaders,
      payload: TrackerBodies.SignupBody,
      success: accepted,
      error: signedErrors
    }).annotate(RequiredScope, "signups:write"),
    /** Something a user did; a second call of one store with one nonce is dropped and counted nowhere. */
    HttpApiEndpoint.post("trackEvent", "/v1/events", {
      headers: signedHeaders,
      payload: TrackerBodies.EventBody,
      success: accepted,
      error: signedErrors
    }).annotate(RequiredScope, "events:write")
  )
  .middleware(Signed)
  .annotateMerge(
    OpenApi.annotations({
      title: "signups and events",
      description:
        "Signed with a public key (Authorization: TW-Public <key_id>, docs/signing.md); answered 202 at once and " +
        "written behind the answer. Absent on the origin listener."
    })
  ) {}

// --- configuration (store-api-config.md): promo codes, themes, pixels, change history ---------------------------

const { promoWrites, themeWrites, pixelWrites, undoWrites } = Errors

export class PromoCodesGroup extends HttpApiGroup.make("promoCodes")
  .add(
    HttpApiEndpoint.get("listPromoCodes", "/v1/promo-codes", {
      query: {
        /** `true`, `1`, `yes`, `on`: active codes; any other value: inactive; omitted: all. */
        is_active: Schema.optionalKey(Schema.String),
        ...listQuery
      },
      success: Data(PromoCode.PromoCodeList),
      error: reads
    }).annotate(RequiredScope, "promos:read"),
    HttpApiEndpoint.post("createPromoCode", "/v1/promo-codes", {
      headers: writeHeaders,
      payload: PromoCode.PromoCodeBody,
      success: Data(PromoCode.PromoCode).pipe(HttpApiSchema.status(201)),
      error: [...writes, ...promoWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "promos:write"),
    HttpApiEndpoint.patch("updatePromoCode", "/v1/promo-codes/:id", {
      params: Id,
      headers: writeHeaders,
      payload: PromoCode.PromoCodePatchBody,
      success: Data(PromoCode.PromoCode),
      error: [...writes, ...promoWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "promos:write"),
    HttpApiEndpoint.delete("deletePromoCode", "/v1/promo-codes/:id", {
      params: Id,
      headers: writeHeaders,
      success: Data(PromoCode.PromoCodeDeleted),
      error: [...writes, ...promoWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "promos:write")
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "promo codes",
      description: "Codes buyers enter at checkout; writes need the Promo codes add-on. Recorded as promo_code."
    })
  ) {}

export class ThemesGroup extends HttpApiGroup.make("themes")
  .add(
    /** The whole list in one answer; never cached. */
    HttpApiEndpoint.get("listThemes", "/v1/themes", {
      success: Data(Themes.ThemeList),
      error: [...reads, ...themeWrites]
    }).annotate(RequiredScope, "store:read"),
    HttpApiEndpoint.post("switchTheme", "/v1/store/theme", {
      headers: writeHeaders,
      payload: Themes.ThemeBody,
      success: Data(Themes.ThemeSwitched),
      error: [...writes, ...themeWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "store:write"),
    HttpApiEndpoint.post("switchFastCheckoutTheme", "/v1/store/fast-checkout-theme", {
      headers: writeHeaders,
      payload: Themes.ThemeBody,
      success: Data(Themes.FastCheckoutSwitched),
      error: [...writes, ...themeWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "store:write"),
    HttpApiEndpoint.post("switchVariantStyle", "/v1/store/variant-style", {
      headers: writeHeaders,
      payload: Themes.StyleBody,
      success: Data(Themes.VariantStyleSwitched),
      error: [...writes, ...themeWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "store:write")
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "themes",
      description: "Storefront theme, fast-checkout form theme and variant style, by plan. Recorded as store.theme."
    })
  ) {}

export class PixelsGroup extends HttpApiGroup.make("pixels")
  .add(
    HttpApiEndpoint.get("listPixels", "/v1/pixels", {
      query: {
        /** One of the seven types, any letter case; an unknown type gives an empty list. */
        pixel_type: Schema.optionalKey(Schema.String),
        ...listQuery
      },
      success: Data(Pixel.PixelList),
      error: reads
    }).annotate(RequiredScope, "pixels:read"),
    HttpApiEndpoint.post("createPixel", "/v1/pixels", {
      headers: writeHeaders,
      payload: Pixel.PixelCreateBody,
      success: Data(Pixel.Pixel).pipe(HttpApiSchema.status(201)),
      error: [...writes, ...pixelWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "pixels:write"),
    HttpApiEndpoint.patch("updatePixel", "/v1/pixels/:id", {
      params: Id,
      headers: writeHeaders,
      payload: Pixel.PixelPatchBody,
      success: Data(Pixel.Pixel),
      error: [...writes, ...pixelWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "pixels:write"),
    /** Also deletes the pixel's assignments. */
    HttpApiEndpoint.delete("deletePixel", "/v1/pixels/:id", {
      params: Id,
      headers: writeHeaders,
      success: Data(Pixel.PixelDeleted),
      error: [...writes, ...pixelWrites]
    })
      .middleware(Idempotent)
      .annotate(RequiredScope, "pixels:write")
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "pixels",
      description: "Tracking pixels: seven platforms, write-only access tokens, plan limits. Recorded as pixels."
    })
  ) {}

export class ChangesGroup extends HttpApiGroup.make("changes")
  .add(
    HttpApiEndpoint.get("listChanges", "/v1/changes", {
      query: {
        /** One of the recorded entities (`promo_code`, `pixels`, `store.theme`, …); any other value is ignored. */
        entity: Schema.optionalKey(Schema.String),
        /** Default 25, clamped to 1..100. */
        limit: Schema.optionalKey(Schema.String),
        cursor: Schema.optionalKey(Schema.String)
      },
      success: ListOf(Change.ChangeListItem),
      error: reads
    })
      .annotate(RequiredScope, "store:read")
      .annotate(NoAppTokens, true),
    /** Needs `store:read` and the entity's read scope; a pixel's token shows as the mask. */
    HttpApiEndpoint.get("getChange", "/v1/changes/:id", {
      params: Id,
      success: Data(Change.ChangeDetail),
      error: [...reads, ...Errors.changeFailures]
    })
      .annotate(RequiredScope, "store:read")
      .annotate(NoAppTokens, true),
    /** Needs the entity's undo scope (not `store:read`). Read the item again for the restored values. */
    HttpApiEndpoint.post("undoChange", "/v1/changes/:id/undo", {
      params: Id,
      headers: writeHeaders,
      success: Data(Change.Undone),
      error: [...writes, ...undoWrites]
    })
      .middleware(Idempotent)
      .annotate(NoAppTokens, true)
  )
  .middleware(Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "changes",
      description: "Recorded configuration writes, newest first, and their undo. Installed-app tokens get 403."
    })
  ) {}

export class StoreApi extends HttpApi.make("store")
  .add(PingGroup)
  .add(AccessGroup)
  .add(OrdersGroup)
  .add(CustomersGroup)
  .add(ProductsGroup)
  .add(LandingPagesGroup)
  .add(StoreGroup)
  .add(WebhooksGroup)
  .add(TrackerGroup)
  .add(PromoCodesGroup)
  .add(ThemesGroup)
  .add(PixelsGroup)
  .add(ChangesGroup)
  .add(HealthGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "Tawsil store API",
      version: "v1",
      description:
        "Orders, customers, products, store, landing pages, keys, usage and quotas, webhooks, signups and events, " +
        "promo codes, themes, pixels and the change history for a merchant's store. Authenticate with `Authorization: Bearer <key_id>.<secret>`; every write needs an " +
        "`Idempotency-Key`. Signups and events are signed with a public key (`TW-Public`)."
    })
  ) {}
