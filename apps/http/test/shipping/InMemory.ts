/**
 * The shipping API in this process with no database and no socket: the real handlers and middleware
 * (`ShippingServer.handlers`) and the edge's envelope (`Edge.layer`), over a gateway on memory idempotency records
 * and a memory client window, the sandbox, and `memco`, a courier here in memory whose failures the caller's token
 * chooses. Requests go through an in-memory `HttpClient` over the router (as effect's `HttpApiTest` does), so a test
 * sees statuses, headers and body bytes as the wire has them; every answer of 400 or more is checked against the
 * envelope on the way.
 *
 * What stays on sockets: the door (`Server.Door`: a refusal answered before the body is read), the listener itself
 * (405 with `Allow`, 413 under the body limit), the window shared between instances (Redis), the adapters against
 * their loopback fakes, and the app's processes.
 */
import { adapter as sandbox } from "@tawsil/adapter-sandbox"
import { ShippingApi } from "@tawsil/api/shipping/Api"
import { CourierAdapter, CourierError, CourierHttp, Shipment } from "@tawsil/courier"
import { Idempotency, IdempotencyStore } from "@tawsil/idempotency"
import { Communes } from "@tawsil/reference"
import { Catalogue, ClientWindow, Gateway, Shipping } from "@tawsil/shipping"
import { Database } from "@tawsil/storage"
import { Context, Deferred, Effect, Layer, Redacted, References, Schema, Scope } from "effect"
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
import { envelope } from "../../src/shipping/Errors.ts"
import * as ShippingServer from "../../src/shipping/Server.ts"

// --- memco: a courier in memory ---------------------------------------------------------------------------------

/**
 * What `memco` was asked, and the creates it holds until released (`hang` token): for the capacity guard and the
 * idempotency rules, which turn on what reached the courier.
 */
export class Memco extends Context.Service<
  Memco,
  {
    readonly creates: Array<{ readonly token: string; readonly reference: string | undefined }>
    readonly cancels: Array<string>
    /** Set: the next read of its commune list fails (unreachable), as a create's first step. */
    readonly failNextList: { current: boolean }
    /** Completed once a `hang` create has reached the courier (it then waits until interrupted). */
    readonly hanging: Deferred.Deferred<void>
  }
>()("test/shipping/InMemory/Memco") {}

const Credentials = Schema.Struct({ token: Schema.RedactedFromValue(Schema.String) })

/**
 * `memco` answers every token with success but these: `refused` (the courier's refusal), `rejected` (credentials
 * refused), `down` (unreachable: it may have acted), `garbage` (an answer that cannot be read), `limited` (its rate
 * limit, 42 s), `hang` (a create that never answers), `slow` (rates that never answer). Its rate is 300 + 10 × the
 * destination wilaya, any way; it lists two communes of Alger (Bab Ezzouar, and Hydra without a desk); it has no
 * label, desks or credential check. Cancels of a tracking number starting `SHIPPED` are refused
 * as not cancellable.
 */
const memco = (state: Memco["Service"]) =>
  CourierAdapter.define<typeof Credentials.Type>({
    platform: "memco",
    couriers: [
      { key: "memco", name: "Mem Co", aliases: ["mem_co"], endpoint: { origin: "https://api.memco.dz" } },
      // A generic platform key: its callers name their tenant in `options.baseUrl`.
      { key: "memco_tenant", name: "Mem Co (any tenant)", aliases: [], endpoint: { tenantDomain: "ecotrack.dz" } }
    ],
    credentials: Credentials,
    statuses: { created: "created" },
    operations: {
      create: (order, { credentials }) =>
        Effect.gen(function* () {
          const token = Redacted.value(credentials.token)
          state.creates.push({ token, reference: order.reference })
          yield* failureOf(token)
          if (token === "hang") {
            yield* Deferred.succeed(state.hanging, undefined)
            return yield* Effect.never
          }
          return { trackingNumber: `MEM${String(state.creates.length).padStart(6, "0")}`, rawStatus: "created" }
        }),
      track: (trackingNumber, { credentials }) =>
        Effect.as(failureOf(Redacted.value(credentials.token)), [
          { rawStatus: "created", timestamp: `2026-01-0${Math.min(trackingNumber.length, 9)}T10:00:00+01:00` }
        ]),
      rates: (query, { credentials }) =>
        Effect.gen(function* () {
          const token = Redacted.value(credentials.token)
          yield* failureOf(token)
          if (token === "slow") return yield* Effect.never
          const fee = (300 + 10 * query.toWilaya) as Shipment.RatesResult["deliveryFee"]
          return Shipment.RatesResult.make({
            deliveryType: query.deliveryType,
            deliveryFee: fee,
            returnFee: 0 as Shipment.RatesResult["returnFee"],
            codFee: 0 as Shipment.RatesResult["codFee"],
            total: fee,
            currency: "DZD",
            options: []
          })
        }),
      communes: (wilayaCode) =>
        Effect.suspend(() => {
          if (state.failNextList.current) {
            state.failNextList.current = false
            return Effect.fail(new CourierError.Unreachable({ message: "the commune list did not come" }))
          }
          return Effect.succeed(
            wilayaCode === 16
              ? [
                  { name: "Bab Ezzouar", id: "16-BEZ", home: true, stopdesk: true },
                  { name: "Hydra", home: true, stopdesk: false }
                ]
              : []
          )
        }),
      cancel: (trackingNumber, { credentials }) =>
        Effect.gen(function* () {
          state.cancels.push(trackingNumber)
          yield* failureOf(Redacted.value(credentials.token))
          if (trackingNumber.startsWith("SHIPPED")) {
            return yield* new CourierError.NotCancellable({ message: "the parcel was picked up" })
          }
        })
    }
  })

const failureOf = (token: string): Effect.Effect<void, CourierError.CourierErrorReason> => {
  switch (token) {
    case "refused":
      return Effect.fail(new CourierError.Refused({ message: "the order breaks a rule" }))
    case "rejected":
      return Effect.fail(new CourierError.CredentialsRejected({ message: "bad token" }))
    case "down":
      return Effect.fail(new CourierError.Unreachable({ message: "no answer" }))
    case "garbage":
      return Effect.fail(new CourierError.BadResponse({ message: "unreadable answer" }))
    case "limited":
      return Effect.fail(new CourierError.CourierRateLimited({ retryAfterSeconds: 42 }))
    default:
      return Effect.void
  }
}

const noHttp = Layer.succeed(
  Shipping.Transport,
  Shipping.Transport.of({ bind: () => CourierHttp.CourierHttp.of({ request: () => Effect.die("no HTTP here") }) })
)

// --- the services -----------------------------------------------------------------------------------------------

export interface Options {
  /** Requests per minute and client (`SHIPPING_RATE_LIMIT_PER_MINUTE`); 100 000 unless told. */
  readonly requestsPerMinute?: number | undefined
  /** Creates in flight at once (`SHIPPING_MAX_CONCURRENT_CREATES`); 8 unless told. */
  readonly maxConcurrentCreates?: number | undefined
  /** The reference communes: the bundled dataset unless told (`Communes.layerFileOptional(path)`: a file's). */
  readonly communes?: Layer.Layer<Communes.Communes> | undefined
}

/** The gateway over the sandbox and `memco`, on memory idempotency records and a memory client window. */
const services = (options: Options) => {
  const communes = options.communes ?? Communes.layerBundled
  const memcoState = Layer.effect(
    Memco,
    Effect.map(Deferred.make<void>(), (hanging) =>
      Memco.of({ creates: [], cancels: [], hanging, failNextList: { current: false } })
    )
  )
  const core = Layer.unwrap(
    Effect.gen(function* () {
      const state = yield* Memco
      const resolved = yield* Communes.Communes
      return Shipping.Shipping.layer(Catalogue.make([sandbox, memco(state)]), { communes: resolved })
    })
  ).pipe(Layer.provide(noHttp))
  const gateway = Gateway.layer({
    requestsPerMinute: options.requestsPerMinute ?? 100_000,
    maxConcurrentCreates: options.maxConcurrentCreates ?? 8
  }).pipe(
    Layer.provide(core),
    Layer.provide(Idempotency.layer().pipe(Layer.provide(IdempotencyStore.layerMemory))),
    Layer.provide(ClientWindow.layerStoreMemory())
  )
  return gateway.pipe(Layer.provideMerge(Layer.mergeAll(memcoState, communes)))
}

/** What the health endpoint reads: no database here, so one that always answers. */
const health = Layer.mergeAll(
  Layer.succeed(Database.Database, Database.Database.of({ kind: "embedded", location: "memory", ping: Effect.void })),
  Layer.succeed(RunningInstance, RunningInstance.of({ id: "memory", version: "test", startedAtMillis: 0 }))
)

// --- the client -------------------------------------------------------------------------------------------------

/** The shipping API's routes as an `HttpClient` that runs each request in this process. */
export class Client extends Context.Service<Client, HttpClient.HttpClient>()("test/shipping/InMemory/Client") {}

const MAX_BODY_BYTES = 1_048_576

const client = Layer.effect(
  Client,
  Effect.gen(function* () {
    const app = Layer.mergeAll(
      HttpApiBuilder.layer(ShippingApi).pipe(Layer.provide(ShippingServer.handlers)),
      // No `Allow` list: a 405 with `Allow` is the listener's (`Server.make`), tested on sockets.
      Edge.layer({ envelope, maxBodyBytes: MAX_BODY_BYTES, allowedMethods: () => [] })
    ).pipe(Layer.provide(HttpServer.layerServices))
    const handler = yield* HttpRouter.toHttpEffect(app)
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
)

/** Errors only: an access-log line per request would bury the output. */
const quiet = Layer.succeed(References.MinimumLogLevel, "Error")

/** The shipping API over a fresh gateway: its client, the gateway, `memco`'s record and the communes. */
export const layer = (options: Options = {}) =>
  client.pipe(Layer.provideMerge(services(options)), Layer.provideMerge(health), Layer.provideMerge(quiet))

// --- calls ------------------------------------------------------------------------------------------------------

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
  readonly body?: unknown
  /** Sent as is (for malformed JSON). */
  readonly raw?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** One call; parses the JSON answer and keeps its text. */
export const call = (method: string, path: string, options: RequestOptions = {}) =>
  Effect.gen(function* () {
    const http = yield* Client
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    let request = HttpClientRequest.make(method as "GET")(`http://shipping.test${path}`).pipe(
      HttpClientRequest.setHeaders({ ...options.headers })
    )
    if (body !== undefined) request = HttpClientRequest.bodyText(request, body, "application/json")
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
    const broken = answer.status >= 400 ? envelopeBreach(answer) : undefined
    if (broken !== undefined) return yield* Effect.die(new Error(`${method} ${path}: ${broken}: ${text.slice(0, 300)}`))
    return answer
  }).pipe(Effect.orDie, Effect.scoped)

/** A POST of `body` as JSON, with `headers` besides. */
export const post = (path: string, body: unknown, headers?: Readonly<Record<string, string>>) =>
  call("POST", path, { body, headers })

export const get = (path: string) => call("GET", path)

/**
 * How a refusal breaks the shipping API's envelope (spec "Error body"), if it does: JSON, exactly `{ error }`, with a
 * string `code` and a non-empty `message`, and only `fields` and `suggestions` besides.
 */
const envelopeBreach = (answer: Answer): string | undefined => {
  if (answer.headers.get("content-type") !== "application/json") return "not JSON"
  const body = answer.body as Record<string, unknown> | undefined
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "not an object"
  if (Object.keys(body).join(",") !== "error") return `keys ${Object.keys(body).join(",")}`
  const error = body.error as Record<string, unknown>
  if (typeof error.code !== "string" || typeof error.message !== "string" || error.message === "") return "error"
  const extra = Object.keys(error).filter((key) => !["code", "message", "fields", "suggestions"].includes(key))
  return extra.length === 0 ? undefined : `error keys ${extra.join(",")}`
}

/** The error status and code of an answer. */
export const codeOf = (answer: Answer) => [answer.status, answer.body?.error?.code] as const

// --- bodies -----------------------------------------------------------------------------------------------------

/** A sandbox home order to Bab Ezzouar (Alger), as the dzship README's first example sends it. */
export const order = {
  reference: "cmd-1001",
  recipient: {
    fullName: "Amina Benali",
    phone: "+213 555 12 34 56",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 5 juillet, bât. 3"
  },
  deliveryType: "home" as const,
  productList: "1x robe kabyle",
  codAmount: 4500
}

/** `order` with its recipient changed by `recipient`. */
export const orderTo = (recipient: Partial<typeof order.recipient>, rest: Record<string, unknown> = {}) => ({
  ...order,
  ...rest,
  recipient: { ...order.recipient, ...recipient }
})

/** A call to `memco` with `token`. */
export const memcoCall = (token = "ok") => ({ courier: "memco", credentials: { token } })

/** The sandbox's tracking number shape. */
export const SANDBOX_TRACKING = /^SBX[0-9A-Z]{12}$/

/** A create through the sandbox. */
export const create = (body: Record<string, unknown> = {}, headers?: Readonly<Record<string, string>>) =>
  post("/v1/orders", { courier: "sandbox", order, ...body }, headers)
