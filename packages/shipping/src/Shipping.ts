/**
 * The shipping service's core: one request shape for every courier. It resolves the courier in the catalogue,
 * checks the caller's credentials and options (the egress rule for `options.baseUrl`), checks what every courier
 * needs (an Algerian mobile), runs the adapter's operation on an HTTP service bound to the courier's pinned origin
 * and to the caller's deadline, and maps the courier's statuses. Credentials are decoded into `Redacted`
 * values by the adapter's schema and used for that call only; nothing here stores or logs them, and they are
 * blanked out of the courier's answers and of every failure (`Redaction`).
 */
import { createHmac, randomBytes } from "node:crypto"
import { AdapterMemory } from "@tawsil/courier/AdapterMemory"
import type {
  Context as AdapterContext,
  Any,
  CourierManifest,
  CreatedParcel,
  Label,
  OperationName,
  RateLimit,
  RawEvent,
  StopDesk
} from "@tawsil/courier/CourierAdapter"
import {
  BadResponse,
  CourierError,
  type CourierErrorReason,
  Refused,
  Unreachable,
  Unsupported
} from "@tawsil/courier/CourierError"
import { CourierHttp } from "@tawsil/courier/CourierHttp"
import * as Redaction from "@tawsil/courier/Redaction"
import type { ParcelOrder, RatesQuery, RatesResult } from "@tawsil/courier/Shipment"
import { ParcelCreated, ParcelDispatched, type TrackResult } from "@tawsil/courier/Shipment"
import { InvalidCredentials, NotAMobile, ShippingError, UnknownCourier } from "@tawsil/courier/ShippingError"
import { AlgerianMobile, FieldIssues, type WilayaCode } from "@tawsil/domain"
import { BlockedEgress, type Origin, parseBaseUrl } from "@tawsil/egress/Egress"
import type { Communes } from "@tawsil/reference"
import { ServiceSpans } from "@tawsil/tracing"
import { Clock, Context, Duration, Effect, Layer, Option, Random, Redacted, Result, Schema } from "effect"
import type * as AdapterMemories from "./AdapterMemories.ts"
import type * as Catalogue from "./Catalogue.ts"
import * as CommuneCheck from "./CommuneCheck.ts"
import * as CommuneLists from "./CommuneLists.ts"
import * as Tracking from "./Tracking.ts"

export const DEFAULT_TIMEOUT = Duration.seconds(15)

/** Members shared by the create, track and rates requests. */
export interface CourierCall {
  readonly courier: string
  readonly credentials?: Readonly<Record<string, string>> | undefined
  readonly options?:
    | {
        readonly baseUrl?: string | undefined
        readonly fromWilaya?: WilayaCode.WilayaCode | undefined
        readonly timeoutMs?: number | undefined
        /**
         * `false` sends `order.recipient.communeName` as written, unresolved: for a commune the reference data lacks,
         * or a test that needs any name accepted. Default: resolved (CommuneCheck).
         */
        readonly resolveCommune?: boolean | undefined
      }
    | undefined
}

// The refusals and the failure union live in the SDK, where the API contract names them without installing the host.
export { BlockedEgress, InvalidCredentials, NotAMobile, ShippingError, UnknownCourier }

/**
 * Where the core sends an adapter's requests: HTTP bound to one origin and to one operation's deadline. The caller's
 * timeout is a budget for the whole operation (Ecotrack's create is two calls): each request gets only what is left
 * of it, and once it is spent a request fails as `Unreachable` without being sent. The deadline lives here rather
 * than in a race around the operation so that an adapter that makes no HTTP call (the sandbox) pays no timer.
 *
 * The courier's rate limits are counted per account: the courier key with the caller's credentials, named by
 * {@link accountKey} (a digest, never the credentials themselves).
 */
export class Transport extends Context.Service<
  Transport,
  {
    readonly bind: (options: {
      readonly courier: CourierManifest
      /** The adapter's platform (`ecotrack`, `yalidine`, …): named in the transport's metrics and spans. */
      readonly platform?: string | undefined
      /** `options.baseUrl` for a generic platform key, already checked against its tenant domain. */
      readonly tenantOrigin: Origin | undefined
      /** The caller's timeout for the whole operation, as the message names it when it runs out. */
      readonly timeout: Duration.Duration
      /** When that budget runs out, in `Clock` milliseconds: the operation's start plus `timeout`. */
      readonly deadline: number
      /** The adapter's declared limits per account (`CourierAdapter.define`); empty when it declares none. */
      readonly rateLimits: ReadonlyArray<RateLimit>
      /** The caller's account at this courier ({@link accountKey}); undefined when there are no limits to count. */
      readonly account: string | undefined
    }) => CourierHttp["Service"]
  }
>()("@tawsil/shipping/Shipping/Transport") {}

/** A courier call checked and bound: the adapter, a runner for its operations, and what they receive. */
interface Prepared {
  readonly adapter: Any
  readonly manifest: CourierManifest
  /**
   * Runs an operation of the adapter with `CourierHttp` bound to the courier and the caller's deadline. Its failure
   * names the call's operation, or `operation` when the call runs another first (a create's commune-list read).
   */
  readonly run: <A>(
    effect: Effect.Effect<A, CourierErrorReason, CourierHttp>,
    operation?: OperationName
  ) => Effect.Effect<A, CourierError>
  readonly context: {
    readonly credentials: unknown
    readonly fromWilaya: WilayaCode.WilayaCode | undefined
  }
  /** The tenant origin a generic platform's call names (`options.baseUrl`); undefined for a pinned courier. */
  readonly tenantOrigin: Origin | undefined
  /** The caller's timeout for the whole operation. */
  readonly timeout: Duration.Duration
}

export class Shipping extends Context.Service<
  Shipping,
  {
    readonly catalogue: Catalogue.Catalogue
    /**
     * Creates a parcel. `dispatch: false` creates it undispatched — the courier does not act on it, and it can still
     * be cancelled — for a courier whose `dispatch` capability is true; any other refuses it as `Unsupported`
     * before a request.
     */
    readonly create: (
      call: CourierCall & { readonly order: ParcelOrder; readonly dispatch?: false | undefined }
    ) => Effect.Effect<ParcelCreated, ShippingError>
    /**
     * Creates up to 100 parcels for one courier account, one result per order, in order: a parcel, or the failure
     * its own create would have met. Through the platform's bulk create when the adapter has one (`createBatch`: the
     * orders checked and their communes resolved first, one commune-list read per wilaya, then one call), else one
     * create per order, `BATCH_CONCURRENCY` at a time, each with its own deadline and under the account's pace. The
     * call fails whole only for what fails every order alike (the courier, the credentials, `options.baseUrl`).
     */
    readonly createBatch: (
      call: CourierCall & { readonly orders: ReadonlyArray<ParcelOrder> }
    ) => Effect.Effect<ReadonlyArray<Result.Result<ParcelCreated, ShippingError>>, ShippingError>
    /** Hands a parcel created undispatched over to the courier (validates it, marks it ready to ship). */
    readonly dispatch: (
      call: CourierCall & { readonly trackingNumber: string }
    ) => Effect.Effect<ParcelDispatched, ShippingError>
    readonly track: (
      call: CourierCall & { readonly trackingNumber: string }
    ) => Effect.Effect<TrackResult, ShippingError>
    readonly rates: (call: CourierCall & { readonly query: RatesQuery }) => Effect.Effect<RatesResult, ShippingError>
    readonly label: (call: CourierCall & { readonly trackingNumber: string }) => Effect.Effect<Label, ShippingError>
    readonly cancel: (call: CourierCall & { readonly trackingNumber: string }) => Effect.Effect<void, ShippingError>
    /**
     * Up to 100 parcels of one courier, one result per number: through the platform's batch read when it has one,
     * else one read per number, all under the caller's one timeout. A number's failure is its own.
     */
    readonly trackBatch: (
      call: CourierCall & { readonly trackingNumbers: ReadonlyArray<string> }
    ) => Effect.Effect<ReadonlyArray<BatchItem>, ShippingError>
    readonly stopDesks: (
      call: CourierCall & { readonly wilayaCode: WilayaCode.WilayaCode }
    ) => Effect.Effect<ReadonlyArray<StopDesk>, ShippingError>
    /** Whether the courier accepts the credentials: `Rejected` with its words, or an error when it cannot tell. */
    readonly checkCredentials: (call: CourierCall) => Effect.Effect<CredentialsCheck, ShippingError>
    /**
     * The commune a name means in a wilaya (`CommuneCheck`); with a courier that lists its communes, its own entry
     * too, and whether it delivers there.
     */
    readonly resolveCommune: (request: {
      readonly call?: CourierCall | undefined
      readonly wilayaCode: WilayaCode.WilayaCode
      readonly communeName: string
    }) => Effect.Effect<CommuneCheck.Resolved, ShippingError>
  }
>()("@tawsil/shipping/Shipping") {
  /**
   * The core over `catalogue`. `accountSecret` keys the account digests the rate limits count by (`accountKey`):
   * processes that share their counters (a Redis store) must share it; without one, each layer makes its own.
   */
  static readonly layer = (
    catalogue: Catalogue.Catalogue,
    options: {
      readonly accountSecret?: Redacted.Redacted<string> | undefined
      /**
       * The reference communes: with them, a create resolves the recipient's commune before the courier is asked
       * (`CommuneCheck`) and `resolveCommune` works; without them, communes go as sent.
       */
      readonly communes?: Communes.Communes["Service"] | undefined
      /**
       * Where couriers' commune lists are kept (`CommuneLists`): the host's, shared by its instances; without it,
       * this layer keeps its own in memory.
       */
      readonly communeLists?: CommuneLists.CommuneLists["Service"] | undefined
      /**
       * What adapters remember between calls (`AdapterMemory`): the host's, shared by its instances; without it,
       * each adapter's own in this process.
       */
      readonly adapterMemories?: AdapterMemories.AdapterMemories["Service"] | undefined
    } = {}
  ) =>
    Layer.effect(
      Shipping,
      Effect.gen(function* () {
        const accountSecret = options.accountSecret ?? Redacted.make(randomBytes(32).toString("hex"))
        const method = yield* ServiceSpans.method
        const spans = yield* ServiceSpans.ServiceSpans
        const transport = yield* Transport
        const unmappedSeen = new Set<string>()
        const { communes } = options
        const communeLists = options.communeLists ?? (yield* CommuneLists.makeMemory)

        /**
         * Resolves the courier and checks the call in the API's order: courier, credentials, baseUrl, operation (and
         * `needs`, another operation the call relies on: an undispatched create, on `dispatch`).
         */
        const prepare = Effect.fnUntraced(function* (
          call: CourierCall,
          operation: OperationName,
          needs?: OperationName
        ) {
          const resolved = catalogue.resolve(call.courier)
          if (resolved === undefined) return yield* new UnknownCourier({ courier: call.courier })
          const { adapter, manifest } = resolved
          // The operation's span names the courier (its key and platform: never the credentials or the order).
          if (spans) {
            yield* Effect.annotateCurrentSpan({
              "tawsil.courier": manifest.key,
              "tawsil.courier.platform": adapter.platform
            })
          }
          const credentials = yield* decodeCredentials(adapter, call.credentials)
          const tenantOrigin = yield* checkBaseUrl(manifest, call.options?.baseUrl)
          const fail = (reason: CourierErrorReason, failed: OperationName = operation) =>
            new CourierError({ courier: manifest.key, operation: failed, reason })
          if (adapter.operations[operation] === undefined) return yield* fail(new Unsupported({ operation }))
          if (needs !== undefined && adapter.operations[needs] === undefined) {
            return yield* fail(new Unsupported({ operation: needs }))
          }
          const timeout = call.options?.timeoutMs ? Duration.millis(call.options.timeoutMs) : DEFAULT_TIMEOUT
          // The caller's timeout bounds the whole operation, not each request alone: its deadline is fixed here.
          const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(timeout)
          // Only an adapter that declares limits needs the account: the others skip the digest.
          const { rateLimits } = adapter
          const account =
            rateLimits.length === 0 ? undefined : accountKey(accountSecret, manifest.key, call.credentials)
          const bound = transport.bind({
            courier: manifest,
            platform: adapter.platform,
            tenantOrigin,
            timeout,
            deadline,
            rateLimits,
            account
          })
          // The credentials are blanked out of every answer before the adapter reads it, and out of every failure.
          const secrets = Redaction.secretsOf(call.credentials, credentials)
          const scrub = Redaction.scrubber(secrets)
          const http = secrets.length === 0 ? bound : Redaction.scrubbing(bound, scrub)
          const memory = options.adapterMemories?.of(adapter.platform)
          const prepared: Prepared = {
            adapter,
            manifest,
            run: (effect, failed) => {
              const bound = Effect.provideService(effect, CourierHttp, http)
              // The host's memory for the adapter, when it keeps one; else the adapter's own in this process.
              return (memory === undefined ? bound : Effect.provideService(bound, AdapterMemory, memory)).pipe(
                Effect.mapError((reason) =>
                  fail(secrets.length === 0 ? reason : Redaction.redactReason(scrub)(reason), failed)
                )
              )
            },
            context: { credentials, fromWilaya: call.options?.fromWilaya },
            tenantOrigin,
            timeout
          }
          return prepared
        })

        /** The dataset's commune for a name, or why there is none; communes as sent when there is no dataset. */
        /**
         * The dataset's commune for a name, or `UnknownCommune`; `undefined` without reference communes, or when the
         * operator's file cannot be read.
         */
        const datasetCommune = (wilayaCode: WilayaCode.WilayaCode, communeName: string) =>
          communes === undefined
            ? Effect.succeed(undefined)
            : communes.resolve(wilayaCode, communeName).pipe(
                Effect.option,
                Effect.flatMap((resolution) => {
                  if (Option.isNone(resolution)) return Effect.succeed(undefined)
                  const resolved = CommuneCheck.resolve(resolution.value, wilayaCode, communeName)
                  return resolved instanceof CommuneCheck.UnknownCommune
                    ? Effect.fail(resolved)
                    : Effect.succeed(resolved)
                })
              )

        /**
         * The courier's commune list for a wilaya, as the host keeps it (`CommuneLists`), read through the call's
         * runner when it must be; a read gets a third of the caller's timeout, so that a list that does not come
         * leaves the create its time. A failure names `communes`.
         */
        const courierList = (prepared: Prepared, wilayaCode: WilayaCode.WilayaCode) => {
          const budget = Duration.millis(Math.floor(Duration.toMillis(prepared.timeout) / 3))
          const read = prepared
            .run(prepared.adapter.operations.communes!(wilayaCode, prepared.context), "communes")
            .pipe(
              Effect.timeoutOrElse({
                duration: budget,
                orElse: () =>
                  Effect.fail(
                    new CourierError({
                      courier: prepared.manifest.key,
                      operation: "communes",
                      reason: new Unreachable({
                        message: `the commune list did not come within ${Duration.toMillis(budget)} ms`
                      })
                    })
                  )
              })
            )
          return communeLists.get({ courier: prepared.manifest.key, origin: prepared.tenantOrigin, wilayaCode }, read)
        }

        /**
         * The order as it goes to the courier: the recipient's commune resolved (in the courier's own spelling when it
         * lists its communes), and what the answer says about it. Without reference communes, or when the operator's
         * file cannot be read, the commune goes as sent. When the courier's list cannot be read, the commune goes in
         * the reference spelling and the answer says so (`warning`): the courier's create decides.
         */
        const communeOf = Effect.fnUntraced(function* (prepared: Prepared, order: ParcelOrder) {
          const { wilayaCode, communeName } = order.recipient
          const resolved = yield* datasetCommune(wilayaCode, communeName)
          if (resolved === undefined) return { order, commune: undefined }
          let sent = resolved.commune.name
          let warning: string | undefined
          if (prepared.adapter.operations.communes !== undefined) {
            const listed = yield* Effect.result(courierList(prepared, wilayaCode))
            if (listed._tag === "Failure") {
              warning = `the courier's commune list could not be read (${listed.failure.message}): the commune was sent in the reference spelling, unchecked against the courier's list`
              yield* Effect.logWarning("courier commune list unavailable; commune sent in the reference spelling").pipe(
                Effect.annotateLogs({ courier: prepared.manifest.key, reason: listed.failure.reason._tag })
              )
            } else {
              // A desk order that names its desk goes where the desk is: the courier need only know the commune.
              const asked =
                order.deliveryType === "stopdesk" && order.stopDeskId !== undefined ? undefined : order.deliveryType
              const entry = CommuneCheck.served(prepared.manifest.key, resolved.commune, listed.success, asked)
              if (entry instanceof CommuneCheck.CommuneNotServed) return yield* entry
              sent = entry.name
            }
          }
          return {
            order: sent === communeName ? order : { ...order, recipient: { ...order.recipient, communeName: sent } },
            commune: {
              requested: communeName,
              sent,
              corrected: sent !== communeName,
              ...(warning === undefined ? {} : { warning })
            }
          }
        })

        /** Logs each courier's unmapped raw status once per process: a table to complete, not an error. */
        const logUnmapped = (courier: string, unmapped: ReadonlyArray<string>) =>
          Effect.forEach(
            unmapped.filter((raw) => !unmappedSeen.has(`${courier}\u0000${raw}`)),
            (raw) => {
              unmappedSeen.add(`${courier}\u0000${raw}`)
              return Effect.logWarning("unmapped courier status").pipe(Effect.annotateLogs({ courier, rawStatus: raw }))
            },
            { discard: true }
          )

        const service: Shipping["Service"] = Shipping.of({
          catalogue,
          create: method("Shipping.create")(function* (call) {
            // Only a courier that dispatches later can hold a parcel undispatched.
            const prepared = yield* prepare(call, "create", call.dispatch === false ? "dispatch" : undefined)
            const { adapter, manifest, run } = prepared
            const context = call.dispatch === false ? { ...prepared.context, dispatch: false } : prepared.context
            yield* checkMobiles(call.order)
            const { order: toSend, commune } =
              call.options?.resolveCommune === false
                ? { order: call.order, commune: undefined }
                : yield* communeOf(prepared, call.order)
            // A parcel always carries a reference: the caller's, or one made here, sent to the courier too.
            const order = toSend.reference ? toSend : { ...toSend, reference: yield* newReference }
            const created = yield* run(adapter.operations.create!(order, context))
            const status = Tracking.statusOf(adapter.statuses, created.rawStatus)
            if (status === "unknown") yield* logUnmapped(manifest.key, [created.rawStatus])
            return parcelCreated(created, status, order.reference!, commune)
          }),
          createBatch: method("Shipping.createBatch")(function* (call) {
            const bulk = catalogue.resolve(call.courier)?.adapter.operations.createBatch
            // A bulk call does many orders' work (Ecotrack validates each parcel it made with a request of its own,
            // under the account's pace): its budget is the caller's timeout for each order, each request still cut
            // off once the courier is silent for 30 s (HttpTransport).
            const perOrder = call.options?.timeoutMs ?? Duration.toMillis(DEFAULT_TIMEOUT)
            const budgeted = { ...call, options: { ...call.options, timeoutMs: perOrder * call.orders.length } }
            // What fails every order alike fails the call, before any order is looked at.
            const prepared = yield* prepare(
              bulk === undefined ? call : budgeted,
              bulk === undefined ? "create" : "createBatch",
              "create"
            )
            if (bulk === undefined) {
              // One create per order, each with its own deadline: the transport holds each request to the pace.
              return yield* Effect.forEach(call.orders, (order) => Effect.result(service.create({ ...call, order })), {
                concurrency: BATCH_CONCURRENCY
              })
            }
            const { adapter, manifest } = prepared
            // One commune-list read per wilaya for the whole batch, however many of its orders go there: each read
            // first, and the orders' checks answered from what it said (a failed read fails that wilaya's orders).
            const listCommunes = adapter.operations.communes
            const wilayas =
              listCommunes === undefined || call.options?.resolveCommune === false
                ? []
                : [...new Set(call.orders.map((order) => order.recipient.wilayaCode))]
            const lists = new Map(
              yield* Effect.forEach(wilayas, (wilayaCode) =>
                prepared.run(
                  Effect.map(
                    Effect.result(listCommunes!(wilayaCode, prepared.context)),
                    (list) => [wilayaCode, list] as const
                  )
                )
              )
            )
            const batchPrepared: Prepared =
              listCommunes === undefined
                ? prepared
                : {
                    ...prepared,
                    adapter: {
                      ...adapter,
                      operations: {
                        ...adapter.operations,
                        communes: (wilayaCode: WilayaCode.WilayaCode, context: AdapterContext<unknown>) => {
                          const list = lists.get(wilayaCode)
                          return list === undefined ? listCommunes(wilayaCode, context) : Effect.fromResult(list)
                        }
                      }
                    }
                  }
            // Each order checked as its create checks it; the ones that pass go to the courier in one call.
            const checked = yield* Effect.forEach(call.orders, (order) =>
              Effect.result(
                Effect.gen(function* () {
                  yield* checkMobiles(order)
                  const { order: toSend, commune } =
                    call.options?.resolveCommune === false
                      ? { order, commune: undefined }
                      : yield* communeOf(batchPrepared, order)
                  const reference = toSend.reference ? toSend.reference : yield* newReference
                  return { order: { ...toSend, reference }, commune }
                })
              )
            )
            const toSend = checked.flatMap((result) => (Result.isSuccess(result) ? [result.success] : []))
            const sent =
              toSend.length === 0
                ? []
                : yield* prepared
                    .run(
                      bulk(
                        toSend.map((item) => item.order),
                        prepared.context
                      )
                    )
                    .pipe(
                      // Each order's refusal goes through the same door as a call's failure (`run`): named for the
                      // operation, the credentials blanked out of it.
                      Effect.flatMap((results) =>
                        Effect.forEach(
                          results,
                          (result): Effect.Effect<Result.Result<CreatedParcel, CourierError>> =>
                            Result.isSuccess(result)
                              ? Effect.succeed(Result.succeed(result.success))
                              : Effect.map(Effect.flip(prepared.run(Effect.fail(result.failure))), Result.fail)
                        )
                      ),
                      Effect.catch((error) => Effect.succeed(toSend.map(() => Result.fail(error))))
                    )
            const unmapped: Array<string> = []
            let next = 0
            const results = checked.map((result): Result.Result<ParcelCreated, ShippingError> => {
              if (Result.isFailure(result)) return Result.fail(result.failure)
              const { order, commune } = result.success
              const answered = sent[next++]
              if (answered === undefined) {
                return Result.fail(
                  new CourierError({
                    courier: manifest.key,
                    operation: "createBatch",
                    reason: new BadResponse({ message: "the courier's bulk answer has no result for this order" })
                  })
                )
              }
              return Result.map(answered, (created) => {
                const status = Tracking.statusOf(adapter.statuses, created.rawStatus)
                if (status === "unknown") unmapped.push(created.rawStatus)
                return parcelCreated(created, status, order.reference, commune)
              })
            })
            yield* logUnmapped(manifest.key, unmapped)
            return results
          }),
          dispatch: method("Shipping.dispatch")(function* (call) {
            const { adapter, manifest, run, context } = yield* prepare(call, "dispatch")
            const dispatched = yield* run(adapter.operations.dispatch!(call.trackingNumber, context))
            const status = Tracking.statusOf(adapter.statuses, dispatched.rawStatus)
            if (status === "unknown") yield* logUnmapped(manifest.key, [dispatched.rawStatus])
            return ParcelDispatched.make({
              trackingNumber: call.trackingNumber,
              status,
              rawStatus: dispatched.rawStatus
            })
          }),
          track: method("Shipping.track")(function* (call) {
            const { adapter, manifest, run, context } = yield* prepare(call, "track")
            const events = yield* run(adapter.operations.track!(call.trackingNumber, context))
            const { result, unmapped } = Tracking.timeline(
              call.trackingNumber,
              adapter.statuses,
              events,
              adapter.codTracked ? adapter.codStatuses : undefined
            )
            yield* logUnmapped(manifest.key, unmapped)
            return result
          }),
          rates: method("Shipping.rates")(function* (call) {
            const { adapter, run, context } = yield* prepare(call, "rates")
            return yield* run(adapter.operations.rates!(call.query, context))
          }),
          label: method("Shipping.label")(function* (call) {
            const { adapter, run, context } = yield* prepare(call, "label")
            return yield* run(adapter.operations.label!(call.trackingNumber, context))
          }),
          cancel: method("Shipping.cancel")(function* (call) {
            const { adapter, run, context } = yield* prepare(call, "cancel")
            return yield* run(adapter.operations.cancel!(call.trackingNumber, context))
          }),
          trackBatch: method("Shipping.trackBatch")(function* (call) {
            // A courier with a batch read is asked through it; any other with `track`, one number at a time.
            const batchRead = catalogue.resolve(call.courier)?.adapter.operations.trackBatch !== undefined
            const { adapter, manifest, run, context } = yield* prepare(call, batchRead ? "trackBatch" : "track")
            const timelineOf = (trackingNumber: string, events: ReadonlyArray<RawEvent>) => {
              const { result, unmapped } = Tracking.timeline(
                trackingNumber,
                adapter.statuses,
                events,
                adapter.codTracked ? adapter.codStatuses : undefined
              )
              return Effect.as(logUnmapped(manifest.key, unmapped), { trackingNumber, result } as BatchItem)
            }
            const batch = adapter.operations.trackBatch
            if (batch !== undefined) {
              const found = yield* run(batch(call.trackingNumbers, context))
              return yield* Effect.forEach(call.trackingNumbers, (trackingNumber) => {
                const events = found.get(trackingNumber)
                return events === undefined
                  ? Effect.succeed<BatchItem>({
                      trackingNumber,
                      error: new CourierError({
                        courier: manifest.key,
                        operation: "trackBatch",
                        reason: new Refused({ message: `the courier knows no parcel ${trackingNumber}` })
                      })
                    })
                  : timelineOf(trackingNumber, events)
              })
            }
            // One read per number, a few at a time, all under the one deadline `prepare` fixed.
            return yield* Effect.forEach(
              call.trackingNumbers,
              (trackingNumber) =>
                run(adapter.operations.track!(trackingNumber, context)).pipe(
                  Effect.flatMap((events) => timelineOf(trackingNumber, events)),
                  Effect.catch((error) => Effect.succeed<BatchItem>({ trackingNumber, error }))
                ),
              { concurrency: BATCH_CONCURRENCY }
            )
          }),
          stopDesks: method("Shipping.stopDesks")(function* (call) {
            const { adapter, run, context } = yield* prepare(call, "stopDesks")
            return yield* run(adapter.operations.stopDesks!(call.wilayaCode, context))
          }),
          checkCredentials: method("Shipping.checkCredentials")(function* (call) {
            const { adapter, run, context } = yield* prepare(call, "checkCredentials")
            return yield* run(adapter.operations.checkCredentials!(undefined, context)).pipe(
              Effect.as<CredentialsCheck>({ _tag: "Accepted" }),
              Effect.catchIf(
                (error) => error.reason._tag === "CredentialsRejected",
                (error) => Effect.succeed<CredentialsCheck>({ _tag: "Rejected", message: error.reason.message })
              )
            )
          }),
          resolveCommune: method("Shipping.resolveCommune")(function* ({ call, wilayaCode, communeName }) {
            const resolved = yield* datasetCommune(wilayaCode, communeName)
            if (resolved === undefined) {
              return yield* Effect.die(new Error("Shipping.resolveCommune needs readable reference communes"))
            }
            if (call === undefined) return resolved
            const prepared = yield* prepare(call, "communes")
            const listed = yield* courierList(prepared, wilayaCode)
            return {
              ...resolved,
              courier: Option.getOrUndefined(CommuneCheck.courierEntry(resolved.commune, listed))
            }
          })
        })
        return service
      })
    )
}

/** The create's answer from what the adapter created, one parcel or a batch's. */
const parcelCreated = (
  created: CreatedParcel,
  status: ParcelCreated["status"],
  reference: string,
  commune: ParcelCreated["commune"]
) =>
  ParcelCreated.make({
    trackingNumber: created.trackingNumber,
    ...(created.courierReference === undefined ? {} : { courierReference: created.courierReference }),
    // A link that held one of the caller's credentials holds the placeholder now: it is not passed on.
    ...(created.labelUrl === undefined || created.labelUrl.includes(Redaction.PLACEHOLDER)
      ? {}
      : { labelUrl: created.labelUrl }),
    status,
    rawStatus: created.rawStatus,
    reference,
    ...(commune === undefined ? {} : { commune })
  })

/** Reads in flight at once when a courier has no batch endpoint. */
const BATCH_CONCURRENCY = 4

/** One tracking number of a batch: its timeline, or why the courier could not say. */
export type BatchItem =
  | { readonly trackingNumber: string; readonly result: TrackResult }
  | { readonly trackingNumber: string; readonly error: ShippingError }

export type CredentialsCheck = { readonly _tag: "Accepted" } | { readonly _tag: "Rejected"; readonly message: string }

const REFERENCE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** A reference for a parcel the caller sent none for: `TW-` and 10 characters of Crockford's base 32. */
export const newReference = Effect.map(
  Effect.forEach(Array.from({ length: 10 }), () =>
    Random.nextIntBetween(0, REFERENCE_ALPHABET.length, { halfOpen: true })
  ),
  (indexes) => `TW-${indexes.map((index) => REFERENCE_ALPHABET[index]).join("")}`
)

/**
 * The account a call is counted against for the courier's rate limits: an HMAC-SHA256 (hex), keyed by `secret`, of
 * the courier's key and the canonical JSON of the caller's raw credentials (fields sorted by name). Two calls with
 * the same credentials for the same courier, under its key or an alias, share an account. The digest stands for the
 * credentials without holding them, and without the secret it cannot be checked against guessed credentials, so it
 * may key counters in a store shared with other processes (which must then share the secret).
 */
export const accountKey = (
  secret: Redacted.Redacted<string>,
  courier: string,
  credentials: Readonly<Record<string, string>> | undefined
): string => {
  const fields = Object.keys(credentials ?? {}).sort()
  const canonical = JSON.stringify(Object.fromEntries(fields.map((field) => [field, credentials![field]])))
  return createHmac("sha256", Redacted.value(secret)).update(courier).update("\u0000").update(canonical).digest("hex")
}

/** Every courier needs an Algerian mobile for the recipient (and for the second phone, when one is given). */
const checkMobiles = Effect.fnUntraced(function* (order: ParcelOrder) {
  const { phone, phoneAlt } = order.recipient
  if (Option.isNone(AlgerianMobile.normalize(phone))) {
    return yield* new NotAMobile({ field: "order.recipient.phone" })
  }
  if (phoneAlt !== undefined && phoneAlt.trim() !== "" && Option.isNone(AlgerianMobile.normalize(phoneAlt))) {
    return yield* new NotAMobile({ field: "order.recipient.phoneAlt" })
  }
})

const hasFields = (sent: Readonly<Record<string, string>> | undefined) =>
  sent !== undefined && Object.keys(sent).length > 0

/** The caller's credentials decoded by the adapter's schema (into `Redacted` values), or none for the sandbox. */
const decodeCredentials = Effect.fnUntraced(function* (
  adapter: Any,
  sent: Readonly<Record<string, string>> | undefined
) {
  if (adapter.credentials === undefined) {
    if (hasFields(sent)) {
      return yield* new InvalidCredentials({ message: "this courier takes no credentials: omit `credentials`" })
    }
    return undefined
  }
  if (!hasFields(sent)) {
    return yield* new InvalidCredentials({
      message: `this courier needs credentials: ${adapter.requiredCredentials.join(", ")}`,
      fields: Object.fromEntries(adapter.requiredCredentials.map((name) => [`credentials.${name}`, "required"]))
    })
  }
  return yield* Schema.decodeUnknownEffect(adapter.credentials)(sent, {
    errors: "all",
    onExcessProperty: "error"
  }).pipe(
    Effect.mapError(
      (error) =>
        new InvalidCredentials({
          message: "credentials do not match what this courier needs",
          fields: FieldIssues.fromIssue(error.issue, { prefix: "credentials" })
        })
    )
  )
})

/** `options.baseUrl` is for generic platform keys only, and only for a tenant of their domain (`Egress`). */
const checkBaseUrl = (
  manifest: CourierManifest,
  baseUrl: string | undefined
): Effect.Effect<Origin | undefined, BlockedEgress> => {
  if ("origin" in manifest.endpoint) {
    return baseUrl === undefined
      ? Effect.succeed(undefined)
      : Effect.fail(
          new BlockedEgress({
            reason: `options.baseUrl is not accepted for ${manifest.key}: its endpoint is pinned to ${manifest.endpoint.origin}`
          })
        )
  }
  if (baseUrl === undefined) {
    return Effect.fail(
      new BlockedEgress({
        reason: `options.baseUrl is required for ${manifest.key}: your tenant's https://<tenant>.${manifest.endpoint.tenantDomain}`
      })
    )
  }
  return Effect.fromResult(parseBaseUrl(baseUrl, manifest.endpoint.tenantDomain))
}
