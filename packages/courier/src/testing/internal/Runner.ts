/**
 * How the conformance kit calls an adapter: the way a host's core does, without a host. The caller's credentials are
 * decoded by the adapter's schema (refused, naming fields only, when they do not fit); an operation the adapter does
 * not declare is `Unsupported` without a request; `CourierHttp` is bound to the loopback fake (`LoopbackHttp`, the
 * host transport's rules) for one deadline shared by the operation's requests, each account's requests paced under
 * the adapter's declared rate limits as the host paces them (`Pace`: a call's slot past its deadline is refused; the
 * kit runs ahead to a later slot instead of waiting for it); the credentials are blanked out of every
 * answer before the adapter reads it and out of every failure (`Redaction`); a failure becomes a `CourierError`.
 *
 * The host's own behaviour (which courier a key names, the tenant's `baseUrl`, the recipient's phones, ordering
 * events and mapping statuses, logging an unmapped one, the circuit breaker, DNS) is the host's to test: the kit
 * proves what the adapter does with what the host gives it.
 */
import { createHash } from "node:crypto"
import { FieldIssues, type WilayaCode } from "@tawsil/domain"
import { Egress } from "@tawsil/egress"
import { Clock, Duration, Effect, type Result, Schema, type Scope } from "effect"
import type {
  Any,
  CourierCommune,
  CourierManifest,
  CreatedParcel,
  DispatchedParcel,
  Label,
  OperationName,
  RawEvent,
  StopDesk
} from "../../CourierAdapter.ts"
import {
  CourierError,
  type CourierErrorReason,
  CourierRateLimited,
  Unreachable,
  Unsupported
} from "../../CourierError.ts"
import { CourierHttp, type CourierRequest, declaresDocumentHost } from "../../CourierHttp.ts"
import * as Pace from "../../Pace.ts"
import * as Redaction from "../../Redaction.ts"
import type { ParcelOrder, RatesQuery, RatesResult } from "../../Shipment.ts"
import * as LoopbackHttp from "../LoopbackHttp.ts"

/** The host's default for a caller who gives no timeout. */
export const DEFAULT_TIMEOUT = Duration.seconds(15)

/** The reference the host gives a parcel the caller sent none for (`TW-` and 10 characters). */
export const REFERENCE = "TW-0000000000"

/** The credentials do not fit the adapter's schema; only the fields are named, never the values. */
export class CredentialsRefused extends Schema.TaggedError<CredentialsRefused>()("CredentialsRefused", {
  message: Schema.String,
  fields: Schema.optionalKey(FieldIssues.FieldIssues)
}) {}

/** What one call carries besides its input. */
export interface Call {
  readonly credentials: Readonly<Record<string, string>> | undefined
  /** The caller's `options.timeoutMs`; {@link DEFAULT_TIMEOUT} when absent. */
  readonly timeoutMs?: number | undefined
  readonly fromWilaya?: WilayaCode.WilayaCode | undefined
}

export type Failure = CourierError | CredentialsRefused

export interface Runner {
  /** `dispatch: false` creates the parcel undispatched; refused as `Unsupported` by an adapter without `dispatch`. */
  readonly create: (
    call: Call,
    order: ParcelOrder,
    options?: { readonly dispatch?: false | undefined }
  ) => Effect.Effect<CreatedParcel, Failure>
  readonly track: (call: Call, trackingNumber: string) => Effect.Effect<ReadonlyArray<RawEvent>, Failure>
  readonly rates: (call: Call, query: RatesQuery) => Effect.Effect<RatesResult, Failure>
  readonly label: (call: Call, trackingNumber: string) => Effect.Effect<Label, Failure>
  readonly cancel: (call: Call, trackingNumber: string) => Effect.Effect<void, Failure>
  readonly dispatch: (call: Call, trackingNumber: string) => Effect.Effect<DispatchedParcel, Failure>
  readonly trackBatch: (
    call: Call,
    trackingNumbers: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<RawEvent>>, Failure>
  /** Every order must carry its own reference, as the host sends them. */
  readonly createBatch: (
    call: Call,
    orders: ReadonlyArray<ParcelOrder>
  ) => Effect.Effect<ReadonlyArray<Result.Result<CreatedParcel, CourierErrorReason>>, Failure>
  readonly stopDesks: (call: Call, wilaya: WilayaCode.WilayaCode) => Effect.Effect<ReadonlyArray<StopDesk>, Failure>
  readonly communes: (
    call: Call,
    wilaya: WilayaCode.WilayaCode
  ) => Effect.Effect<ReadonlyArray<CourierCommune>, Failure>
  readonly checkCredentials: (call: Call) => Effect.Effect<void, Failure>
  /** What the adapter asked `CourierHttp` to send, oldest first. */
  readonly sent: ReadonlyArray<CourierRequest>
}

const hasFields = (sent: Readonly<Record<string, string>> | undefined): sent is Readonly<Record<string, string>> =>
  sent !== undefined && Object.keys(sent).length > 0

/** The caller's credentials through the adapter's schema, refused as the host refuses them. */
const decodeCredentials = (adapter: Any, sent: Readonly<Record<string, string>> | undefined) => {
  if (adapter.credentials === undefined) {
    return hasFields(sent)
      ? Effect.fail(new CredentialsRefused({ message: "this courier takes no credentials: omit `credentials`" }))
      : Effect.succeed(undefined)
  }
  if (!hasFields(sent)) {
    return Effect.fail(
      new CredentialsRefused({
        message: `this courier needs credentials: ${adapter.requiredCredentials.join(", ")}`,
        fields: Object.fromEntries(adapter.requiredCredentials.map((name) => [`credentials.${name}`, "required"]))
      })
    )
  }
  return Schema.decodeUnknownEffect(adapter.credentials)(sent, { errors: "all", onExcessProperty: "error" }).pipe(
    Effect.mapError(
      (error) =>
        new CredentialsRefused({
          message: "credentials do not match what this courier needs",
          fields: FieldIssues.fromIssue(error.issue, { prefix: "credentials" })
        })
    )
  )
}

/** Counters of one account, never the credentials themselves (a digest, as the host keys its counters). */
const accountOf = (courier: string, credentials: Readonly<Record<string, string>> | undefined) => {
  const fields = Object.keys(credentials ?? {}).sort()
  const canonical = JSON.stringify(Object.fromEntries(fields.map((field) => [field, credentials![field]])))
  return createHash("sha256").update(courier).update("\u0000").update(canonical).digest("hex")
}

/**
 * A runner for `adapter`, speaking for `courier`: requests go to the fake at `origin` (none: an adapter that makes
 * no HTTP call, whose every request fails). Accounts are paced for the scope's lifetime.
 */
export const make = (
  adapter: Any,
  courier: CourierManifest,
  origin: string | undefined
): Effect.Effect<Runner, never, Scope.Scope> =>
  Effect.gen(function* () {
    const sent: Array<CourierRequest> = []
    /** Each account's next slots, by limit (`Pace`), as the host's pacer keeps them in one process. */
    const schedules = new Map<string, Map<string, number>>()
    const paces = adapter.rateLimits.map(Pace.paceOf)
    /**
     * The kit keeps the host's schedule in its own time: how far it has run ahead of the clock. A call whose slot is
     * in the future is let through at once and the kit's time jumps to the slot, rather than the run waiting it out
     * (Yalidine's eleven conformance requests would take nine seconds): the decisions are the host's — a call whose
     * slot is past its deadline is refused — and the waiting is the host's own, tested with it.
     */
    let ahead = 0

    /** Takes the account's next slot, or refuses as the host does when it is past the call's deadline. */
    const admit = (account: string, deadline: number): Effect.Effect<void, CourierRateLimited> =>
      Effect.gen(function* () {
        const now = (yield* Clock.currentTimeMillis) + ahead
        const due = schedules.get(account) ?? new Map<string, number>()
        const at = Pace.slotOf(paces, (id) => due.get(id), now)
        if (at >= deadline) {
          return yield* new CourierRateLimited({ retryAfterSeconds: Math.max(1, Math.ceil((at - now) / 1000)) })
        }
        for (const [id, next] of Pace.taken(paces, (id) => due.get(id), at)) due.set(id, next)
        schedules.set(account, due)
        ahead += at - now
      })

    /**
     * `CourierHttp` for one operation: the fake, the call's deadline (on the clock, and in the kit's time for its
     * slots), the account's limits.
     */
    const bind = (deadline: number, paceDeadline: number, account: string): CourierHttp["Service"] =>
      CourierHttp.of({
        request: (request) =>
          Effect.gen(function* () {
            sent.push(request)
            if (origin === undefined) {
              return yield* new Unreachable({ message: "this adapter was tested without a fake: nothing answers" })
            }
            const timedOut = new Unreachable({ message: "the courier did not answer in time" })
            if (deadline - (yield* Clock.currentTimeMillis) <= 0) return yield* timedOut
            if (request.host !== undefined) {
              // A document link: only on a host the courier declares, by a bare GET, never paced (as the host does).
              if (!declaresDocumentHost(courier.documents, request.host)) {
                return yield* new Egress.BlockedEgress({
                  reason: `${request.host} is not a document host of ${courier.key}`
                })
              }
              if (request.method !== "GET" || request.json !== undefined || request.form !== undefined) {
                return yield* new Egress.BlockedEgress({ reason: "a document host is only read, by a bare GET" })
              }
            } else if (adapter.rateLimits.length > 0) yield* admit(account, paceDeadline)
            const left = deadline - (yield* Clock.currentTimeMillis)
            if (left <= 0) return yield* timedOut
            return yield* LoopbackHttp.send(origin, request, Duration.millis(left))
          })
      })

    const run =
      <In, Out>(operation: OperationName, dispatch?: false) =>
      (call: Call, input: In): Effect.Effect<Out, Failure> =>
        Effect.gen(function* () {
          const credentials = yield* decodeCredentials(adapter, call.credentials)
          const fail = (reason: CourierErrorReason) => new CourierError({ courier: courier.key, operation, reason })
          const implementation = adapter.operations[operation] as
            | ((input: In, context: unknown) => Effect.Effect<Out, CourierErrorReason, CourierHttp>)
            | undefined
          if (implementation === undefined) return yield* fail(new Unsupported({ operation }))
          // As the host: an undispatched create goes only to an adapter that can dispatch it later.
          if (dispatch === false && adapter.operations.dispatch === undefined) {
            return yield* fail(new Unsupported({ operation: "dispatch" }))
          }
          const timeout = call.timeoutMs === undefined ? DEFAULT_TIMEOUT : Duration.millis(call.timeoutMs)
          const started = yield* Clock.currentTimeMillis
          const deadline = started + Duration.toMillis(timeout)
          const secrets = Redaction.secretsOf(call.credentials, credentials)
          const scrub = Redaction.scrubber(secrets)
          const bound = bind(
            deadline,
            started + ahead + Duration.toMillis(timeout),
            accountOf(courier.key, call.credentials)
          )
          const http = secrets.length === 0 ? bound : Redaction.scrubbing(bound, scrub)
          const context = { credentials, fromWilaya: call.fromWilaya, ...(dispatch === false ? { dispatch } : {}) }
          return yield* implementation(input, context).pipe(
            Effect.provideService(CourierHttp, http),
            Effect.mapError((reason) => fail(Redaction.redactReason(scrub)(reason)))
          )
        })

    return {
      // A parcel always carries a reference: the host makes one when the caller sends none.
      create: (call, order, options) =>
        run<ParcelOrder, CreatedParcel>("create", options?.dispatch)(
          call,
          order.reference ? order : { ...order, reference: REFERENCE }
        ),
      track: run<string, ReadonlyArray<RawEvent>>("track"),
      rates: run<RatesQuery, RatesResult>("rates"),
      label: run<string, Label>("label"),
      cancel: run<string, void>("cancel"),
      dispatch: run<string, DispatchedParcel>("dispatch"),
      trackBatch: run<ReadonlyArray<string>, ReadonlyMap<string, ReadonlyArray<RawEvent>>>("trackBatch"),
      createBatch: run<ReadonlyArray<ParcelOrder>, ReadonlyArray<Result.Result<CreatedParcel, CourierErrorReason>>>(
        "createBatch"
      ),
      stopDesks: run<WilayaCode.WilayaCode, ReadonlyArray<StopDesk>>("stopDesks"),
      communes: run<WilayaCode.WilayaCode, ReadonlyArray<CourierCommune>>("communes"),
      checkCredentials: (call) => run<void, void>("checkCredentials")(call, undefined),
      sent
    }
  })
