/** The shipping server: the shipping API's handlers on its own listener. */
import { type Catalogue, type CourierError, Shipment, Shipping } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Idempotency, IdempotencyStoreSql } from "@tawsil/idempotency"
import { Communes, Wilayas } from "@tawsil/reference"
import { Context, Effect, Exit, Layer, Option, Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { AppConfig } from "../AppConfig.ts"
import * as DirectRoute from "../DirectRoute.ts"
import * as Health from "../Health.ts"
import * as Server from "../Server.ts"
import { type CreateOrderRequest, ShippingApi } from "./Api.ts"
import * as Errors from "./Errors.ts"
import * as FixedWindow from "./FixedWindow.ts"

/** Every domain failure of a courier call, mapped to the wire explicitly. */
const toWire = (error: Shipping.ShippingError) => {
  switch (error._tag) {
    case "UnknownCourier":
      return new Errors.InvalidInput({ error: { code: "unknown_courier", message: error.message } })
    case "InvalidCredentials":
      return new Errors.InvalidInput({
        error: {
          code: "invalid_credentials",
          message: error.message,
          ...(error.fields ? { fields: error.fields } : {})
        }
      })
    case "BlockedEgress":
      return new Errors.InvalidInput({ error: { code: "blocked_egress", message: error.message } })
    case "NotAMobile":
      return new Errors.Unprocessable({
        error: { code: "invalid_phone", message: error.message, fields: { [error.field]: error.message } }
      })
    case "CourierError":
      return courierFailure(error)
  }
}

const courierFailure = (error: CourierError.CourierError) => {
  const reason = error.reason
  switch (reason._tag) {
    case "BlockedEgress":
      return new Errors.InvalidInput({ error: { code: "blocked_egress", message: reason.message } })
    case "Refused":
      return new Errors.Unprocessable({ error: { code: "courier_refused", message: error.message } })
    case "CredentialsRejected":
      return new Errors.Unprocessable({ error: { code: "credentials_rejected", message: error.message } })
    case "CourierRateLimited":
      return new Errors.RateLimited({ retryAfterSeconds: reason.retryAfterSeconds, message: error.message })
    case "Unreachable":
      return new Errors.CourierFailed({ error: { code: "courier_unreachable", message: error.message } })
    case "BadResponse":
      return new Errors.CourierFailed({ error: { code: "courier_error", message: error.message } })
    case "Unsupported":
      return new Errors.InvalidInput({ error: { code: "unsupported", message: error.message } })
  }
}

/** How long a caller turned away by the capacity guard should wait before trying again. */
const OVERLOADED_RETRY_SECONDS = 2

/**
 * `Idempotency-Key` on create: scoped by a hash of the resolved courier and the caller's credentials (so one
 * caller's key never meets another's), fingerprinted by a hash of the rest of the request; only hashes are stored,
 * never credentials. A created parcel is stored and replayed. A failure that certainly created nothing (the request
 * refused before any courier call, the courier refusing the credentials, the capacity guard) frees the key so a
 * retry runs again; after any other failure the courier may have created the parcel, so the claim is kept until
 * its lease (60 s) runs out — retries meanwhile answer 409 rather than risk a second parcel.
 */
const idempotent = (
  idempotency: Idempotency.Idempotency["Service"],
  courier: string,
  rawKey: string | undefined,
  payload: typeof CreateOrderRequest.Type,
  create: Effect.Effect<Shipment.ParcelCreated, WireError>
) =>
  Effect.gen(function* () {
    if (rawKey === undefined) return yield* create
    const key = yield* Idempotency.parseKey(rawKey).pipe(
      Effect.mapError(
        (error) =>
          new Errors.InvalidInput({
            error: {
              code: "invalid_input",
              message: "Request validation failed",
              fields: { "headers.idempotency-key": `${error.reason}: expected 1-64 of A-Z a-z 0-9 _ - : .` }
            }
          })
      )
    )
    const { credentials, ...request } = payload
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const claim = yield* restore(
          idempotency.claim({
            scope: Idempotency.scope(["shipping", courier, credentials ?? {}, payload.options?.baseUrl ?? null]),
            key,
            fingerprint: Idempotency.fingerprint({ method: "POST", path: "/v1/orders", body: request })
          })
        ).pipe(
          Effect.catchTags({
            KeyReused: () =>
              Effect.fail(
                new Errors.Unprocessable({
                  error: { code: "idempotency_key_reuse", message: "this Idempotency-Key was used for another request" }
                })
              ),
            InFlight: (error) =>
              Effect.fail(
                new Errors.InFlight({
                  retryAfterSeconds: error.retryAfterSeconds,
                  message: "a create with this Idempotency-Key is still in flight"
                })
              )
          })
        )
        if (claim._tag === "Replay") {
          const replayed = yield* decodeStored(claim.response.body).pipe(Effect.option)
          // An unreadable record (an older shape) is treated as absent rather than answered with a 500.
          if (Option.isSome(replayed)) return replayed.value
          return yield* restore(create)
        }
        return yield* restore(create).pipe(
          Effect.onExit((exit) =>
            exit._tag === "Success"
              ? idempotency.complete(
                  claim,
                  new Idempotency.StoredResponse({
                    status: 200,
                    headers: {},
                    body: JSON.stringify(encodeParcel(exit.value))
                  })
                )
              : Exit.findErrorOption(exit).pipe(Option.exists(createdNothing))
                ? idempotency.release(claim)
                : Effect.void
          )
        )
      })
    )
  })

/** Failures after which no parcel can exist at the courier. */
const createdNothing = (error: WireError) =>
  error instanceof Errors.Overloaded ||
  error instanceof Errors.RateLimited ||
  error instanceof Errors.InvalidInput ||
  (error instanceof Errors.Unprocessable &&
    (error.error.code === "invalid_phone" || error.error.code === "credentials_rejected"))

const decodeStored = Schema.decodeUnknownEffect(Schema.fromJsonString(Shipment.ParcelCreated))
const encodeParcel = Schema.encodeSync(Shipment.ParcelCreated)

type WireError = ReturnType<typeof toWire> | Errors.Overloaded

/**
 * Per client address, a fixed window of one minute (`FixedWindow`), on create, track, rates and labels: the
 * `ClientRateLimit` middleware of the routed requests and the direct create share this one limiter.
 */
class ClientLimit extends Context.Service<
  ClientLimit,
  <A, E, R>(client: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Errors.RateLimited, R>
>()("@tawsil/http/shipping/ClientLimit") {}

const WINDOW_MILLIS = 60_000

const ClientLimitLayer = (config: AppConfig) =>
  Layer.effect(
    ClientLimit,
    Effect.clockWith((clock) => {
      const windows = FixedWindow.make({ limit: config.shippingRateLimitPerMinute, windowMillis: WINDOW_MILLIS })
      const message = `more than ${config.shippingRateLimitPerMinute} requests in a minute from this client`
      // `effect` runs only if the client is within its limit; the check is made when the result runs.
      return Effect.succeed(<A, E, R>(client: string, effect: Effect.Effect<A, E, R>) =>
        Effect.suspend((): Effect.Effect<A, E | Errors.RateLimited, R> => {
          const wait = windows.take(client, clock.currentTimeMillisUnsafe())
          return wait === 0
            ? effect
            : Effect.fail(new Errors.RateLimited({ retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), message }))
        })
      )
    })
  )

const ClientRateLimitLayer = Layer.effect(
  Errors.ClientRateLimit,
  Effect.gen(function* () {
    const limit = yield* ClientLimit
    return (httpEffect) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        limit(
          Option.getOrElse(request.remoteAddress, () => "unknown"),
          httpEffect
        )
      )
  })
)

const ShippingHandlers = (config: AppConfig) =>
  HttpApiBuilder.group(ShippingApi, "shipping", (handlers) =>
    Effect.gen(function* () {
      const shipping = yield* Shipping.Shipping
      const idempotency = yield* Idempotency.Idempotency
      const limit = yield* ClientLimit
      // The capacity guard: at most this many creates talk to couriers at once; the next one is turned away at once.
      // The count is taken inside the region whose exit gives it back, and given back only if it was taken, so an
      // interruption at any point neither leaks nor double-returns it — without an uninterruptible region around
      // the create (which cost more than the rest of the guard).
      let creating = 0
      const guarded = (payload: typeof CreateOrderRequest.Type) =>
        Effect.suspend(() => {
          // Whether this run of the create took a place (per run: the same effect may run more than once).
          let taken = false
          return Effect.onExitPrimitive(
            Effect.suspend((): Effect.Effect<Shipment.ParcelCreated, WireError> => {
              if (creating >= config.shippingMaxConcurrentCreates) {
                return Effect.fail(
                  new Errors.Overloaded({
                    retryAfterSeconds: OVERLOADED_RETRY_SECONDS,
                    message: `too many parcels are being created right now; retry in ${OVERLOADED_RETRY_SECONDS} s`
                  })
                )
              }
              creating++
              taken = true
              return Effect.mapError(shipping.create(payload), toWire)
            }),
            () => {
              if (taken) creating--
              return undefined
            }
          )
        })
      const createOrder = ({
        payload,
        headers
      }: {
        readonly payload: typeof CreateOrderRequest.Type
        readonly headers: { readonly "idempotency-key"?: string }
      }) => {
        const key = headers["idempotency-key"]
        // Without a key there is nothing to claim: the create itself, with no generator around it (the hot path).
        if (key === undefined) return guarded(payload)
        return idempotent(
          idempotency,
          shipping.catalogue.resolve(payload.courier)?.entry.key ?? payload.courier,
          key,
          payload,
          guarded(payload)
        )
      }
      // The hot path (docs/benchmarks.md): creates are also answered directly, with the same definition and steps.
      yield* DirectRoute.register(ShippingApi, "shipping", "createOrder", {
        middlewares: {
          [Errors.ClientRateLimit.key]: (effect, request) => limit(request.remoteAddress ?? "unknown", effect),
          [Errors.Validation.key]: DirectRoute.asIs
        },
        handler: createOrder
      })
      return handlers
        .handle("createOrder", createOrder)
        .handle("track", ({ payload }) => shipping.track(payload).pipe(Effect.mapError(toWire)))
        .handle("rates", ({ payload }) => shipping.rates(payload).pipe(Effect.mapError(toWire)))
        .handle("label", ({ payload }) =>
          shipping.label(payload).pipe(
            Effect.map((label) => label.bytes),
            Effect.mapError(toWire)
          )
        )
    })
  )

/** `?16`: a query string that is only a number (the dzship client's shorthand for a code). */
const shorthandCode = (url: string): number | undefined => {
  const match = /\?0*(\d{1,3})$/.exec(url)
  return match ? Number(match[1]) : undefined
}

const wilayaDto = (wilaya: Wilayas.Wilaya) => ({ code: wilaya.code, nameFr: wilaya.name, nameAr: wilaya.nameAr })

const ReferenceHandlers = HttpApiBuilder.group(ShippingApi, "reference", (handlers) =>
  Effect.gen(function* () {
    const shipping = yield* Shipping.Shipping
    const communes = yield* Communes.Communes
    return handlers
      .handle("couriers", ({ query }) => Effect.succeed(shipping.catalogue.list(query)))
      .handle("wilayas", ({ query, request }) => {
        const code = query.code ?? shorthandCode(request.url)
        if (code === undefined) return Effect.succeed((query.q ? Wilayas.search(query.q) : Wilayas.all).map(wilayaDto))
        const wilaya = Wilayas.all.find((candidate) => candidate.code === code)
        return wilaya
          ? Effect.succeed(wilayaDto(wilaya))
          : Effect.fail(
              new Errors.NotFound({
                error: { code: "not_found", message: `no wilaya has code ${code}; codes run from 1 to 58` }
              })
            )
      })
      .handle("communes", ({ query, request }) => {
        const wilaya = query.wilaya ?? shorthandCode(request.url)
        if (wilaya !== undefined && !Schema.is(WilayaCode.WilayaCode)(wilaya)) {
          return Effect.fail(
            new Errors.InvalidInput({
              error: {
                code: "invalid_input",
                message: "Request validation failed",
                fields: { "query.wilaya": "Expected a wilaya code, an integer from 1 to 58" }
              }
            })
          )
        }
        return communes.search({ wilaya, q: query.q }).pipe(
          Effect.map((found) =>
            found.map((commune) => ({ wilayaCode: commune.wilayaCode, nameFr: commune.name, nameAr: commune.nameAr }))
          ),
          Effect.mapError(
            (error) => new Errors.Unavailable({ error: { code: "communes_unavailable", message: error.message } })
          )
        )
      })
  })
)

const HealthHandlers = HttpApiBuilder.group(ShippingApi, "health", (handlers) =>
  handlers.handle("health", () => Health.check("shipping"))
)

export const layer = (config: AppConfig, catalogue: Catalogue.Catalogue) =>
  Server.make(config, {
    name: "shipping",
    api: ShippingApi,
    serve: {
      handlers: Layer.mergeAll(ShippingHandlers(config), ReferenceHandlers, HealthHandlers).pipe(
        Layer.provide([
          Shipping.Shipping.layer(catalogue),
          Communes.layerFileOptional(config.communesFile),
          Errors.ValidationLayer,
          ClientRateLimitLayer,
          Idempotency.layer().pipe(Layer.provide(IdempotencyStoreSql.layer))
        ]),
        Layer.provide(ClientLimitLayer(config))
      )
    },
    envelope: Errors.envelope,
    port: config.shippingPort
  })
