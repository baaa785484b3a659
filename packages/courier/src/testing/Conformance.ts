/**
 * The courier conformance kit: one @effect/vitest suite every adapter runs against its own loopback fake courier. It
 * calls the adapter as a host's core does (`internal/Runner`: credentials decoded by the adapter's schema,
 * `CourierHttp` bound to the fake under the caller's deadline and the adapter's declared rate limits, answers and
 * failures scrubbed of the credentials) and proves what the catalogue promises about the adapter: its declared
 * capabilities work and are the only ones; every request is a relative path that reaches the fake and nothing else;
 * its status tables cover the statuses the courier sends, and it passes on the ones it does not know unchanged;
 * courier failures become the right reasons; and the caller's credentials appear in no log, span, error or result.
 * An adapter that dispatches later shows a parcel created undispatched cancelled, and another dispatched; an adapter
 * that reads its courier's pushes shows, without a fake, each signed sample read as the courier means it, every
 * forged, stale or malformed request refused for its reason, its challenge answered, and its secret never shown.
 * Every check runs under the process egress guard (`ProcessEgress`): an adapter that opens a connection or looks up
 * a name around `CourierHttp`, on any path a check exercises, fails that check. Adapters without HTTP run it with no
 * fake.
 *
 * The host's own part (resolving keys and aliases, tenants' base URLs, phone checks, ordering events and mapping
 * statuses, the circuit breaker, DNS) is tested with the host (`@tawsil/shipping`), not here.
 *
 * Like typescript-eslint's RuleTester, the kit also checks the suite it is given (a fake-backed adapter must show
 * how it handles a timeout, a 5xx, a bad body, a 429 and a rejected credential) and refuses a thin one at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { AlgerianMobile, type WilayaCode } from "@tawsil/domain"
import { ProcessEgress } from "@tawsil/egress"
import { Cause, Clock, Effect, Exit, Option, Result, Schema, type Scope } from "effect"
import {
  type Any,
  operations as allOperations,
  type CourierManifest,
  type CreatedParcel,
  type OperationName
} from "../CourierAdapter.ts"
import type { CourierErrorReason } from "../CourierError.ts"
import { ParcelOrder, RatesQuery } from "../Shipment.ts"
import * as Observers from "./internal/Observers.ts"
import * as PushRows from "./internal/PushRows.ts"
import * as Runner from "./internal/Runner.ts"

/** A request as the fake courier received it; `path` without the query string. */
export interface RecordedRequest {
  readonly method: string
  readonly path: string
}

/** The adapter's loopback fake courier, as the kit needs it (a `FakeCourier` is one). */
export interface Fake {
  /** Where it listens: `http://127.0.0.1:<port>`. */
  readonly origin: string
  /** Every request it has received, oldest first (kept up to date as requests arrive). */
  readonly requests: ReadonlyArray<RecordedRequest>
}

/** One way the courier can fail, and the reason the caller must get. */
export interface Failure<F extends Fake = Fake> {
  /** What goes wrong, as the test output names it ("HTTP 500"). */
  readonly name: string
  /** The operation to run; the first declared one (create, track, rates) when omitted. */
  readonly operation?: OperationName
  /** Makes the fake misbehave on the next request. */
  readonly arrange?: (fake: F) => void
  /** Sent instead of `credentials.valid` (a token the fake does not know); must contain the canary too. */
  readonly credentials?: Readonly<Record<string, string>>
  /** The caller's `options.timeoutMs`: the failure must arrive within it (plus a second for the machine). */
  readonly timeoutMs?: number
  readonly order?: ParcelOrder
  readonly trackingNumber?: string
  readonly ratesQuery?: RatesQuery
  /** The expected `CourierError` reason. */
  readonly reason: CourierErrorReason["_tag"]
  /** For `CourierRateLimited`: the expected `retryAfterSeconds`. */
  readonly retryAfterSeconds?: number
}

export interface Options<F extends Fake = Fake> {
  readonly adapter: Any
  /** Starts the fake on a random loopback port, for the scope. Omit it for an adapter that makes no HTTP calls. */
  readonly fake?: Effect.Effect<F, never, Scope.Scope>
  /**
   * Makes the fake report `rawStatus` as the parcel's next tracking event, so the status tables are checked end to
   * end, through the adapter's `track`. Optional; without it only the tables are checked.
   */
  readonly addStatus?: (fake: F, trackingNumber: string, rawStatus: string) => void
  /**
   * Credentials the fake accepts, and the canary: a unique string that appears in them (and in every
   * `Failure.credentials`) and must appear nowhere else. Omit for an adapter that takes no credentials.
   */
  readonly credentials?: { readonly valid: Readonly<Record<string, string>>; readonly canary: string }
  readonly fixtures: {
    /** Every raw status the courier is known to send (from the adapter's fixtures): each must map. */
    readonly rawStatuses: ReadonlyArray<string>
    /** The order to create; {@link order} by default. */
    readonly order?: ParcelOrder
    /** A parcel the fake knows; by default the one `create` just made. */
    readonly trackingNumber?: string
    /**
     * A number of the courier's form that the fake does not know: a batch track asks it beside a known parcel, which
     * must still be answered. By default the number of a failure row that expects `track` refused.
     */
    readonly unknownTrackingNumber?: string
    /** The rates to ask for; {@link ratesQuery} by default. */
    readonly ratesQuery?: RatesQuery
    /** Sent as `options.fromWilaya` on every call, for couriers that need the wilaya parcels ship from. */
    readonly fromWilaya?: WilayaCode.WilayaCode
  }
  readonly failures?: ReadonlyArray<Failure<F>>
  /** For an adapter with `push`: its secrets, how its courier signs, and what it pushes. */
  readonly push?: PushOptions
}

export type PushOptions = PushRows.Options

export interface Check {
  readonly id: "capabilities" | "egress" | "statuses" | "errors" | "secrets" | "dispatch" | "push"
  readonly name: string
  readonly run: Effect.Effect<void, unknown>
}

/** A home delivery to Algiers every courier should accept. */
export const order: ParcelOrder = Schema.decodeUnknownSync(ParcelOrder)({
  reference: "conformance-1",
  recipient: {
    fullName: "Amina Benali",
    phone: "0555123456",
    wilayaCode: 16,
    communeName: "Bab Ezzouar",
    addressLine: "Cité 2000 logements"
  },
  deliveryType: "home",
  productList: "1x robe",
  codAmount: 4500
})

/** Algiers to Oran, home delivery. */
export const ratesQuery: RatesQuery = Schema.decodeUnknownSync(RatesQuery)({
  fromWilaya: 16,
  toWilaya: 31,
  deliveryType: "home",
  codAmount: 4500
})

const operationOrder: ReadonlyArray<OperationName> = allOperations

/**
 * The operation a failure without one runs: the first the adapter declares, in the order create, track, rates, label,
 * then the optional ones (`CourierAdapter.operations`).
 */
export const firstDeclared = (adapter: Any): OperationName =>
  operationOrder.find((operation) => adapter.capabilities[operation]) ?? "create"

/** The canary of an adapter that takes no credentials: sent anyway, it must not come back. */
const defaultCanary = "tawsil-canary-3f9c1e7a5b"

/** The slack a timed-out call gets beyond its timeout before the kit calls it a hang. */
const TIMEOUT_SLACK_MS = 1000

/** Whether two couriers of the adapter claim one name: the host would refuse to load it. */
const clashes = (couriers: ReadonlyArray<CourierManifest>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const clashing = new Set<string>()
  for (const name of couriers.flatMap((courier) => [courier.key, ...courier.aliases])) {
    if (seen.has(name)) clashing.add(name)
    seen.add(name)
  }
  return [...clashing]
}

/** What is wrong with the suite itself; empty when it can prove conformance. */
export const problems = <F extends Fake>(options: Options<F>): ReadonlyArray<string> => {
  const { adapter, credentials, failures = [], fixtures } = options
  const found: Array<string> = []
  const declared = operationOrder.filter((operation) => adapter.capabilities[operation])
  const hasCanary = (values: Readonly<Record<string, string>>) =>
    credentials !== undefined && Object.values(values).some((value) => value.includes(credentials.canary))
  if (declared.length === 0) found.push("the adapter declares no operation")
  if (adapter.push !== undefined && options.push === undefined) {
    found.push("the adapter reads pushes: give push (its secrets, how the courier signs, what it pushes)")
  }
  if (adapter.push === undefined && options.push !== undefined) found.push("the adapter declares no push: omit push")
  if (adapter.push !== undefined && options.push !== undefined) found.push(...PushRows.problems(adapter, options.push))
  for (const name of clashes(adapter.couriers)) found.push(`two couriers of the adapter are named ${name}`)
  if (fixtures.rawStatuses.length === 0)
    found.push("fixtures.rawStatuses is empty: list the statuses the courier sends")
  if (options.addStatus !== undefined && (options.fake === undefined || !adapter.capabilities.track)) {
    found.push("addStatus needs a fake and a track operation")
  }
  if (adapter.capabilities.track && !adapter.capabilities.create && fixtures.trackingNumber === undefined) {
    found.push("fixtures.trackingNumber is needed to track: the adapter cannot create a parcel")
  }
  for (const [field, phone] of Object.entries({
    "fixtures.order.recipient.phone": fixtures.order?.recipient.phone,
    "fixtures.order.recipient.phoneAlt": fixtures.order?.recipient.phoneAlt
  })) {
    // The host sends adapters Algerian mobiles only: an order it would refuse proves nothing.
    if (phone !== undefined && phone.trim() !== "" && Option.isNone(AlgerianMobile.normalize(phone))) {
      found.push(`${field} is not an Algerian mobile: the host would refuse the order before the adapter`)
    }
  }
  if (adapter.credentials !== undefined && credentials === undefined) {
    found.push("the adapter takes credentials: give credentials.valid and a canary")
  }
  if (adapter.credentials === undefined && credentials !== undefined) {
    found.push("the adapter takes no credentials: omit credentials")
  }
  if (credentials !== undefined) {
    if (credentials.canary.length < 12) found.push("the canary is too short to be unique (12 characters at least)")
    if (!hasCanary(credentials.valid)) found.push("credentials.valid must contain the canary")
  }
  for (const failure of failures) {
    const where = `failure "${failure.name}"`
    if (failure.operation !== undefined && !adapter.capabilities[failure.operation]) {
      found.push(`${where}: the adapter does not declare ${failure.operation}`)
    }
    if (failure.arrange !== undefined && options.fake === undefined)
      found.push(`${where} arranges a fake, but none is given`)
    if (failure.credentials !== undefined && !hasCanary(failure.credentials)) {
      found.push(`${where}: its credentials must contain the canary too`)
    }
    if (failure.retryAfterSeconds !== undefined && failure.reason !== "CourierRateLimited") {
      found.push(`${where}: retryAfterSeconds is only for CourierRateLimited`)
    }
  }
  if (options.fake !== undefined) {
    const covers = (what: string, test: (failure: Failure<F>) => boolean) => {
      if (!failures.some(test)) found.push(`no failure shows ${what}`)
    }
    covers(
      "a hanging courier cut off by timeoutMs (→ Unreachable)",
      (f) => f.timeoutMs !== undefined && f.reason === "Unreachable"
    )
    covers(
      "a courier that fails (5xx or reset → Unreachable)",
      (f) => f.timeoutMs === undefined && f.reason === "Unreachable"
    )
    covers("an unreadable answer (→ BadResponse)", (f) => f.reason === "BadResponse")
    covers("a 429 (→ CourierRateLimited with retryAfterSeconds)", (f) => f.retryAfterSeconds !== undefined)
    if (adapter.credentials !== undefined) {
      covers("credentials the courier refuses (→ CredentialsRejected)", (f) => f.reason === "CredentialsRejected")
    }
  }
  return found
}

// --- The harness: the adapter, called as a host calls it, against the fake -------------------------------------

interface Harness<F extends Fake> {
  readonly runner: Runner.Runner
  readonly fake: F | undefined
  /** Every HTTP request the process started meanwhile, wherever it went. */
  readonly outgoing: ReadonlyArray<Observers.Outgoing>
  /** The shared part of every call. */
  readonly call: (credentials: Readonly<Record<string, string>> | undefined, timeoutMs?: number) => Runner.Call
}

/** A fresh fake (when there is one) and the adapter bound to it, speaking for its first courier. */
const harness = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const fake = options.fake === undefined ? undefined : yield* options.fake
    const runner = yield* Runner.make(options.adapter, options.adapter.couriers[0]!, fake?.origin)
    const { seen } = yield* Observers.outgoing
    const { fromWilaya } = options.fixtures
    const harness: Harness<F> = {
      runner,
      fake,
      outgoing: seen,
      call: (credentials, timeoutMs) => ({ credentials, timeoutMs, fromWilaya })
    }
    return harness
  })

interface Inputs {
  readonly credentials: Readonly<Record<string, string>> | undefined
  readonly timeoutMs?: number | undefined
  readonly order: ParcelOrder
  readonly trackingNumber: string
  readonly ratesQuery: RatesQuery
}

const runOperation = <F extends Fake>(
  h: Harness<F>,
  operation: OperationName,
  inputs: Inputs
): Effect.Effect<unknown, Runner.Failure> => {
  const call = h.call(inputs.credentials, inputs.timeoutMs)
  switch (operation) {
    case "create":
      return h.runner.create(call, inputs.order)
    case "track":
      return h.runner.track(call, inputs.trackingNumber)
    case "rates":
      return h.runner.rates(call, inputs.ratesQuery)
    case "label":
      return h.runner.label(call, inputs.trackingNumber)
    case "cancel":
      return h.runner.cancel(call, inputs.trackingNumber)
    case "dispatch":
      return h.runner.dispatch(call, inputs.trackingNumber)
    case "trackBatch":
      return h.runner.trackBatch(call, [inputs.trackingNumber])
    case "createBatch":
      return h.runner.createBatch(call, batchOf(inputs.order, 1))
    case "stopDesks":
      return h.runner.stopDesks(call, inputs.order.recipient.wilayaCode)
    case "communes":
      return h.runner.communes(call, inputs.order.recipient.wilayaCode)
    case "checkCredentials":
      return h.runner.checkCredentials(call)
  }
}

/** `count` copies of an order, each with its own reference (`<reference>-b<n>`), as the host sends a batch. */
export const batchOf = (toCreate: ParcelOrder, count: number): ReadonlyArray<ParcelOrder> =>
  Array.from({ length: count }, (_, index) => ({
    ...toCreate,
    reference: `${(toCreate.reference ?? "conformance").slice(0, 56)}-b${index + 1}`
  }))

/** Every declared operation, as a caller would chain them: create, track what was created, price a route. */
const runDeclared = <F extends Fake>(options: Options<F>, h: Harness<F>) =>
  Effect.gen(function* () {
    const { adapter, fixtures } = options
    const credentials = options.credentials?.valid
    const created = adapter.capabilities.create
      ? yield* h.runner.create(h.call(credentials), fixtures.order ?? order)
      : undefined
    const trackingNumber = fixtures.trackingNumber ?? created?.trackingNumber ?? ""
    const tracked = adapter.capabilities.track ? yield* h.runner.track(h.call(credentials), trackingNumber) : undefined
    const rated = adapter.capabilities.rates
      ? yield* h.runner.rates(h.call(credentials), fixtures.ratesQuery ?? ratesQuery)
      : undefined
    const labelled = adapter.capabilities.label ? yield* h.runner.label(h.call(credentials), trackingNumber) : undefined
    const wilaya = (fixtures.order ?? order).recipient.wilayaCode
    const batch = adapter.capabilities.trackBatch
      ? yield* h.runner.trackBatch(h.call(credentials), [trackingNumber])
      : undefined
    // A batch with a number the courier does not know beside a known one (Ecotrack refuses the whole call for it).
    const unknown = unknownNumberOf(options)
    const mixed =
      adapter.capabilities.trackBatch && unknown !== undefined && unknown !== trackingNumber
        ? { unknown, exit: yield* Effect.exit(h.runner.trackBatch(h.call(credentials), [unknown, trackingNumber])) }
        : undefined
    // A bulk create of three parcels: one result each, in order.
    const createdInBatch = adapter.capabilities.createBatch
      ? yield* h.runner.createBatch(h.call(credentials), batchOf(fixtures.order ?? order, 3))
      : undefined
    const desks = adapter.capabilities.stopDesks ? yield* h.runner.stopDesks(h.call(credentials), wilaya) : undefined
    const communes = adapter.capabilities.communes ? yield* h.runner.communes(h.call(credentials), wilaya) : undefined
    if (adapter.capabilities.checkCredentials) yield* h.runner.checkCredentials(h.call(credentials))
    // A courier that dispatches later is asked to cancel a parcel it holds undispatched, and to dispatch another.
    const later = adapter.capabilities.dispatch ? yield* dispatchFlow(options, h) : undefined
    // Last: the parcel the other operations read is gone after it.
    if (adapter.capabilities.cancel && later === undefined) yield* h.runner.cancel(h.call(credentials), trackingNumber)
    return {
      created,
      trackingNumber,
      tracked,
      rated,
      labelled,
      batch,
      mixed,
      createdInBatch,
      desks,
      communes,
      wilaya,
      later
    }
  })

/**
 * What a caller that dispatches later does: creates a parcel undispatched and cancels it (when the adapter cancels),
 * then creates another undispatched and dispatches it.
 */
const dispatchFlow = <F extends Fake>(options: Options<F>, h: Harness<F>) =>
  Effect.gen(function* () {
    const credentials = options.credentials?.valid
    const toCreate = options.fixtures.order ?? order
    const undispatched = { dispatch: false } as const
    let cancelled: CreatedParcel | undefined
    if (options.adapter.capabilities.cancel) {
      cancelled = yield* h.runner.create(h.call(credentials), toCreate, undispatched)
      yield* h.runner.cancel(h.call(credentials), cancelled.trackingNumber)
    }
    const held = yield* h.runner.create(h.call(credentials), toCreate, undispatched)
    const dispatched = yield* h.runner.dispatch(h.call(credentials), held.trackingNumber)
    return { cancelled, held, dispatched }
  })

/** A number the fake does not know: the fixture's, else that of a failure row expecting `track` refused. */
const unknownNumberOf = <F extends Fake>(options: Options<F>): string | undefined =>
  options.fixtures.unknownTrackingNumber ??
  options.failures?.find(
    (failure) =>
      failure.operation === "track" &&
      failure.reason === "Refused" &&
      failure.trackingNumber !== undefined &&
      failure.arrange === undefined &&
      failure.credentials === undefined
  )?.trackingNumber

/** One failure case, run: the fake is told to misbehave just before the call (after any parcel it needs). */
const runFailure = <F extends Fake>(options: Options<F>, h: Harness<F>, failure: Failure<F>) =>
  Effect.gen(function* () {
    const operation = failure.operation ?? firstDeclared(options.adapter)
    const credentials = options.credentials?.valid
    const trackingNumber =
      failure.trackingNumber ??
      options.fixtures.trackingNumber ??
      (operation === "track"
        ? (yield* h.runner.create(h.call(credentials), options.fixtures.order ?? order)).trackingNumber
        : "")
    if (failure.arrange !== undefined && h.fake !== undefined) failure.arrange(h.fake)
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(
      runOperation(h, operation, {
        credentials: failure.credentials ?? credentials,
        timeoutMs: failure.timeoutMs,
        order: failure.order ?? options.fixtures.order ?? order,
        trackingNumber,
        ratesQuery: failure.ratesQuery ?? options.fixtures.ratesQuery ?? ratesQuery
      })
    )
    return { operation, exit, elapsed: (yield* Clock.currentTimeMillis) - start }
  })

const isRelative = (path: string) => path.startsWith("/") && !path.startsWith("//")

/** The typed error a call failed with, if it failed with one. */
const errorOf = <E>(exit: Exit.Exit<unknown, E>): E | undefined =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined

/** The canonical status a raw status maps to, `unknown` when the status table lacks it. */
const canonicalOf = (adapter: Any, rawStatus: string) =>
  Object.hasOwn(adapter.statuses, rawStatus) ? adapter.statuses[rawStatus] : "unknown"

/** Whether a raw status is in the adapter's tables: a movement status, or a cash status. */
const isKnown = (adapter: Any, rawStatus: string) =>
  Object.hasOwn(adapter.statuses, rawStatus) ||
  (adapter.codStatuses !== undefined && Object.hasOwn(adapter.codStatuses, rawStatus))

// --- The checks -------------------------------------------------------------------------------------------------

const capabilities = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const { adapter } = options
    for (const operation of operationOrder) {
      assert.strictEqual(
        adapter.capabilities[operation],
        adapter.operations[operation] !== undefined,
        `the ${operation} capability is declared exactly when the operation is implemented`
      )
    }
    assert.strictEqual(adapter.capabilities.push, adapter.push !== undefined, "push is declared exactly with push")
    const h = yield* harness(options)
    const { created, tracked, rated, labelled, batch, mixed, createdInBatch, desks, communes, trackingNumber, wilaya } =
      yield* runDeclared(options, h)
    if (created !== undefined) {
      assert.isNotEmpty(created.trackingNumber, "create answers a tracking number")
      assert.isTrue(
        Object.hasOwn(adapter.statuses, created.rawStatus),
        "the raw status create answers is in the status table"
      )
    }
    if (tracked !== undefined) {
      for (const event of tracked) {
        assert.isTrue(isKnown(adapter, event.rawStatus), `tracking reported ${event.rawStatus}, which is not mapped`)
      }
    }
    if (rated !== undefined) {
      const query = options.fixtures.ratesQuery ?? ratesQuery
      assert.strictEqual(rated.deliveryType, query.deliveryType)
      assert.strictEqual(rated.total, rated.deliveryFee + rated.codFee, "total = deliveryFee + codFee")
      assert.isNotEmpty(rated.options, "rates lists the options it quoted")
    }
    if (labelled !== undefined) {
      assert.isNotEmpty(labelled.contentType, "a label says its content type")
      assert.isAbove(labelled.bytes.length, 0, "a label has content")
    }
    if (batch !== undefined) {
      assert.isTrue(batch.has(trackingNumber), "batch tracking answers the parcel it was asked for")
      for (const event of batch.get(trackingNumber) ?? []) {
        assert.isTrue(isKnown(adapter, event.rawStatus), `batch tracking reported ${event.rawStatus}, not mapped`)
      }
    }
    if (mixed !== undefined) {
      const known = `a batch with ${mixed.unknown}, which the courier does not know, still answers ${trackingNumber}`
      if (Exit.isFailure(mixed.exit)) assert.fail(`${known}; it failed whole: ${Cause.pretty(mixed.exit.cause)}`)
      assert.isTrue(mixed.exit.value.has(trackingNumber), known)
      assert.isFalse(mixed.exit.value.has(mixed.unknown), "a number the courier does not know is left out of the batch")
    }
    if (createdInBatch !== undefined) {
      assert.strictEqual(createdInBatch.length, 3, "a bulk create answers one result per order")
      const parcels = createdInBatch.map((result, index) => {
        if (Result.isSuccess(result)) return result.success
        return assert.fail(`the bulk create refused order ${index + 1}: ${result.failure._tag}`)
      })
      for (const parcel of parcels) {
        assert.isNotEmpty(parcel.trackingNumber, "each parcel of a bulk create has a tracking number")
        assert.isTrue(Object.hasOwn(adapter.statuses, parcel.rawStatus), "a bulk create's raw status is mapped")
      }
      assert.strictEqual(
        new Set(parcels.map((parcel) => parcel.trackingNumber)).size,
        3,
        "a bulk create makes one parcel per order"
      )
    }
    if (desks !== undefined) {
      assert.isNotEmpty(desks, `the courier lists desks in wilaya ${wilaya}`)
      for (const desk of desks) {
        assert.isNotEmpty(desk.id, "a desk has an id")
        assert.isNotEmpty(desk.name, "a desk has a name")
        assert.strictEqual(desk.wilayaCode, wilaya, "a desk listed for a wilaya is in it")
      }
    }
    if (communes !== undefined) {
      assert.isNotEmpty(communes, `the courier lists communes in wilaya ${wilaya}`)
      for (const commune of communes) assert.isNotEmpty(commune.name, "a courier's commune has a name")
    }
    for (const operation of operationOrder.filter((operation) => !adapter.capabilities[operation])) {
      const before = { sent: h.runner.sent.length, received: h.fake?.requests.length ?? 0, outgoing: h.outgoing.length }
      const exit = yield* Effect.exit(
        runOperation(h, operation, {
          credentials: options.credentials?.valid,
          order: options.fixtures.order ?? order,
          trackingNumber: options.fixtures.trackingNumber ?? "T1",
          ratesQuery: options.fixtures.ratesQuery ?? ratesQuery
        })
      )
      const error = errorOf(exit)
      assert.strictEqual(
        error?._tag === "CourierError" ? error.reason._tag : error?._tag,
        "Unsupported",
        `${operation} is not declared: the host refuses it`
      )
      assert.deepStrictEqual(
        { sent: h.runner.sent.length, received: h.fake?.requests.length ?? 0, outgoing: h.outgoing.length },
        before,
        `an undeclared ${operation} sends nothing`
      )
    }
  }).pipe(Effect.scoped)

const egress = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const h = yield* harness(options)
    yield* runDeclared(options, h)
    const { sent } = h.runner
    for (const request of sent) {
      assert.isTrue(isRelative(request.path), `${request.path} is not relative to the courier's origin`)
    }
    if (h.fake === undefined) {
      assert.deepStrictEqual(sent, [], "an adapter without a fake sends nothing")
      assert.deepStrictEqual(h.outgoing, [], "an adapter without a fake opens no HTTP request")
      return
    }
    const fake = h.fake
    assert.isNotEmpty(sent, "the adapter sends its requests through CourierHttp")
    assert.deepStrictEqual(
      fake.requests.map(({ method, path }) => `${method} ${path}`),
      sent.map(({ method, path }) => `${method} ${new URL(path, "http://x").pathname}`),
      "the fake received exactly what the adapter sent through CourierHttp"
    )
    assert.deepStrictEqual(
      h.outgoing.map(({ origin }) => origin),
      sent.map(() => fake.origin),
      "every HTTP request the process made went to the courier (its loopback stand-in)"
    )
  }).pipe(Effect.scoped)

/** A raw status no courier sends. */
const stranger = "tawsil_conformance_unmapped"

const statuses = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const { adapter } = options
    const cash = adapter.codStatuses
    for (const rawStatus of options.fixtures.rawStatuses) {
      const where = cash !== undefined && Object.hasOwn(cash, rawStatus) ? "cash table" : "status table"
      assert.isTrue(isKnown(adapter, rawStatus), `raw status ${rawStatus} is in the ${where}`)
    }
    assert.isFalse(isKnown(adapter, stranger), `${stranger} is a status no table may list`)

    const { addStatus } = options
    if (addStatus === undefined) return
    // End to end: the fake reports every status, and one nobody mapped; the adapter passes them on unchanged.
    yield* Effect.gen(function* () {
      const h = yield* harness(options)
      const credentials = options.credentials?.valid
      const trackingNumber =
        options.fixtures.trackingNumber ??
        (yield* h.runner.create(h.call(credentials), options.fixtures.order ?? order)).trackingNumber
      for (const rawStatus of [...options.fixtures.rawStatuses, stranger]) addStatus(h.fake!, trackingNumber, rawStatus)
      const reported = new Set((yield* h.runner.track(h.call(credentials), trackingNumber)).map((e) => e.rawStatus))
      for (const rawStatus of options.fixtures.rawStatuses) {
        assert.isTrue(reported.has(rawStatus), `tracking passes ${rawStatus} on as the courier sent it`)
      }
      // The host maps it to `unknown` and logs it: an adapter that drops or rewrites it hides a status to add.
      assert.isTrue(
        reported.has(stranger),
        "a status nobody mapped is unknown, never guessed: tracking passes it on as the courier sent it"
      )
    }).pipe(Effect.scoped)
  })

/**
 * A parcel created undispatched has a raw status the table maps to `created` (the courier does not act on it yet);
 * it can be cancelled, when the adapter cancels; another is dispatched, and is then past `created`, as a parcel
 * created dispatched is.
 */
const dispatch = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const { adapter } = options
    const h = yield* harness(options)
    const credentials = options.credentials?.valid
    const toCreate = options.fixtures.order ?? order
    const dispatchedAtOnce = yield* h.runner.create(h.call(credentials), toCreate)
    assert.notStrictEqual(
      canonicalOf(adapter, dispatchedAtOnce.rawStatus),
      "created",
      `a parcel created dispatched is past created (${dispatchedAtOnce.rawStatus})`
    )
    const held = () =>
      Effect.tap(h.runner.create(h.call(credentials), toCreate, { dispatch: false }), (parcel) =>
        Effect.sync(() => {
          assert.isNotEmpty(parcel.trackingNumber, "an undispatched create answers a tracking number")
          assert.strictEqual(
            canonicalOf(adapter, parcel.rawStatus),
            "created",
            `an undispatched parcel's raw status (${parcel.rawStatus}) maps to created`
          )
        })
      )
    if (adapter.capabilities.cancel) {
      const cancelled = yield* held()
      yield* h.runner.cancel(h.call(credentials), cancelled.trackingNumber)
    }
    const later = yield* held()
    const dispatched = yield* h.runner.dispatch(h.call(credentials), later.trackingNumber)
    assert.isTrue(Object.hasOwn(adapter.statuses, dispatched.rawStatus), "dispatch answers a status in the table")
    assert.notStrictEqual(
      canonicalOf(adapter, dispatched.rawStatus),
      "created",
      `a dispatched parcel is past created (${dispatched.rawStatus})`
    )
  }).pipe(Effect.scoped)

const failureCheck = <F extends Fake>(options: Options<F>, failure: Failure<F>) =>
  Effect.gen(function* () {
    const h = yield* harness(options)
    const { operation, exit, elapsed } = yield* runFailure(options, h, failure)
    if (Exit.isSuccess(exit)) return assert.fail(`${operation} succeeded despite ${failure.name}`)
    const courierError = errorOf(exit)
    assert.strictEqual(
      courierError?._tag,
      "CourierError",
      `${operation} fails with a CourierError: ${Cause.pretty(exit.cause)}`
    )
    if (courierError?._tag !== "CourierError") return
    assert.strictEqual(courierError.operation, operation)
    assert.strictEqual(courierError.reason._tag, failure.reason, courierError.message)
    if (failure.retryAfterSeconds !== undefined && courierError.reason._tag === "CourierRateLimited") {
      assert.strictEqual(courierError.reason.retryAfterSeconds, failure.retryAfterSeconds, "retryAfterSeconds")
    }
    if (failure.timeoutMs !== undefined) {
      assert.isBelow(
        elapsed,
        failure.timeoutMs + TIMEOUT_SLACK_MS,
        `the caller's ${failure.timeoutMs} ms bound the call`
      )
    }
  }).pipe(Effect.scoped)

const secrets = <F extends Fake>(options: Options<F>) =>
  Effect.gen(function* () {
    const canary = options.credentials?.canary ?? defaultCanary
    const seen: Array<string> = []
    const see = (exit: Exit.Exit<unknown, unknown>) => {
      if (Exit.isSuccess(exit)) seen.push(...Observers.renderings(exit.value))
      else {
        seen.push(Cause.pretty(exit.cause))
        for (const reason of exit.cause.reasons) {
          seen.push(
            ...Observers.renderings(
              reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : reason
            )
          )
        }
      }
    }
    const h = yield* harness(options)
    // Every operation's own outcome is seen, not only the run's: a result that quotes a credential and a later step
    // that fails must not hide each other.
    const observe = <A, E>(effect: Effect.Effect<A, E>) => Effect.onExit(effect, (exit) => Effect.sync(() => see(exit)))
    const observed: Harness<F> = {
      ...h,
      runner: {
        ...h.runner,
        create: (call, input, options) => observe(h.runner.create(call, input, options)),
        dispatch: (call, input) => observe(h.runner.dispatch(call, input)),
        cancel: (call, input) => observe(h.runner.cancel(call, input)),
        track: (call, input) => observe(h.runner.track(call, input)),
        rates: (call, input) => observe(h.runner.rates(call, input)),
        label: (call, input) => observe(h.runner.label(call, input))
      }
    }
    yield* Effect.gen(function* () {
      yield* Effect.exit(runDeclared(options, observed))
      // Each failure against a fresh fake, as its own check runs it: a misbehaviour the courier's rate limits kept
      // from being sent must not carry over to the next case.
      for (const failure of options.failures ?? []) {
        const run = Effect.flatMap(harness(options), (fresh) => runFailure(options, fresh, failure))
        see((yield* Effect.scoped(run)).exit)
      }
      // Credentials the host must refuse before any call: they must not be quoted back.
      const valid = options.credentials?.valid
      const probes: ReadonlyArray<Readonly<Record<string, string>>> =
        valid === undefined
          ? [{ token: canary }]
          : [
              { ...valid, unexpected: canary },
              ...Object.keys(valid).flatMap((field) => [
                { ...valid, [field]: canary.repeat(Math.ceil(2048 / canary.length)) },
                { ...valid, [field]: `${canary}\n` }
              ])
            ]
      for (const credentials of probes) {
        const operation = firstDeclared(options.adapter)
        see(
          yield* Effect.exit(
            runOperation(h, operation, {
              credentials,
              order: options.fixtures.order ?? order,
              trackingNumber: options.fixtures.trackingNumber ?? "T1",
              ratesQuery: options.fixtures.ratesQuery ?? ratesQuery
            })
          )
        )
      }
    }).pipe(Observers.capturing(seen))
    const forms = [canary, encodeURIComponent(canary)]
    for (const text of seen) {
      for (const form of forms) assert.notInclude(text, form, "a credential was shown")
    }
  }).pipe(Effect.scoped)

/**
 * Runs one check under the process egress guard (installed for the check unless the process already has it), and
 * fails it when anything the check exercised tried to open a connection or look up a name around `CourierHttp`,
 * whatever the check itself concluded: an escape the adapter takes only now and then is caught on the path it takes.
 */
const guarded = (run: Effect.Effect<void, unknown>): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const owned = !ProcessEgress.isInstalled()
        if (owned) ProcessEgress.install()
        return owned
      }),
      (owned) => Effect.sync(() => owned && ProcessEgress.uninstall())
    )
    const before = ProcessEgress.refused()
    const exit = yield* Effect.exit(run)
    const refused = ProcessEgress.attempts().slice(before)
    if (refused.length > 0) {
      assert.fail(
        `the adapter went around CourierHttp: the egress guard refused ${[...new Set(refused.map(ProcessEgress.describe))].join(", ")}`
      )
    }
    return yield* exit
  }).pipe(Effect.scoped)

/**
 * The checks, as data: {@link suite} registers each as a test; a test of the kit can run one and expect it to fail.
 * Run them with live services (`it.live`): they use real sockets and real timeouts. Throws when {@link problems}
 * finds the suite too thin.
 */
export const checks = <F extends Fake>(options: Options<F>): ReadonlyArray<Check> => {
  const found = problems(options)
  if (found.length > 0) throw new Error(`conformance suite for ${options.adapter.platform}: ${found.join("; ")}`)
  const all: ReadonlyArray<Check> = [
    {
      id: "capabilities",
      name: "each declared capability works; the others are refused as Unsupported, sending nothing",
      run: capabilities(options)
    },
    {
      id: "egress",
      name: "every request is a relative path that reaches the courier's fake, and nothing else leaves the process",
      run: egress(options)
    },
    {
      id: "statuses",
      name: "every raw status in the fixtures maps; tracking passes on every status as the courier sent it",
      run: statuses(options)
    },
    ...(options.adapter.capabilities.dispatch
      ? [
          {
            id: "dispatch" as const,
            name: "dispatch: a parcel created undispatched is cancelled; another is dispatched",
            run: dispatch(options)
          }
        ]
      : []),
    ...(options.push === undefined ? [] : PushRows.checks(options.adapter, options.push)),
    ...(options.failures ?? []).map(
      (failure): Check => ({
        id: "errors",
        name: `${failure.operation ?? firstDeclared(options.adapter)}: ${failure.name} → ${failure.reason}`,
        run: failureCheck(options, failure)
      })
    ),
    {
      id: "secrets",
      name: "credentials appear in no log, span, error or response, on success or failure",
      run: secrets(options)
    }
  ]
  return all.map((check) => ({ ...check, run: guarded(check.run) }))
}

/** Registers the conformance suite for an adapter: `describe(name)` with one live test per check. */
export const suite = <F extends Fake>(name: string, options: Options<F>): void => {
  describe(name, () => {
    for (const check of checks(options)) it.live(check.name, () => check.run)
  })
}
