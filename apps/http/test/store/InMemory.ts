/**
 * The store API in this process with no database and no socket: the real handlers (`Server.handlers`) behind the
 * real pipeline (`Server.routes`, in the listener's mode) and the edge's request id and envelope (`Edge.layer`), over
 * the domain services on the memory twins of their ports, composed like `Server.services`. Requests go through an
 * in-memory `HttpClient` over the router (as effect's `HttpApiTest` does), so a test sees statuses, headers and body
 * bytes as the wire has them; every `/v1/` answer is checked against the envelope on the way (`envelopeBreach`).
 *
 * What stays on sockets (`../StoreHarness.ts`): the listener itself (405 with `Allow`, 413 under the body limit, 415,
 * paths absent on the origin), processes, webhook delivery, and every assertion about a database.
 */
import {
  Access,
  AccessEvents,
  Admin,
  KeyStore,
  Keys,
  Limits,
  PublicAccess,
  ReadCache,
  SignedCalls,
  UsageStore
} from "@tawsil/access"
import { StoreApi } from "@tawsil/api/store/Api"
import {
  Categories,
  CategoryStore,
  Inventory,
  LandingPageStore,
  LandingPages,
  PageSections,
  ProductStore,
  Products
} from "@tawsil/catalogue"
import { ChangeLog, ChangeStore, Changes } from "@tawsil/changes"
import { Ids } from "@tawsil/domain"
import { Egress } from "@tawsil/egress"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Confirmation, ConfirmationStore, OrderStore, Orders, Risk, RiskStore } from "@tawsil/orders"
import { PromoStore, Promos } from "@tawsil/promos"
import { Secrets } from "@tawsil/secrets"
import {
  CodLedger,
  CodLedgerStore,
  CourierAccountStore,
  CourierAccounts,
  PushApplier,
  PushIntake,
  PushSignal,
  Shipments,
  TrackingStore
} from "@tawsil/shipments"
import type { Gateway } from "@tawsil/shipping"
import { Nonce, NonceStore, RequestSignature } from "@tawsil/signing"
import { Database } from "@tawsil/storage"
import { ShippingRates, ShippingSettings, ShippingStore } from "@tawsil/store-shipping"
import { Design, HomeLayout, HomeSections, Pixels, Settings, StorefrontStore, Themes } from "@tawsil/storefront"
import { Tracker, TrackerStore } from "@tawsil/tracker"
import { DeliverySignal, Outbox, WebhookStore, Webhooks, WebhookUrl } from "@tawsil/webhooks"
import { Clock, Context, DateTime, Effect, Layer, Option, Redacted, References, Scope } from "effect"
import {
  HttpClient,
  HttpClientRequest,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import * as Edge from "../../src/Edge.ts"
import { RunningInstance } from "../../src/Health.ts"
import { envelope } from "../../src/store/Errors.ts"
import type * as Pipeline from "../../src/store/Pipeline.ts"
import * as StoreServer from "../../src/store/Server.ts"
import { memoryGateway } from "../store-shipping/Couriers.ts"

// --- the ports ------------------------------------------------------------------------------------------------

/**
 * `ProductStore.layerMemory`, telling the orders' memory catalogue (`OrderStore.MemoryCatalogue`) what it writes: in
 * SQL, orders read the products' table; here the two twins would not know of each other.
 */
const productStore = Layer.effect(
  ProductStore.ProductStore,
  Effect.gen(function* () {
    const products = yield* ProductStore.ProductStore
    const catalogue = yield* OrderStore.MemoryCatalogue
    const mirror = (storeId: Ids.StoreId, id: number, deleted = false) =>
      Effect.flatMap(products.get(storeId, Ids.ProductId.make(id)), (found) =>
        Option.match(found, {
          onNone: () =>
            Effect.flatMap(catalogue.get(id), (known) =>
              known === undefined ? Effect.void : catalogue.put({ ...known, deleted: deleted || known.deleted })
            ),
          onSome: (product) =>
            catalogue.put({
              id: product.id,
              name: product.name,
              store_id: storeId,
              price: product.price,
              digital: product.digital,
              stock: product.stock,
              sales_count: product.sales_count,
              deleted: false,
              groups: product.variant_groups.map((group) => ({
                name: group.name,
                options: group.options.map((option) => ({
                  value: option.value,
                  price_adjustment: option.price_adjustment,
                  stock: option.stock
                }))
              }))
            })
        })
      )
    return ProductStore.ProductStore.of({
      ...products,
      insert: (storeId, input) => Effect.tap(products.insert(storeId, input), (product) => mirror(storeId, product.id)),
      update: (storeId, id, patch) => Effect.tap(products.update(storeId, id, patch), () => mirror(storeId, id)),
      remove: (storeId, id) => Effect.tap(products.remove(storeId, id), () => mirror(storeId, id, true)),
      writeStock: (storeId, id, write) => Effect.tap(products.writeStock(storeId, id, write), () => mirror(storeId, id))
    })
  })
).pipe(Layer.provide(ProductStore.layerMemory))

/** DNS as the tests say it is: `hooks.example.com` is public, every other name does not exist. */
export const resolver = Layer.succeed(Egress.Resolver, {
  lookup: (host: string) => Effect.succeed(host === "hooks.example.com" ? ["93.184.215.14"] : [])
})

/** Every port of the store API's services, in memory. */
const ports = Layer.mergeAll(
  KeyStore.layerMemory,
  UsageStore.layerMemory,
  AccessEvents.layerMemory,
  LandingPageStore.layerMemory,
  ChangeStore.layerMemory,
  PromoStore.layerMemory,
  StorefrontStore.layerMemory,
  ShippingStore.layerMemory,
  TrackerStore.layerMemory,
  NonceStore.layerMemory,
  WebhookStore.layerMemory,
  IdempotencyStore.layerMemory,
  CourierAccountStore.layerMemory,
  TrackingStore.layerMemory,
  DeliverySignal.layer,
  Layer.provideMerge(
    Layer.mergeAll(
      CategoryStore.layerMemory,
      RiskStore.layerMemory.pipe(Layer.provideMerge(ConfirmationStore.layerMemory)),
      CodLedgerStore.layerMemory
    ),
    Layer.provideMerge(productStore, OrderStore.layerMemory())
  )
)

// --- the services, as `Server.services` composes them -----------------------------------------------------------

const access = Access.layer()

const configuration = Layer.mergeAll(
  Promos.layer,
  Themes.layer,
  Pixels.layer,
  Settings.layer,
  Design.layer,
  HomeSections.layer,
  HomeLayout.layer,
  PageSections.layer,
  ShippingRates.layer,
  ShippingSettings.layer,
  Categories.layer,
  Inventory.layer,
  Changes.layer
).pipe(Layer.provide(StoreServer.entities), Layer.provide(ChangeLog.layer))

/** What the health endpoint reads: no database here, so one that always answers. */
const health = Layer.mergeAll(
  Layer.succeed(Database.Database, Database.Database.of({ kind: "embedded", location: "memory", ping: Effect.void })),
  Layer.succeed(RunningInstance, RunningInstance.of({ id: "memory", version: "test", startedAtMillis: 0 }))
)

/**
 * Orders meet parcels, as `Server.services` composes them over `Orders`: the courier accounts (sealed by `Secrets`),
 * shipping orders through them, the receiver of courier push and its applier — without its loop, whose timer a
 * `TestClock` jump would run for every interval it skips: `pushesApplied` runs it where the loop would have woken.
 */
const shipments = Layer.mergeAll(Shipments.layer, PushApplier.layerNoLoop(), CodLedger.layer).pipe(
  Layer.provideMerge(PushIntake.layer),
  Layer.provideMerge(CourierAccounts.layer),
  // The store's own origin wilaya, from its shipping settings, as the app provides it.
  Layer.provide(Layer.merge(StoreServer.storeOrigin, PushSignal.layer))
)

export interface Options {
  /** Hosts exempt from the webhook URL rules (`WEBHOOK_ALLOW_HOSTS`); none unless told. */
  readonly allowHosts?: WebhookUrl.AllowList | undefined
  /** DNS as the test says it is; `resolver` unless told. */
  readonly resolver?: Layer.Layer<Egress.Resolver> | undefined
  /**
   * The shipping API's gateway (the courier rate sync, shipments): the sandbox and the test courier of
   * `@tawsil/store-shipping`'s suite, with no HTTP, unless told.
   */
  readonly gateway?: Layer.Layer<Gateway.Gateway> | undefined
  /** The secret key that seals courier accounts: a random one unless told (`Secrets.layer(undefined)`: none). */
  readonly secrets?: Layer.Layer<Secrets.Secrets> | undefined
}

/** The domain services over the memory ports (each port exposed too, for fixtures), plus `Admin`. */
export const services = (options: Options = {}) =>
  Layer.mergeAll(
    access,
    Admin.layer,
    PublicAccess.layer().pipe(Layer.provide([SignedCalls.layer, access])),
    Tracker.layer(),
    Webhooks.layer({ allowHosts: options.allowHosts ?? WebhookUrl.noHostsAllowed }),
    Layer.merge(shipments, Confirmation.layer).pipe(
      Layer.provideMerge(Orders.layer.pipe(Layer.provide([Outbox.layer, Risk.orderRisk])))
    ),
    Risk.layer,
    Products.layer,
    LandingPages.layer,
    Idempotency.layer(),
    ReadCache.layer,
    configuration
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        ports,
        options.resolver ?? resolver,
        health,
        options.gateway ?? memoryGateway,
        options.secrets ?? Secrets.layerTest
      )
    )
  )

// --- the clients ----------------------------------------------------------------------------------------------

/**
 * The store API's routes in each listener mode (the handlers behind the pipeline, the edge's request id and
 * envelope) as an `HttpClient` that runs each request in this process, as effect's `HttpApiTest` does: the public
 * listener (`edge`) and the origin listener (`origin`), over the same services.
 */
export class Clients extends Context.Service<Clients, Record<Pipeline.Mode, HttpClient.HttpClient>>()(
  "test/store/InMemory/Clients"
) {}

const MAX_BODY_BYTES = 1_048_576

const clientOf = Effect.fnUntraced(function* (mode: Pipeline.Mode) {
  const app = Layer.mergeAll(
    HttpApiBuilder.layer(StoreApi).pipe(Layer.provide(StoreServer.routes(mode))),
    // No `Allow` list: a 405 with `Allow` is the listener's (`Server.make`), tested on sockets.
    Edge.layer({ envelope, maxBodyBytes: MAX_BODY_BYTES, allowedMethods: () => [] })
  ).pipe(Layer.provide(HttpServer.layerServices))
  const handler = yield* HttpRouter.toHttpEffect(app)
  // What a request's handler reads at request time (the health endpoint's).
  const database = yield* Database.Database
  const instance = yield* RunningInstance
  const scope = yield* Effect.scope
  return HttpClient.make((request) => {
    const requestScope = Scope.forkUnsafe(scope)
    return handler.pipe(
      Effect.map((response) => HttpServerResponse.toClientResponse(response, { request })),
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromClientRequest(request)),
      Effect.provideService(Scope.Scope, requestScope),
      Effect.provideService(Database.Database, database),
      Effect.provideService(RunningInstance, instance),
      Effect.orDie,
      Effect.onExit((exit) => Scope.close(requestScope, exit))
    )
  })
})

const clients = Layer.effect(
  Clients,
  Effect.gen(function* () {
    return Clients.of({ edge: yield* clientOf("edge"), origin: yield* clientOf("origin") })
  })
)

/** Errors only: an access-log line per request would bury the output. */
const quiet = Layer.succeed(References.MinimumLogLevel, "Error")

/** The store API over fresh memory services: its clients, the services, the memory ports and `Admin`. */
export const layer = (options: Options = {}) =>
  clients.pipe(Layer.provideMerge(services(options)), Layer.provideMerge(quiet))

// --- calls ----------------------------------------------------------------------------------------------------

export interface Answer {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
  readonly body: any
  readonly text: string
  /** The body's exact bytes (a label's PDF). */
  readonly bytes: Uint8Array
}

export interface RequestOptions {
  readonly token?: string | undefined
  readonly key?: string | undefined
  readonly body?: unknown
  /** Sent as is (for malformed JSON). */
  readonly raw?: string | undefined
  /** Sent as these exact bytes, with the headers given (a courier's push). */
  readonly bytes?: Uint8Array | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The listener: the public one unless told. */
  readonly listener?: Pipeline.Mode | undefined
}

/** One call, as `StoreHarness.call` makes it over a socket; parses the JSON answer and keeps its text. */
export const call = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.gen(function* () {
    const http = (yield* Clients)[options.listener ?? "edge"]
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    if (options.key !== undefined) headers["idempotency-key"] = options.key
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    let request = HttpClientRequest.make(method as "GET")(`http://store.test${path}`).pipe(
      HttpClientRequest.setHeaders(headers)
    )
    if (options.bytes !== undefined) {
      request = HttpClientRequest.bodyUint8Array(request, options.bytes, headers["content-type"])
    } else if (body !== undefined) request = HttpClientRequest.bodyText(request, body, "application/json")
    const response = yield* http.execute(request)
    const bytes = new Uint8Array(yield* response.arrayBuffer)
    const text = Buffer.from(bytes).toString("utf8")
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    const answer: Answer = {
      status: response.status,
      headers: new Headers(response.headers),
      body: parsed,
      text,
      bytes
    }
    const broken = path.startsWith("/v1/") && !outsideEnvelope(path, answer) ? envelopeBreach(answer) : undefined
    if (broken !== undefined) return yield* Effect.die(new Error(`${method} ${path}: ${broken}: ${text.slice(0, 300)}`))
    return answer
  }).pipe(Effect.orDie, Effect.scoped)

/**
 * The answers that are not the API's JSON by design: a label's PDF, what a courier's push is answered (the
 * courier's own format), the COD report as CSV, whose refusals are in the envelope; and the customer's confirmation
 * page, always a page.
 */
const outsideEnvelope = (path: string, answer: Answer) =>
  (path.startsWith("/v1/confirm?") && (answer.headers.get("content-type") ?? "").startsWith("text/html")) ||
  (answer.status < 400 &&
    (path.startsWith("/v1/hooks/couriers/") ||
      (path.startsWith("/v1/reports/cod") && answer.headers.get("content-type")?.startsWith("text/csv")) ||
      (/^\/v1\/orders\/\d+\/shipment\/label$/.test(path) && answer.headers.get("content-type") === "application/pdf")))

/**
 * How an answer of the store API breaks the envelope (spec "Response envelope"), if it does: JSON, exactly
 * `{ data, meta }` or `{ error: { code, message, … }, meta }`, `meta` being `{ request_id, api_version: "v1" }` with
 * the request id of its `X-Request-Id` (a replay's is the first call's, in both).
 */
const envelopeBreach = (answer: Answer): string | undefined => {
  const body = answer.body as Record<string, unknown> | undefined
  if (answer.headers.get("content-type") !== "application/json") return "not JSON"
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "not an object"
  const keys = Object.keys(body).sort().join(",")
  if (keys !== (answer.status < 400 ? "data,meta" : "error,meta")) return `keys ${keys}`
  const meta = body.meta as Record<string, unknown>
  if (Object.keys(meta).sort().join(",") !== "api_version,request_id" || meta.api_version !== "v1") return "meta"
  if (meta.request_id !== answer.headers.get("x-request-id")) return "meta.request_id"
  if (answer.status >= 400) {
    const error = body.error as Record<string, unknown>
    if (typeof error.code !== "string" || typeof error.message !== "string" || error.message === "") return "error"
  }
  return undefined
}

let keys = 0
/** A fresh `Idempotency-Key`. */
export const key = () => `mem-${++keys}`

/** The error status and code of an answer. */
export const codeOf = (answer: Answer) => [answer.status, answer.body?.error?.code] as const

/** A caller bound to one token. */
export interface Caller {
  readonly token: string
  readonly get: (path: string) => Effect.Effect<Answer, never, Clients>
  /** A write with a fresh `Idempotency-Key` unless one is given. */
  readonly write: (
    method: string,
    path: string,
    body?: unknown,
    idempotencyKey?: string
  ) => Effect.Effect<Answer, never, Clients>
}

export const caller = (token: string): Caller => ({
  token,
  get: (path) => call("GET", path, { token }),
  write: (method, path, body, idempotencyKey) =>
    call(method, path, { token, key: idempotencyKey ?? key(), ...(body === undefined ? {} : { body }) })
})

// --- fixtures -------------------------------------------------------------------------------------------------

/**
 * A store (Enterprise and pilot-enrolled unless told) in every memory twin, and a caller with its first platform
 * key, as the admin CLI makes it: the dashboard's scope set. In SQL every package reads one `stores` row; here the
 * access twin (`Admin`) and the storefront's (`StorefrontStore.MemoryStores`: profile, settings, design, home page,
 * themes) each keep theirs, so the store is made in both (and `setPlan` changes it in both).
 */
export const createStore = (input: Partial<Admin.CreateStoreInput> = {}) =>
  Effect.gen(function* () {
    const admin = yield* Admin.Admin
    const created = yield* admin.createStore({ name: `Boutique ${Math.random().toString(36).slice(2, 8)}`, ...input })
    yield* (yield* StorefrontStore.MemoryStores).add(Ids.StoreId.make(created.store.id), {
      plan: created.store.plan,
      language: created.store.language,
      name: created.store.name,
      slug: created.store.slug,
      createdAt: DateTime.makeUnsafe(Date.parse(`${created.store.created_at.replace(" ", "T")}+01:00`))
    })
    const token = Redacted.value(created.platform_key.bearer_token)
    return { id: created.store.id, keyId: created.platform_key.key_id, ...caller(token) }
  }).pipe(Effect.orDie)

/** Changes a store's plan (and when a paid plan runs out), as billing would. */
export const setPlan = (storeId: number, plan: string, expiresAt: Date | null = null) =>
  Effect.gen(function* () {
    yield* (yield* Admin.Admin).setPlan(storeId, plan)
    const storefront = yield* StorefrontStore.MemoryStores
    // `add` starts the store over (its name and language kept): the plan tests look at what a plan opens, not at
    // the theme chosen before.
    if (expiresAt === null) yield* storefront.setPlan(Ids.StoreId.make(storeId), plan)
    else
      yield* storefront.add(Ids.StoreId.make(storeId), {
        plan,
        planExpiresAt: DateTime.makeUnsafe(expiresAt.getTime())
      })
  }).pipe(Effect.orDie)

/** An installed-app token of the store with these scopes. */
export const appToken = (storeId: number, scopes: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const created = yield* (yield* Admin.Admin).createAppToken(storeId, scopes).pipe(Effect.orDie)
    return caller(Redacted.value(created.token))
  })

/** A key minted through `POST /v1/keys` by `minter`: the core default scopes only. */
export const apiKey = (minter: Caller) =>
  Effect.map(minter.write("POST", "/v1/keys", { name: "minted" }), (minted) =>
    caller(minted.body.data.bearer_token as string)
  )

/** An active public key of the store (the operator activated it), to sign calls with. */
export const publicKey = (storeId: number) =>
  Effect.gen(function* () {
    const created = yield* (yield* Admin.Admin).createKey(storeId, "public").pipe(Effect.orDie)
    return { keyId: created.key_id, secret: Redacted.value(created.signing_secret!) }
  })

export interface Signer {
  readonly keyId: string
  readonly secret: string
}

/** The headers that sign `body` (docs/signing.md) with `signer`'s secret at `at` (Unix seconds). */
export const signedHeaders = (
  signer: Signer,
  body: string,
  options: { readonly at?: number | undefined; readonly nonce?: string | undefined } = {}
) =>
  RequestSignature.headers({
    keyId: signer.keyId,
    secret: Redacted.make(signer.secret),
    body,
    timestamp: options.at ?? Math.floor(Date.now() / 1000),
    nonce: options.nonce ?? Nonce.make()
  })

/**
 * A signed call (docs/signing.md), as a platform's backend makes it: the body's exact bytes are signed, at the
 * `Clock`'s time unless told (so `TestClock` moves the signer too).
 */
export const signed = (
  path: string,
  signer: Signer,
  body: unknown,
  options: { readonly at?: number; readonly nonce?: string; readonly tamper?: (text: string) => string } = {}
) =>
  Effect.gen(function* () {
    const text = JSON.stringify(body)
    const at = options.at ?? Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const headers = signedHeaders(signer, text, { at, nonce: options.nonce })
    return yield* call("POST", path, { headers, raw: options.tamper?.(text) ?? text })
  })

/**
 * A platform key of the store with exactly these scopes, as the admin CLI makes one (a dashboard key) and an
 * operator then narrows it.
 */
export const keyWithScopes = (storeId: number, scopes: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* KeyStore.KeyStore
    const minted = Access.mintKey({
      type: "platform",
      name: "narrow",
      pilot: true,
      rateLimitTier: Limits.TIER,
      status: "active",
      createdVia: "dashboard"
    })
    yield* store
      .insertKey(Ids.StoreId.make(storeId), { ...minted.key, scopes }, Keys.MAX_ACTIVE_KEYS)
      .pipe(Effect.orDie)
    return caller(Redacted.value(minted.bearerToken!))
  })

/** Turns the store's Promo codes add-on on or off, as billing does. */
export const setPromoAddon = (storeId: number, active: boolean) =>
  Effect.flatMap(Effect.service(PromoStore.PromoStore), (store) => store.setAddon(Ids.StoreId.make(storeId), active))

/**
 * Runs the push applier as its loop would after a receive (`drain`: the receiver answers before anything is applied),
 * then checks that every event of the account naming this parcel (by any of its names) is applied.
 */
export const pushesApplied = (
  accountId: number,
  parcel: { readonly trackingNumber: string; readonly courierReference?: string | null; readonly reference?: string }
) =>
  Effect.gen(function* () {
    yield* (yield* PushApplier.PushApplier).drain
    const waiting = yield* (yield* TrackingStore.TrackingStore).pendingPushed(accountId, {
      trackingNumber: parcel.trackingNumber,
      courierReference: parcel.courierReference ?? null,
      reference: parcel.reference ?? `none-${parcel.trackingNumber}`
    })
    if (waiting.length > 0) {
      return yield* Effect.die(new Error(`${waiting.length} pushed events of ${parcel.trackingNumber} not applied`))
    }
  })
