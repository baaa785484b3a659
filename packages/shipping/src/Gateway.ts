/**
 * The shipping API as its callers use it: the courier core (`Shipping`: resolve the courier, check the call, run the
 * adapter) behind the limits of a public service and the `Idempotency-Key` of create.
 *
 * - `admit`: each client's request window (`ClientWindow`), counted once per request before anything else.
 * - `create`: the key's claim (hashes only, never credentials), then the capacity guard (`CapacityGuard`), then
 *   the courier; afterwards the claim is completed with the parcel, released when the failure certainly created
 *   nothing (`createdNothing`), or kept until its lease runs out when the courier may have created the parcel.
 * - `cancel`, `dispatch`: the courier core under an optional `Idempotency-Key`, as create (without the guard).
 * - `track`, `rates`, `label`: the courier core as is.
 * - `createBatch`: up to 100 creates in one call, each order idempotent by its reference (a retry of the batch
 *   replays what was made and creates the rest); `labelBatch`: labels merged into one PDF (`LabelSheet`).
 *
 * A host decodes requests, calls these operations and encodes their answers; it holds no rule of its own.
 */
import { createHash } from "node:crypto"
import { type CourierAdapter, CourierError, Shipment } from "@tawsil/courier"
import type { WilayaCode } from "@tawsil/domain"
import { Idempotency } from "@tawsil/idempotency"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Exit, Layer, Option, Result, Schema } from "effect"
import type { RateLimiter } from "effect/persistence"
import * as CapacityGuard from "./CapacityGuard.ts"
import type * as Catalogue from "./Catalogue.ts"
import * as ClientWindow from "./ClientWindow.ts"
import * as Door from "./Door.ts"
import * as LabelSheet from "./LabelSheet.ts"
import * as RateComparison from "./RateComparison.ts"
import * as Shipping from "./Shipping.ts"

export type CreateRequest = Shipping.CourierCall & {
  readonly order: Shipment.ParcelOrder
  /** `false`: created undispatched, to be dispatched later (`dispatch`); for couriers with that capability only. */
  readonly dispatch?: false | undefined
}
export type TrackRequest = Shipping.CourierCall & { readonly trackingNumber: string }
export type RatesRequest = Shipping.CourierCall & { readonly query: Shipment.RatesQuery }
export type BatchTrackRequest = Shipping.CourierCall & { readonly trackingNumbers: ReadonlyArray<string> }
export type StopDesksRequest = Shipping.CourierCall & { readonly wilayaCode: WilayaCode.WilayaCode }
/** Up to 100 orders for one courier account; each order's `reference` is its idempotency key in the batch. */
export type BatchCreateRequest = Shipping.CourierCall & { readonly orders: ReadonlyArray<Shipment.ParcelOrder> }
export type BatchLabelRequest = Shipping.CourierCall & { readonly trackingNumbers: ReadonlyArray<string> }

/** One order of a batch create, in the batch's order: its parcel (made now, or replayed), or why it was not made. */
export type BatchCreated = Result.Result<Shipment.ParcelCreated, CreateError>

/** Labels merged into one PDF: what each parcel gave, in the order asked, and why the others gave nothing. */
export interface MergedLabels {
  /** Every label that could be had, one after the other; absent when none could. */
  readonly pdf: Uint8Array | undefined
  readonly labels: ReadonlyArray<{ readonly index: number; readonly trackingNumber: string; readonly pages: number }>
  readonly errors: ReadonlyArray<{
    readonly index: number
    readonly trackingNumber: string
    readonly error: Shipping.ShippingError
  }>
}

/** What a cancel answers (and replays under its `Idempotency-Key`): the SDK's `Shipment.ParcelCancelled`. */
export const Cancelled = Shipment.ParcelCancelled
export type Cancelled = Shipment.ParcelCancelled

/** What the door does with a request (`Door.Verdict`). */
export type AtDoor = Door.Verdict

/** Every failure of a create: the courier core's, the guard's, and the key's. */
export const CreateError = Schema.Union([
  ...Shipping.ShippingError.members,
  CapacityGuard.Overloaded,
  Idempotency.InvalidKey,
  Idempotency.KeyReused,
  Idempotency.InFlight
])
export type CreateError = typeof CreateError.Type

/** Every failure of a cancel (and of a dispatch): the courier core's and the key's. */
export const CancelError = Schema.Union([
  ...Shipping.ShippingError.members,
  Idempotency.InvalidKey,
  Idempotency.KeyReused,
  Idempotency.InFlight
])
export type CancelError = typeof CancelError.Type

/** Every failure of a dispatch: the courier core's and the key's, as a cancel's. */
export const DispatchError = CancelError
export type DispatchError = CancelError

/** Every failure of the gateway's operations, for hosts that map them all in one place. */
export const GatewayError = Schema.Union([...CreateError.members, ClientWindow.ClientRateLimited])
export type GatewayError = typeof GatewayError.Type

const courierCreatedNothing = (reason: CourierError.CourierErrorReason): boolean => {
  switch (reason._tag) {
    case "BlockedEgress":
    case "CredentialsRejected":
    case "CourierRateLimited":
    case "Unsupported":
    case "NotCancellable":
      return true
    case "Refused":
      // A refusal after the parcel was made (a failed validate or confirm step) names it in `created`.
      return reason.created === undefined
    case "Unreachable":
    case "BadResponse":
      // A courier that did not answer, or answered what we cannot read, may have acted on the request.
      return false
  }
}

/** The operations that change something at the courier; any other is a read, whose failure changed nothing. */
const writes: ReadonlySet<CourierAdapter.OperationName> = new Set(["create", "createBatch", "cancel", "dispatch"])

/**
 * Failures that every item of a batch meets alike, before any courier call: the call fails with them rather than
 * answering each item with the same error.
 */
const failsTheCall = (error: Shipping.ShippingError): boolean =>
  error._tag === "UnknownCourier" ||
  error._tag === "InvalidCredentials" ||
  error._tag === "BlockedEgress" ||
  (error._tag === "CourierError" && error.reason._tag === "Unsupported")

/**
 * The idempotency key of a batch order: made from its reference (any 1–64 characters) as a digest in the key's
 * alphabet, under a prefix no `Idempotency-Key` of the single create can collide with by chance.
 */
const referenceKey = (reference: string) =>
  `batch-ref:${createHash("sha256").update(reference, "utf8").digest("base64url")}`

/** Claims of a batch made at once: the idempotency store's round trips overlap, a few at a time. */
const CLAIM_CONCURRENCY = 8

/** Labels read at once for one sheet. */
const LABEL_CONCURRENCY = 4

/**
 * Failures after which no parcel can exist at the courier (for a cancel or a dispatch: after which the parcel is as it
 * was): the request was refused before any courier call, a read before the write failed (a create's commune-list
 * read), or the courier refused the caller's credentials, its rate or the request itself (a refusal that names no
 * `created` parcel). Their key is freed, so a retry runs again.
 */
export const createdNothing = (error: CreateError): boolean => {
  switch (error._tag) {
    case "UnknownCourier":
    case "InvalidCredentials":
    case "BlockedEgress":
    case "NotAMobile":
    case "UnknownCommune":
    case "CommuneNotServed":
    case "Overloaded":
    case "InvalidKey":
    case "KeyReused":
    case "InFlight":
      return true
    case "CourierError":
      return !writes.has(error.operation) || courierCreatedNothing(error.reason)
  }
}

export class Gateway extends Context.Service<
  Gateway,
  {
    readonly catalogue: Catalogue.Catalogue
    /** Counts one request of `client` (its address): call it once per request, before reading the request. */
    readonly admit: (client: string) => Effect.Effect<void, ClientWindow.ClientRateLimited>
    /**
     * For the server's door, before a request is read: `Door.decide` as an effect, over whichever store the window
     * counts in (in this process, or Redis).
     */
    readonly atDoor: (client: string, create: boolean) => Effect.Effect<AtDoor>
    /**
     * The door as plain calls (`Door`), where the window counts in this process (`ClientWindow.makeStoreMemory`);
     * undefined where it counts elsewhere: a refusal at the door then costs no fiber (issue 22).
     */
    readonly door: Door.Door | undefined
    /**
     * Creates a parcel. With an `idempotencyKey`, the same key and request within 24 h answers the first parcel
     * again and creates none; another request with the key fails with `KeyReused`, one while the first is still
     * running with `InFlight`.
     */
    readonly create: (
      request: CreateRequest,
      idempotencyKey?: string | undefined
    ) => Effect.Effect<Shipment.ParcelCreated, CreateError>
    readonly track: (request: TrackRequest) => Effect.Effect<Shipment.TrackResult, Shipping.ShippingError>
    readonly rates: (request: RatesRequest) => Effect.Effect<Shipment.RatesResult, Shipping.ShippingError>
    readonly label: (request: TrackRequest) => Effect.Effect<CourierAdapter.Label, Shipping.ShippingError>
    /** Cancels a parcel; with an `idempotencyKey`, as create: the same call again answers the first cancel. */
    readonly cancel: (
      request: TrackRequest,
      idempotencyKey?: string | undefined
    ) => Effect.Effect<Cancelled, CancelError>
    /**
     * Dispatches a parcel created undispatched (`create` with `dispatch: false`); with an `idempotencyKey`, as
     * cancel. The shipping API has no endpoint for it: hosts that hold parcels undispatched (a store) call it.
     */
    readonly dispatch: (
      request: TrackRequest,
      idempotencyKey?: string | undefined
    ) => Effect.Effect<Shipment.ParcelDispatched, DispatchError>
    readonly trackBatch: (
      request: BatchTrackRequest
    ) => Effect.Effect<ReadonlyArray<Shipping.BatchItem>, Shipping.ShippingError>
    /**
     * Creates up to 100 parcels for one courier account (`Shipping.createBatch`): one result per order, in order.
     * Each order with a `reference` is claimed under a key made from it (decision 0009's records): the same order
     * again within 24 h answers its first parcel and creates none, another order with that reference fails alone
     * with `KeyReused`. The call fails whole only for what fails every order alike (courier, credentials, capacity).
     */
    readonly createBatch: (request: BatchCreateRequest) => Effect.Effect<ReadonlyArray<BatchCreated>, CreateError>
    /**
     * The labels of up to 100 parcels of one courier merged into one PDF, in the order asked (`LabelSheet`); a parcel
     * whose label cannot be had is listed with why. Fails whole only for what fails every parcel alike.
     */
    readonly labelBatch: (request: BatchLabelRequest) => Effect.Effect<MergedLabels, Shipping.ShippingError>
    readonly stopDesks: (
      request: StopDesksRequest
    ) => Effect.Effect<ReadonlyArray<CourierAdapter.StopDesk>, Shipping.ShippingError>
    readonly checkCredentials: (
      request: Shipping.CourierCall
    ) => Effect.Effect<Shipping.CredentialsCheck, Shipping.ShippingError>
    readonly resolveCommune: Shipping.Shipping["Service"]["resolveCommune"]
    /** Prices one parcel with several couriers at once, under one deadline (`RateComparison`). */
    readonly compareRates: (request: RateComparison.Request) => Effect.Effect<ReadonlyArray<RateComparison.Quote>>
  }
>()("@tawsil/shipping/Gateway") {}

export interface Options {
  /** Requests per minute and client on every operation. */
  readonly requestsPerMinute: number
  /** Parcel creates in flight at once; the next is turned away with `Overloaded`. */
  readonly maxConcurrentCreates: number
}

/**
 * The gateway over the courier core, the idempotency records and a rate-limiter store (in process, or Redis to
 * share the windows between instances).
 */
export const layer = (
  options: Options
): Layer.Layer<Gateway, never, Shipping.Shipping | Idempotency.Idempotency | RateLimiter.RateLimiterStore> =>
  Layer.effect(
    Gateway,
    Effect.gen(function* () {
      const method = yield* ServiceSpans.method
      const shipping = yield* Shipping.Shipping
      const idempotency = yield* Idempotency.Idempotency
      const window = yield* ClientWindow.make({ limit: options.requestsPerMinute })
      const capacity = yield* CapacityGuard.make(options.maxConcurrentCreates)
      const guardedCreate = (request: CreateRequest) => capacity.guard(shipping.create(request))
      const overloadedNow = (): AtDoor => (capacity.full() ? "overloaded" : undefined)

      /** The claim's scope: the resolved courier and the caller's account there (a keyed hash, never stored as is). */
      const scopeOf = (request: Shipping.CourierCall) =>
        idempotency.scope([
          "shipping",
          shipping.catalogue.resolve(request.courier)?.entry.key ?? request.courier,
          request.credentials ?? {},
          request.options?.baseUrl ?? null
        ])

      /**
       * `run` under an `Idempotency-Key`: the first answer is recorded (never the credentials) and replayed to the
       * same request; the key is freed when the failure certainly changed nothing at the courier.
       */
      const idempotent = <A, I, E extends CreateError>(
        rawKey: string,
        write: {
          readonly path: string
          readonly request: Shipping.CourierCall
          readonly answer: Schema.Codec<A, I>
          readonly run: Effect.Effect<A, E>
        }
      ): Effect.Effect<A, E | Idempotency.InvalidKey | Idempotency.KeyReused | Idempotency.InFlight> =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            const key = yield* Idempotency.parseKey(rawKey)
            const { credentials: _, ...withoutCredentials } = write.request
            const claim = yield* restore(
              idempotency.claim({
                scope: scopeOf(write.request),
                key,
                fingerprint: idempotency.fingerprint({ method: "POST", path: write.path, body: withoutCredentials })
              })
            )
            if (claim._tag === "Replay") {
              const replayed = Schema.decodeUnknownOption(Schema.fromJsonString(write.answer))(claim.response.body)
              // An unreadable record (an older shape) is treated as absent rather than failing the request.
              return Option.isSome(replayed) ? replayed.value : yield* restore(write.run)
            }
            return yield* restore(write.run).pipe(
              Effect.onExit((exit) => {
                if (Exit.isSuccess(exit)) {
                  const body = JSON.stringify(Schema.encodeSync(write.answer)(exit.value))
                  return idempotency.complete(claim, new Idempotency.StoredResponse({ status: 200, headers: {}, body }))
                }
                return Exit.findErrorOption(exit).pipe(Option.exists(createdNothing))
                  ? idempotency.release(claim)
                  : Effect.void
              })
            )
          })
        )

      const cancelled = (request: TrackRequest) =>
        Effect.as(shipping.cancel(request), { trackingNumber: request.trackingNumber, status: "cancelled" } as const)

      /**
       * A batch under its orders' references: each claimed; replays answered from their records; the claimed orders
       * created in one `Shipping.createBatch`; each record then completed with its parcel, or freed when its failure
       * certainly created nothing (as a single create's key).
       */
      const createBatch = (request: BatchCreateRequest) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            if (shipping.catalogue.resolve(request.courier) === undefined) {
              // Nothing to claim for a courier no one serves.
              return yield* restore(shipping.createBatch({ ...request, orders: [] }))
            }
            const scope = scopeOf(request)
            const { credentials: _, orders, ...call } = request
            type Slot =
              | { readonly _tag: "Done"; readonly result: BatchCreated }
              | { readonly _tag: "ToCreate"; readonly claim: Idempotency.Claimed | undefined }
            const slots = yield* restore(
              Effect.forEach(
                orders,
                (order): Effect.Effect<Slot> => {
                  if (!order.reference) return Effect.succeed({ _tag: "ToCreate", claim: undefined })
                  return Idempotency.parseKey(referenceKey(order.reference)).pipe(
                    Effect.flatMap((key) =>
                      idempotency.claim({
                        scope,
                        key,
                        fingerprint: idempotency.fingerprint({
                          method: "POST",
                          path: "/v1/orders/batch",
                          body: { ...call, order }
                        })
                      })
                    ),
                    Effect.map((claim): Slot => {
                      if (claim._tag === "Claimed") return { _tag: "ToCreate", claim }
                      const replayed = Schema.decodeUnknownOption(Schema.fromJsonString(Shipment.ParcelCreated))(
                        claim.response.body
                      )
                      // An unreadable record (an older shape) is treated as absent, as a single create's.
                      return Option.isSome(replayed)
                        ? { _tag: "Done", result: Result.succeed(replayed.value) }
                        : { _tag: "ToCreate", claim: undefined }
                    }),
                    Effect.catch((error) => Effect.succeed<Slot>({ _tag: "Done", result: Result.fail(error) }))
                  )
                },
                { concurrency: CLAIM_CONCURRENCY }
              )
            )
            const claims = slots.flatMap((slot) => (slot._tag === "ToCreate" && slot.claim ? [slot.claim] : []))
            const toCreate = orders.filter((_, index) => slots[index]!._tag === "ToCreate")
            const created =
              toCreate.length === 0
                ? []
                : yield* restore(capacity.guard(shipping.createBatch({ ...request, orders: toCreate }))).pipe(
                    Effect.onExit((exit) =>
                      Exit.isSuccess(exit)
                        ? Effect.void
                        : Exit.findErrorOption(exit).pipe(Option.exists(createdNothing))
                          ? Effect.forEach(claims, idempotency.release, { discard: true })
                          : Effect.void
                    )
                  )
            let next = 0
            const results = slots.map(
              (slot): { readonly result: BatchCreated; readonly claim?: Idempotency.Claimed } =>
                slot._tag === "Done"
                  ? { result: slot.result }
                  : { result: created[next++]!, ...(slot.claim === undefined ? {} : { claim: slot.claim }) }
            )
            yield* Effect.forEach(
              results,
              ({ result, claim }) => {
                if (claim === undefined) return Effect.void
                if (Result.isSuccess(result)) {
                  const body = JSON.stringify(Schema.encodeSync(Shipment.ParcelCreated)(result.success))
                  return idempotency.complete(claim, new Idempotency.StoredResponse({ status: 200, headers: {}, body }))
                }
                return createdNothing(result.failure) ? idempotency.release(claim) : Effect.void
              },
              { concurrency: CLAIM_CONCURRENCY, discard: true }
            )
            return results.map(({ result }) => result)
          })
        )

      /** Each parcel's label, a few at a time, then every one that could be read appended to one sheet in order. */
      const labelBatch = Effect.fnUntraced(function* (request: BatchLabelRequest) {
        const { trackingNumbers, ...call } = request
        const fetched = yield* Effect.forEach(
          trackingNumbers,
          (trackingNumber) => Effect.result(shipping.label({ ...call, trackingNumber })),
          { concurrency: LABEL_CONCURRENCY }
        )
        const shared = fetched.find((result) => Result.isFailure(result) && failsTheCall(result.failure))
        if (shared !== undefined && Result.isFailure(shared)) return yield* Effect.fail(shared.failure)
        const sheet = yield* LabelSheet.make
        const labels: Array<MergedLabels["labels"][number]> = []
        const errors: Array<MergedLabels["errors"][number]> = []
        const courier = shipping.catalogue.resolve(request.courier)?.entry.key ?? request.courier
        for (const [index, result] of fetched.entries()) {
          const trackingNumber = trackingNumbers[index]!
          if (Result.isFailure(result)) {
            errors.push({ index, trackingNumber, error: result.failure })
            continue
          }
          const appended = yield* Effect.result(LabelSheet.append(sheet, result.success))
          if (Result.isSuccess(appended)) labels.push({ index, trackingNumber, pages: appended.success })
          else {
            errors.push({
              index,
              trackingNumber,
              error: new CourierError.CourierError({
                courier,
                operation: "label",
                reason: new CourierError.BadResponse({ message: appended.failure.message })
              })
            })
          }
        }
        const pdf = labels.length === 0 ? undefined : yield* LabelSheet.save(sheet)
        return { pdf, labels, errors } satisfies MergedLabels
      })

      return Gateway.of({
        catalogue: shipping.catalogue,
        admit: window.admit,
        atDoor: (client, create) =>
          Effect.flatMap(window.count(client), (used) =>
            used !== undefined || !create ? Effect.succeed(used) : Effect.sync(() => overloadedNow())
          ),
        door: window.countNow === undefined ? undefined : Door.make(window.countNow, capacity),
        create: method("Gateway.create")(function* (request, idempotencyKey) {
          return yield* idempotencyKey === undefined
            ? guardedCreate(request)
            : idempotent(idempotencyKey, {
                path: "/v1/orders",
                request,
                answer: Shipment.ParcelCreated,
                run: guardedCreate(request)
              })
        }),
        track: shipping.track,
        rates: shipping.rates,
        label: shipping.label,
        cancel: method("Gateway.cancel")(function* (request, idempotencyKey) {
          return yield* idempotencyKey === undefined
            ? cancelled(request)
            : idempotent(idempotencyKey, { path: "/v1/cancel", request, answer: Cancelled, run: cancelled(request) })
        }),
        dispatch: method("Gateway.dispatch")(function* (request, idempotencyKey) {
          return yield* idempotencyKey === undefined
            ? shipping.dispatch(request)
            : idempotent(idempotencyKey, {
                // No route serves it: the path only keeps its keys apart from cancel's in the fingerprint.
                path: "dispatch",
                request,
                answer: Shipment.ParcelDispatched,
                run: shipping.dispatch(request)
              })
        }),
        trackBatch: shipping.trackBatch,
        createBatch: method("Gateway.createBatch")(function* (request) {
          return yield* createBatch(request)
        }),
        labelBatch: method("Gateway.labelBatch")(function* (request) {
          return yield* labelBatch(request)
        }),
        stopDesks: shipping.stopDesks,
        checkCredentials: shipping.checkCredentials,
        resolveCommune: shipping.resolveCommune,
        compareRates: (request) => RateComparison.compare(shipping, request)
      })
    })
  )
